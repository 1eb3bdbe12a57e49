// Every message the configuration gives, word for word: the loader's problems for each configuration of
// message-cases.ts, as test/config/messages.json holds them. The file was written from the loader before its
// rewrite from the schemas (src/schemas/), so the rewrite keeps each message (which key, which environment
// variable, what was expected). After a deliberate change of a message: UPDATE_MESSAGES=1 node
// scripts/run-tests.mjs config/messages, and review the file's diff.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../src/config/errors.js';
import { loadServeSettings } from '../../src/config/serve.js';
import { FIXTURE_FILES, MESSAGE_CASES, type MessageCase } from './message-cases.js';
import { tempDir, writeFile } from './support.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const expectedFile = join(repo, 'test', 'config', 'messages.json');

/** The ConfigError's first line and its problems (sorted: their order is not part of the message), `<dir>` for the folder. */
function messagesOf(entry: MessageCase): { title: string; problems: string[] } {
  const dir = tempDir();
  for (const [name, content] of Object.entries(FIXTURE_FILES)) writeFile(dir, name, content);
  const file = entry.file === undefined ? undefined : writeFile(dir, 'config.json', entry.file);
  const clean = (text: string) => text.split(dir).join('<dir>');
  try {
    loadServeSettings({ ...(file === undefined ? {} : { file }), env: entry.env ?? {}, cwd: dir });
  } catch (error) {
    assert.ok(error instanceof ConfigError, `${entry.name}: ${String(error)}`);
    return { title: clean(error.message.split('\n')[0]!), problems: error.problems.map(clean).sort() };
  }
  return { title: 'valid', problems: [] };
}

describe('the configuration messages', () => {
  const actual = Object.fromEntries(MESSAGE_CASES.map((entry) => [entry.name, messagesOf(entry)]));
  if (process.env.UPDATE_MESSAGES === '1') writeFileSync(expectedFile, `${JSON.stringify(actual, null, 2)}\n`);
  const expected = JSON.parse(readFileSync(expectedFile, 'utf8')) as typeof actual;

  it('covers every case of the file, and no case is valid', () => {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
    for (const [name, { problems }] of Object.entries(actual)) assert.ok(problems.length > 0, name);
  });
  for (const entry of MESSAGE_CASES) {
    it(entry.name, () => assert.deepEqual(actual[entry.name], expected[entry.name]));
  }
});
