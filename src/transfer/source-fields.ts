// The fields of a source record as other systems write them, read into the encodings of SourceRecord (record.ts):
// bytes in base64url or standard base64 (Keycloak writes both), AAGUIDs as text or as 16 numbers (Go's
// encoding of a UUID array), transports as a list or as one comma-separated text (what a SQL column or
// GROUP_CONCAT holds), times as epoch milliseconds, ISO 8601 or a SQL timestamp. A field that is not what it
// must be throws FieldError, which a reader turns into a MALFORMED_RECORD refusal naming the field.
import type { Line } from './lines.js';
import type { RecordPlace, SourceItem } from './record.js';

export class FieldError extends Error {}

export const NO_AAGUID = '00000000-0000-0000-0000-000000000000';

/** A refusal of the record at `at` as not one of its format. */
export function malformedAt(at: RecordPlace, message: string): SourceItem {
  return { at, refused: { reason: 'MALFORMED_RECORD', message } };
}

/** Runs `read`, turning a FieldError into a MALFORMED_RECORD refusal at `at`. */
export function readRecord(at: RecordPlace, read: () => SourceItem): SourceItem {
  try {
    return read();
  } catch (error) {
    if (error instanceof FieldError) return malformedAt(at, error.message);
    throw error;
  }
}

export type Fields = Readonly<Record<string, unknown>>;

export function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A text that must be there and not empty. */
export function requiredText(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new FieldError(`${name}: missing or not a text`);
  return value;
}

/** A text, or null when absent, null or empty. */
export function optionalText(value: unknown, name: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new FieldError(`${name}: not a text`);
  return value;
}

/** The longest passkey name the service keeps (checks.ts): a longer one is cut there, not refused. */
const NICKNAME_MAX = 64;

/** A passkey's name, or null; cut to the longest name the service keeps. */
export function nickname(value: unknown, name: string): string | null {
  const text = optionalText(value, name);
  if (text === null || text.length <= NICKNAME_MAX) return text;
  // Never half of a surrogate pair.
  const high = text.charCodeAt(NICKNAME_MAX - 1);
  return text.slice(0, high >= 0xd800 && high <= 0xdbff ? NICKNAME_MAX - 1 : NICKNAME_MAX);
}

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bytes written as base64url or standard base64, padded or not (one alphabet, a possible length). */
export function decodeBinary(text: string): Buffer | undefined {
  if (!BASE64URL.test(text) && !BASE64.test(text)) return undefined;
  const bare = text.replace(/=+$/, '');
  if (bare.length % 4 === 1 || (bare.length !== text.length && text.length % 4 !== 0)) return undefined;
  return Buffer.from(bare, BASE64URL.test(bare) ? 'base64url' : 'base64');
}

/** Required bytes in base64url or base64, answered as base64url. */
export function binaryAsBase64url(value: unknown, name: string): string {
  const bytes = decodeBinary(requiredText(value, name));
  if (bytes === undefined || bytes.length === 0) throw new FieldError(`${name}: not base64url or base64`);
  return bytes.toString('base64url');
}

/** Required bytes in base64url or base64. */
export function binary(value: unknown, name: string): Buffer {
  const bytes = decodeBinary(requiredText(value, name));
  if (bytes === undefined || bytes.length === 0) throw new FieldError(`${name}: not base64url or base64`);
  return bytes;
}

const UUID_TEXT = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

/** An AAGUID as lower-case dashed text: from text (dashed or not), 16 numbers, or all zeros when absent. */
export function aaguid(value: unknown, name: string): string {
  if (value === undefined || value === null || value === '') return NO_AAGUID;
  let hex: string;
  if (typeof value === 'string' && UUID_TEXT.test(value)) hex = value.replace(/-/g, '').toLowerCase();
  else if (
    Array.isArray(value) &&
    value.length === 16 &&
    value.every((n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 255)
  )
    hex = Buffer.from(value as number[]).toString('hex');
  else throw new FieldError(`${name}: not a UUID`);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Transports from a list of names or one comma-separated text; none when absent. */
export function transports(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  const names = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(names) || names.some((t) => typeof t !== 'string'))
    throw new FieldError(`${name}: not a list of names or a comma-separated text`);
  return (names as string[]).map((t) => t.trim()).filter((t) => t.length > 0);
}

/** A counter: a non-negative integer, or its decimal text (a BIGINT column); `fallback` when absent. */
export function counter(value: unknown, name: string, fallback?: number): number {
  if ((value === undefined || value === null || value === '') && fallback !== undefined) return fallback;
  const n = typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new FieldError(`${name}: not a non-negative integer`);
  return n;
}

/** A flag; `fallback` when absent. Texts and numbers as SQL exports write booleans are read too. */
export function flag(value: unknown, name: string, fallback: boolean): boolean;
export function flag(value: unknown, name: string, fallback: null): boolean | null;
export function flag(value: unknown, name: string, fallback: boolean | null): boolean | null {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  const text = String(value).toLowerCase();
  if (['true', 't', '1', 'yes', 'y'].includes(text)) return true;
  if (['false', 'f', '0', 'no', 'n'].includes(text)) return false;
  throw new FieldError(`${name}: not a boolean`);
}

const SQL_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)$/;

/**
 * A time as epoch milliseconds: a number of milliseconds, ISO 8601 text, or a SQL timestamp without a zone
 * (`2024-05-01 12:34:56.789`, read as UTC); null when absent.
 */
export function time(value: unknown, name: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') {
    const sql = SQL_TIMESTAMP.exec(value);
    ms = sql
      ? Date.parse(`${sql[1]}T${sql[2]!.slice(0, 12)}Z`)
      : /^\d{4}-\d{2}-\d{2}T/.test(value)
        ? Date.parse(value)
        : Number.NaN;
  } else ms = Number.NaN;
  if (!Number.isFinite(ms) || ms < 0) throw new FieldError(`${name}: not a time`);
  return Math.trunc(ms);
}

/** Peeks at the first byte that is not white space (nor a byte-order mark); the input is read on unchanged. */
export async function firstSignificantByte(
  input: AsyncIterable<Uint8Array>,
): Promise<{ readonly first: number | undefined; readonly input: AsyncIterable<Uint8Array> }> {
  const iterator = input[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let first: number | undefined;
  let done = false;
  while (first === undefined) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    seen.push(next.value);
    const at = next.value.findIndex(
      (b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf,
    );
    if (at >= 0) first = next.value[at];
  }
  const replay = async function* () {
    yield* seen;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  };
  return { first, input: replay() };
}

/** The JSON value of each line (JSON Lines), or the refusal of a line too long or not JSON. */
export async function* jsonLineValues(
  lines: AsyncIterable<Line>,
): AsyncIterable<{ readonly at: number; readonly value: unknown } | SourceItem> {
  for await (const line of lines) {
    if ('tooLong' in line) {
      yield malformedAt(line.line, 'the line is longer than any record of the format');
      continue;
    }
    try {
      yield { at: line.line, value: JSON.parse(line.text) as unknown };
    } catch {
      yield malformedAt(line.line, 'the line is not JSON');
    }
  }
}
