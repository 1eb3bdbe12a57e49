// The lines of a byte stream (src/transfer/lines.ts): numbered as an editor shows them, cut anywhere in the
// stream, a line longer than the bound reported and skipped without being held.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readLines, type Line } from '../../src/transfer/lines.js';

async function* pieces(...parts: (string | Buffer)[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part;
}

async function all(input: AsyncIterable<Uint8Array>, max?: number): Promise<Line[]> {
  const out: Line[] = [];
  for await (const line of readLines(input, max)) out.push(line);
  return out;
}

describe('readLines', () => {
  it('numbers lines from 1, drops a BOM and CRs, skips blank lines, reads a last line without LF', async () => {
    const text = Buffer.from('\ufeff{"a":1}\r\n\n  \nsecond\r\nthird', 'utf8');
    // Cut inside the BOM, inside the CRLF and inside a multi-byte character of no line.
    const lines = await all(pieces(text.subarray(0, 2), text.subarray(2, 10), text.subarray(10)));
    assert.deepEqual(lines, [
      { line: 1, text: '{"a":1}' },
      { line: 4, text: 'second' },
      { line: 5, text: 'third' },
    ]);
  });

  it('keeps a UTF-8 character cut between chunks whole', async () => {
    const text = Buffer.from('Zoë 🔑\n', 'utf8');
    const chunks = [...text].map((byte) => Buffer.from([byte]));
    assert.deepEqual(await all(pieces(...chunks)), [{ line: 1, text: 'Zoë 🔑' }]);
  });

  it('reports a line over the bound as too long and goes on with the next', async () => {
    const lines = await all(pieces('short\n', 'x'.repeat(30), 'y'.repeat(30), '\nafter\n', 'z'.repeat(70)), 40);
    assert.deepEqual(lines, [
      { line: 1, text: 'short' },
      { line: 2, tooLong: true },
      { line: 3, text: 'after' },
      { line: 4, tooLong: true },
    ]);
  });
});
