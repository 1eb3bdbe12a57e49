// The wanted values of a JSON document read as a stream (src/transfer/json-values.ts): the same values however
// the bytes are cut, each with its path; a value over the bound reported and skipped; a syntax error reported
// once, with the path it broke, and nothing after it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type JsonPath, jsonPathText, readJsonValues } from '../../src/transfer/json-values.js';
import { chunked, readAll } from '../support/source-files.js';

const usersOf = (path: JsonPath) => path.length === 2 && path[0] === 'users' && typeof path[1] === 'number';

describe('readJsonValues', () => {
  const doc = {
    realm: 'main',
    'odd key "é"': [1, -2.5e3, true, false, null, { nested: ['x'] }],
    users: [{ id: 'a', name: 'Zoë 🔑', credentials: [{ text: 'quote " back \\ slash \u0001 \ud83d\udd11' }] }, 7, 'b'],
    after: { users: [{ id: 'not at the root' }] },
  };
  const text = `\ufeff${JSON.stringify(doc, null, 2)}`;

  it('yields the wanted values with their paths, whatever the chunk size (one byte, seven, all)', async () => {
    for (const size of [1, 7, 64, text.length * 4]) {
      const items = await readAll(readJsonValues(chunked(text, size), usersOf));
      assert.deepEqual(
        items,
        doc.users.map((value, i) => ({ kind: 'value', path: ['users', i], value })),
        `chunks of ${size}`,
      );
    }
  });

  it('names paths as JSON paths', () => {
    assert.equal(jsonPathText(['users', 3, 'credentials', 0]), '$.users[3].credentials[0]');
    assert.equal(jsonPathText([0, 'odd key']), '$[0]["odd key"]');
    assert.equal(jsonPathText([]), '$');
  });

  it('reports a value over the bound and goes on with the next', async () => {
    const big = JSON.stringify({ users: [{ pad: 'x'.repeat(200) }, { id: 2 }] });
    const items = await readAll(readJsonValues(chunked(big, 13), usersOf, 100));
    assert.deepEqual(items, [
      { kind: 'unreadable', path: ['users', 0], message: 'the value is longer than 100 bytes' },
      { kind: 'value', path: ['users', 1], value: { id: 2 } },
    ]);
  });

  it('reports a syntax error once, at the record it broke, and reads nothing after it', async () => {
    const broken = '{"users": [{"id": 1}, {"id": tru}, {"id": 3}]}';
    const items = await readAll(readJsonValues(chunked(broken, 5), usersOf));
    assert.deepEqual(items[0], { kind: 'value', path: ['users', 0], value: { id: 1 } });
    assert.equal(items.length, 2);
    assert.equal(items[1]!.kind, 'error');
    assert.deepEqual(items[1]!.path, ['users', 1]);
    assert.match((items[1] as { message: string }).message, /expected "true" \(byte 33\)/);
  });

  for (const [name, input, message] of [
    ['an empty input', '', /the input is empty/],
    ['a document cut short', '{"users": [{"id": 1}', /ends early/],
    ['text after the document', '{"users": []} x', /after the end of the document/],
    ['a bad escape', '{"users": ["\\q"]}', /the escape \\q is not JSON/],
    ['a raw control character in a string', '{"users": ["a\nb"]}', /control character/],
    ['a bad number', '{"users": [01]}', /"01" is not a JSON number/],
    ['a missing colon', '{"users" []}', /where ":" should be/],
  ] as const) {
    it(`reports ${name}`, async () => {
      const items = await readAll(readJsonValues(chunked(input, 3), usersOf));
      const last = items[items.length - 1];
      assert.equal(last?.kind, 'error', JSON.stringify(items));
      assert.match((last as { message: string }).message, message);
    });
  }

  it('reports a wanted value that is not UTF-8 and goes on', async () => {
    const bytes = Buffer.concat([Buffer.from('{"users":["'), Buffer.from([0xff, 0xfe]), Buffer.from('", "ok"]}')]);
    const items = await readAll(readJsonValues(chunked(bytes, 4), usersOf));
    assert.deepEqual(items, [
      { kind: 'unreadable', path: ['users', 0], message: 'the value is not UTF-8' },
      { kind: 'value', path: ['users', 1], value: 'ok' },
    ]);
  });
});
