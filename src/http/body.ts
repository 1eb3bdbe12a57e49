// Reading a request body safely: JSON media type only, a hard byte limit (stop reading, never buffer more),
// strict UTF-8, bounded nesting, then JSON.parse. Each failure has its own catalogue name.

import type { Readable } from 'node:stream';
import { FidoError } from '../errors/catalogue.js';

/** Deeper than any request of the four operations needs (extensions nest 2-3 levels). */
export const MAX_JSON_DEPTH = 16;

/** `application/json`, optionally with parameters; a charset, when given, must be UTF-8 (RFC 8259 §8.1). */
export function checkContentType(values: readonly string[] | undefined): void {
  const value = values?.length === 1 ? values[0]! : undefined;
  if (value === undefined)
    throw new FidoError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type is missing; send application/json.');
  const [type, ...params] = value.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') {
    throw new FidoError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json.');
  }
  for (const param of params) {
    const [name, rawValue = ''] = param.split('=', 2).map((p) => p.trim());
    if (name === 'charset' && !['utf-8', 'utf8', '"utf-8"'].includes(rawValue)) {
      throw new FidoError('UNSUPPORTED_MEDIA_TYPE', 'The JSON body must be UTF-8 (charset=utf-8 or no charset).');
    }
  }
}

export class BodyTooLarge extends FidoError {
  constructor(limit: number) {
    super('PAYLOAD_TOO_LARGE', `The request body must be at most ${limit} bytes.`);
  }
}

/**
 * Collects the body up to `limit` bytes. Past the limit it stops reading (pauses the stream) and fails
 * with PAYLOAD_TOO_LARGE; the caller answers and lets the connection close. A declared Content-Length
 * above the limit fails before a byte is read.
 */
export function readBody(
  stream: Readable,
  limit: number,
  declaredLength: readonly string[] | undefined,
): Promise<Buffer> {
  const declared = declaredLength?.length === 1 ? Number(declaredLength[0]) : NaN;
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      action();
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > limit) {
        stream.pause();
        settle(() => reject(new BodyTooLarge(limit)));
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size)));
    const onError = () =>
      settle(() => reject(new FidoError('INVALID_REQUEST_BODY', 'The request body was not received completely.')));
    const onClose = onError;
    stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Strict UTF-8 → nesting check (no recursion, so no stack to exhaust) → JSON.parse. */
export function parseJsonBody(raw: Buffer): unknown {
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    throw new FidoError('MALFORMED_JSON', 'The request body is not valid UTF-8.');
  }
  if (text.trim() === '') throw new FidoError('MALFORMED_JSON', 'The request body is empty.');
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    throw new FidoError('INVALID_REQUEST_BODY', `JSON nesting deeper than ${MAX_JSON_DEPTH} levels is not accepted.`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new FidoError('MALFORMED_JSON');
  }
}

/** The deepest bracket nesting outside strings (an upper bound for malformed text, exact for valid JSON). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: jump to its closing quote, found natively (most of a request body is base64url strings).
      i = closingQuote(text, i);
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return max;
}

/**
 * The index of the quote that closes the string opened at `open` (text.length when none does). A quote is
 * escaped when an odd number of backslashes stands right before it: inside a string each backslash takes
 * the character after it, so a run of them starts where the string is between escapes.
 */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
