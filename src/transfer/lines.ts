// The lines of a file read as a stream of bytes (JSON Lines, CSV): never the whole file in memory, at most one
// line of MAX_LINE_BYTES. A longer line is reported as too long and skipped up to its end, so one broken line
// costs one refusal, not the import. Lines are numbered from 1 as an editor shows them; a byte-order mark
// and a CR before the LF are dropped; blank lines are numbered but not yielded.

/** The longest line read (an ML-DSA-87 key in base64url is under 4 KiB; a record of ours under 8 KiB). */
export const MAX_LINE_BYTES = 256 * 1024;

export type Line = { readonly line: number; readonly text: string } | { readonly line: number; readonly tooLong: true };

const LF = 0x0a;

export async function* readLines(input: AsyncIterable<Uint8Array>, maxBytes = MAX_LINE_BYTES): AsyncIterable<Line> {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let parts: Buffer[] = [];
  let length = 0;
  let skipping = false;
  let number = 0;
  const finish = (): Line | undefined => {
    number++;
    if (skipping) {
      skipping = false;
      return { line: number, tooLong: true };
    }
    let text = decoder.decode(Buffer.concat(parts, length));
    parts = [];
    length = 0;
    if (number === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    return text.trim() === '' ? undefined : { line: number, text };
  };
  for await (const chunk of input) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let from = 0;
    while (from < bytes.length) {
      const at = bytes.indexOf(LF, from);
      const end = at < 0 ? bytes.length : at;
      if (!skipping) {
        if (length + (end - from) > maxBytes) {
          skipping = true;
          parts = [];
          length = 0;
        } else if (end > from) {
          // A copy: the caller's chunk may be reused once we hand control back.
          parts.push(Buffer.from(bytes.subarray(from, end)));
          length += end - from;
        }
      }
      if (at < 0) break;
      const line = finish();
      if (line) yield line;
      from = at + 1;
    }
  }
  if (length > 0 || skipping) {
    const line = finish();
    if (line) yield line;
  }
}
