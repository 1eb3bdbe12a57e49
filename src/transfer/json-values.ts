// Long: one streaming JSON tokenizer (its states read together), the only reader of JSON documents the import has.
// The values of a JSON document read as a stream of bytes (a Keycloak realm export, a Hanko list, a JSON array
// of SimpleWebAuthn passkeys): never the whole document in memory. The tokenizer checks the whole document's
// syntax; each value whose path the caller wants (the elements of `users`, of the root array) is kept, at
// most MAX_VALUE_BYTES of it, and handed over parsed with its path, in document order. A value too long is
// reported and skipped; a syntax error ends the reading (nothing after it can be placed), reported with the
// path it was met at. Structural characters are ASCII, so the bytes are scanned as they come: a chunk may end
// anywhere, in a string or in a UTF-8 sequence.

/** The longest value kept (a Keycloak user with many credentials and attributes stays far below). */
export const MAX_VALUE_BYTES = 1024 * 1024;

/** Keys and indices from the root to a value: `["users", 3]` is `$.users[3]`. */
export type JsonPath = readonly (string | number)[];

export type JsonValueItem =
  | { readonly kind: 'value'; readonly path: JsonPath; readonly value: unknown }
  /** A wanted value longer than the limit, or not UTF-8: skipped, the document goes on. */
  | { readonly kind: 'unreadable'; readonly path: JsonPath; readonly message: string }
  /** The document is not JSON from here on: the last item. */
  | { readonly kind: 'error'; readonly path: JsonPath; readonly message: string };

/** `$.users[3].credentials[0]`: a path as the import's report gives it. */
export function jsonPathText(path: JsonPath): string {
  let text = '$';
  for (const part of path)
    text +=
      typeof part === 'number'
        ? `[${part}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(part)
          ? `.${part}`
          : `[${JSON.stringify(part)}]`;
  return text;
}

// Modes: what the next significant byte may be.
const VALUE = 0;
const VALUE_OR_END = 1; // after `[`
const KEY_OR_END = 2; // after `{`
const KEY = 3; // after `,` in an object
const COLON = 4;
const AFTER = 5; // after a value inside a container
const STRING = 6;
const NUMBER = 7;
const LITERAL = 8;
const DONE = 9;

const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const MAX_KEY_BYTES = 1024;
const MAX_NUMBER_CHARS = 512;

interface Frame {
  readonly array: boolean;
  key: string | number;
}

interface Capture {
  readonly depth: number;
  readonly path: JsonPath;
  parts: Buffer[];
  length: number;
  tooLong: boolean;
}

const BOM = [0xef, 0xbb, 0xbf];
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isNumberByte = (b: number) =>
  (b >= 0x30 && b <= 0x39) || b === 0x2e || b === 0x65 || b === 0x45 || b === 0x2b || b === 0x2d;
const isHex = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46);
/** After a backslash: `"` `\` `/` b f n r t (u is handled apart). */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/**
 * Every value of the document whose path `wanted` accepts (not looking inside a value already wanted), in
 * document order, then an `error` item if the document is not JSON.
 */
export async function* readJsonValues(
  input: AsyncIterable<Uint8Array>,
  wanted: (path: JsonPath) => boolean,
  maxBytes = MAX_VALUE_BYTES,
): AsyncIterable<JsonValueItem> {
  const scan = scanner(wanted, maxBytes);
  for await (const chunk of input) {
    const items = scan.feed(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    yield* items;
    if (items.length > 0 && items[items.length - 1]!.kind === 'error') return;
  }
  yield* scan.end();
}

/**
 * The tokenizer's state and its two steps, in a plain function: V8 optimises the byte loop here, which it does
 * not inside an async generator (the first version, in the generator, read 3 MB/s).
 */
function scanner(
  wanted: (path: JsonPath) => boolean,
  maxBytes: number,
): { feed(bytes: Buffer): JsonValueItem[]; end(): JsonValueItem[] } {
  const stack: Frame[] = [];
  let mode = VALUE;
  let stringIsKey = false;
  let escaping = 0; // 0 none, 1 after `\`, 2-5 hex digits of \u read so far + 2
  const key: { parts: number[] | null } = { parts: null };
  let numberText = '';
  let literal = '';
  let literalAt = 0;
  let capture: Capture | null = null;
  let captureFrom = 0;
  let offset = 0; // bytes before the current chunk
  let started = false;
  let bom = 0; // bytes of a byte-order mark seen (3: past it)
  let out: JsonValueItem[] = [];
  let failed = false;

  const path = (): (string | number)[] => stack.map((frame) => frame.key);
  const fail = (message: string, at: number) => {
    // Inside a wanted value, its path names the record the error broke.
    out.push({ kind: 'error', path: capture?.path ?? path(), message: `${message} (byte ${offset + at + 1})` });
    failed = true;
  };
  const keep = (bytes: Buffer, from: number, to: number) => {
    if (capture === null || capture.tooLong || to <= from) return;
    if (capture.length + (to - from) > maxBytes) {
      capture.tooLong = true;
      capture.parts = [];
      return;
    }
    capture.parts.push(Buffer.from(bytes.subarray(from, to)));
    capture.length += to - from;
  };
  const finishCapture = (bytes: Buffer, end: number) => {
    const done = capture!;
    keep(bytes, captureFrom, end);
    capture = null;
    if (done.tooLong) {
      out.push({ kind: 'unreadable', path: done.path, message: `the value is longer than ${maxBytes} bytes` });
      return;
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(done.parts, done.length));
    } catch {
      out.push({ kind: 'unreadable', path: done.path, message: 'the value is not UTF-8' });
      return;
    }
    out.push({ kind: 'value', path: done.path, value: JSON.parse(text) });
  };
  const valueDone = (bytes: Buffer, end: number) => {
    if (capture !== null && stack.length === capture.depth) finishCapture(bytes, end);
    mode = stack.length === 0 ? DONE : AFTER;
  };
  const startValue = (i: number, b: number): void => {
    if (capture === null) {
      const here = path();
      if (wanted(here)) {
        capture = { depth: stack.length, path: here, parts: [], length: 0, tooLong: false };
        captureFrom = i;
      }
    }
    if (b === 0x7b) {
      stack.push({ array: false, key: '' });
      mode = KEY_OR_END;
    } else if (b === 0x5b) {
      stack.push({ array: true, key: 0 });
      mode = VALUE_OR_END;
    } else if (b === 0x22) {
      mode = STRING;
      stringIsKey = false;
    } else if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
      mode = NUMBER;
      numberText = String.fromCharCode(b);
    } else if (b === 0x74 || b === 0x66 || b === 0x6e) {
      mode = LITERAL;
      literal = b === 0x74 ? 'true' : b === 0x66 ? 'false' : 'null';
      literalAt = 1;
    } else fail(`unexpected ${describe(b)} where a value should be`, i);
  };
  const startKey = () => {
    mode = STRING;
    stringIsKey = true;
    key.parts = capture === null ? [] : null;
  };
  const close = (bytes: Buffer, i: number) => {
    stack.pop();
    valueDone(bytes, i + 1);
  };

  const feed = (chunk: Buffer): JsonValueItem[] => {
    if (failed) return [];
    let bytes = chunk;
    // A byte-order mark, which may itself be cut between chunks.
    let skip = 0;
    while (bom < 3 && skip < bytes.length && bytes[skip] === BOM[bom]) {
      skip++;
      bom++;
    }
    if (skip < bytes.length) bom = 3;
    bytes = bytes.subarray(skip);
    offset += skip;
    if (bytes.length > 0) started = true;
    captureFrom = 0;
    for (let i = 0; i < bytes.length && !failed; i++) {
      let b = bytes[i]!;
      switch (mode) {
        case STRING:
          if (escaping === 0 && key.parts === null) {
            // The plain run of a string, in a tight loop (most of a document's bytes).
            let j = i;
            let c = b;
            while (c !== 0x22 && c !== 0x5c && c >= 0x20 && ++j < bytes.length) c = bytes[j]!;
            if (j === bytes.length) {
              i = j - 1;
              continue;
            }
            i = j;
            b = c;
          }
          if (escaping === 0) {
            if (b === 0x22) {
              if (!stringIsKey) valueDone(bytes, i + 1);
              else {
                if (key.parts !== null) stack[stack.length - 1]!.key = decodeKey(key.parts);
                key.parts = null;
                mode = COLON;
              }
              continue;
            }
            if (b === 0x5c) escaping = 1;
            else if (b < 0x20) {
              fail('a control character in a string', i);
              continue;
            }
          } else if (escaping === 1) {
            if (b === 0x75) escaping = 2;
            else if (SIMPLE_ESCAPES.has(b)) escaping = 0;
            else fail(`the escape \\${String.fromCharCode(b)} is not JSON`, i);
          } else if (!isHex(b)) fail('a \\u escape needs four hex digits', i);
          else escaping = escaping === 5 ? 0 : escaping + 1;
          if (key.parts !== null && stringIsKey && key.parts.length < MAX_KEY_BYTES) key.parts.push(b);
          continue;
        case NUMBER:
          if (isNumberByte(b) && numberText.length < MAX_NUMBER_CHARS) {
            numberText += String.fromCharCode(b);
            continue;
          }
          if (!NUMBER_TEXT.test(numberText)) {
            fail(`${JSON.stringify(numberText.slice(0, 32))} is not a JSON number`, i);
            continue;
          }
          valueDone(bytes, i);
          i--; // this byte belongs to what follows the number
          continue;
        case LITERAL:
          if (b !== literal.charCodeAt(literalAt)) fail(`expected ${JSON.stringify(literal)}`, i);
          else if (++literalAt === literal.length) valueDone(bytes, i + 1);
          continue;
      }
      if (isSpace(b)) continue;
      switch (mode) {
        case VALUE:
          startValue(i, b);
          break;
        case VALUE_OR_END:
          if (b === 0x5d) close(bytes, i);
          else startValue(i, b);
          break;
        case KEY_OR_END:
          if (b === 0x7d) close(bytes, i);
          else if (b === 0x22) startKey();
          else fail(`unexpected ${describe(b)} where a member name should be`, i);
          break;
        case KEY:
          if (b === 0x22) startKey();
          else fail(`unexpected ${describe(b)} where a member name should be`, i);
          break;
        case COLON:
          if (b === 0x3a) mode = VALUE;
          else fail(`unexpected ${describe(b)} where ":" should be`, i);
          break;
        case AFTER: {
          const top = stack[stack.length - 1]!;
          if (b === 0x2c) {
            if (top.array) {
              top.key = (top.key as number) + 1;
              mode = VALUE;
            } else mode = KEY;
          } else if (b === (top.array ? 0x5d : 0x7d)) close(bytes, i);
          else fail(`unexpected ${describe(b)} where "," or ${top.array ? '"]"' : '"}"'} should be`, i);
          break;
        }
        case DONE:
          fail(`unexpected ${describe(b)} after the end of the document`, i);
          break;
      }
    }
    if (!failed) keep(bytes, captureFrom, bytes.length);
    offset += bytes.length;
    const ready = out;
    out = [];
    return ready;
  };
  const end = (): JsonValueItem[] => {
    if (failed) return [];
    if (mode === NUMBER && stack.length === 0 && NUMBER_TEXT.test(numberText)) mode = DONE;
    if (mode === DONE) return [];
    return [{ kind: 'error', path: path(), message: started ? 'the document ends early' : 'the input is empty' }];
  };
  return { feed, end };
}

function decodeKey(raw: readonly number[]): string {
  const text = Buffer.from(raw).toString('utf8');
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

function describe(b: number): string {
  return b >= 0x21 && b <= 0x7e ? JSON.stringify(String.fromCharCode(b)) : `byte 0x${b.toString(16).padStart(2, '0')}`;
}
