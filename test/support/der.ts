// Test-only DER writer (ITU-T X.690): attestation extensions, CRLs and hostile encodings for tests. Every
// function returns one complete TLV as a Buffer, so values nest by plain function calls.

export type TagClass = 'universal' | 'application' | 'context' | 'private';

const CLASS_BITS: Record<TagClass, number> = { universal: 0x00, application: 0x40, context: 0x80, private: 0xc0 };

function encodeIdentifier(tagClass: TagClass, constructed: boolean, tagNumber: number): Buffer {
  if (!Number.isSafeInteger(tagNumber) || tagNumber < 0) throw new RangeError(`bad tag number ${tagNumber}`);
  const first = CLASS_BITS[tagClass] | (constructed ? 0x20 : 0);
  if (tagNumber < 31) return Buffer.from([first | tagNumber]);
  // High tag numbers (X.690 §8.1.2.4): base-128 digits, most significant first, continuation bit set.
  return Buffer.from([first | 0x1f, ...base128(tagNumber)]);
}

function base128(value: number | bigint): number[] {
  let n = BigInt(value);
  const digits = [Number(n & 0x7fn)];
  n >>= 7n;
  while (n > 0n) {
    digits.unshift(Number(n & 0x7fn) | 0x80);
    n >>= 7n;
  }
  return digits;
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One TLV with any identifier. `content` is the value octets. */
export function tlv(tagClass: TagClass, constructed: boolean, tagNumber: number, content: Uint8Array): Buffer {
  return Buffer.concat([encodeIdentifier(tagClass, constructed, tagNumber), encodeLength(content.length), content]);
}

function universal(tagNumber: number, content: Uint8Array, constructed = false): Buffer {
  return tlv('universal', constructed, tagNumber, content);
}

export function sequence(items: readonly Uint8Array[]): Buffer {
  return universal(0x10, Buffer.concat(items), true);
}

/** SET OF: DER orders the elements by their encodings (X.690 §11.6). */
export function set(items: readonly Uint8Array[]): Buffer {
  const sorted = [...items].map((item) => Buffer.from(item)).sort(Buffer.compare);
  return universal(0x11, Buffer.concat(sorted), true);
}

/**
 * INTEGER from a number or bigint (two's complement, minimal), or from a Buffer read as an unsigned
 * big-endian magnitude (a leading 0x00 is added when the high bit is set; redundant zeros are dropped).
 */
export function integer(value: number | bigint | Uint8Array): Buffer {
  if (value instanceof Uint8Array) return universal(0x02, unsignedContent(Buffer.from(value)));
  return universal(0x02, signedContent(BigInt(value)));
}

function unsignedContent(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.length === 0 ? Buffer.from([0]) : bytes.subarray(start);
  return (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
}

function signedContent(value: bigint): Buffer {
  const bytes: number[] = [];
  let n = value;
  // Emit bytes until the remaining value is pure sign extension of the last byte emitted.
  for (;;) {
    const byte = Number(n & 0xffn);
    bytes.unshift(byte);
    n >>= 8n;
    if ((n === 0n && (byte & 0x80) === 0) || (n === -1n && (byte & 0x80) !== 0)) break;
  }
  return Buffer.from(bytes);
}

export function boolean(value: boolean): Buffer {
  return universal(0x01, Buffer.from([value ? 0xff : 0x00]));
}

export function nullValue(): Buffer {
  return universal(0x05, Buffer.alloc(0));
}

/** OBJECT IDENTIFIER from dotted text ("1.2.840.10045.2.1"). */
export function oid(dotted: string): Buffer {
  if (!/^[0-2](\.(0|[1-9]\d*))+$/.test(dotted)) throw new RangeError(`bad object identifier ${dotted}`);
  const arcs = dotted.split('.').map((arc) => BigInt(arc));
  const [first = 0n, second = 0n, ...rest] = arcs;
  if (first < 2n && second > 39n) throw new RangeError(`bad object identifier ${dotted}`);
  const content = [first * 40n + second, ...rest].flatMap((arc) => base128(arc));
  return universal(0x06, Buffer.from(content));
}

export function utf8String(text: string): Buffer {
  return universal(0x0c, Buffer.from(text, 'utf8'));
}

export function printableString(text: string): Buffer {
  if (!/^[A-Za-z0-9 '()+,\-./:=?]*$/.test(text)) throw new RangeError('not a PrintableString');
  return universal(0x13, Buffer.from(text, 'latin1'));
}

export function ia5String(text: string): Buffer {
  if (!/^[\x00-\x7f]*$/.test(text)) throw new RangeError('not an IA5String');
  return universal(0x16, Buffer.from(text, 'latin1'));
}

export function octetString(bytes: Uint8Array): Buffer {
  return universal(0x04, bytes);
}

/** BIT STRING with `unusedBits` (0-7) padding bits in its last octet. */
export function bitString(bytes: Uint8Array, unusedBits = 0): Buffer {
  if (unusedBits < 0 || unusedBits > 7 || (bytes.length === 0 && unusedBits !== 0)) throw new RangeError('bad unused bits');
  return universal(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function clockDigits(date: Date): string {
  return pad(date.getUTCMonth() + 1) + pad(date.getUTCDate()) + pad(date.getUTCHours()) + pad(date.getUTCMinutes()) + pad(date.getUTCSeconds());
}

/** UTCTime YYMMDDHHMMSSZ (years 1950-2049, RFC 5280 §4.1.2.5.1). */
export function utcTime(date: Date): Buffer {
  const year = date.getUTCFullYear();
  if (year < 1950 || year > 2049) throw new RangeError('UTCTime covers 1950-2049 only');
  return universal(0x17, Buffer.from(pad(year % 100) + clockDigits(date) + 'Z', 'latin1'));
}

/** GeneralizedTime YYYYMMDDHHMMSSZ (whole seconds, as RFC 5280 requires). */
export function generalizedTime(date: Date): Buffer {
  return universal(0x18, Buffer.from(pad(date.getUTCFullYear(), 4) + clockDigits(date) + 'Z', 'latin1'));
}

/** The RFC 5280 choice: UTCTime through 2049, GeneralizedTime from 2050. */
export function x509Time(date: Date): Buffer {
  const year = date.getUTCFullYear();
  return year >= 1950 && year <= 2049 ? utcTime(date) : generalizedTime(date);
}

/** [n] EXPLICIT: a constructed context tag wrapping complete encodings. */
export function explicit(tagNumber: number, ...inner: Uint8Array[]): Buffer {
  return tlv('context', true, tagNumber, Buffer.concat(inner));
}

/** [n] IMPLICIT with raw value octets (primitive unless `constructed`). */
export function implicit(tagNumber: number, content: Uint8Array, constructed = false): Buffer {
  return tlv('context', constructed, tagNumber, content);
}

/**
 * [n] IMPLICIT applied to an existing encoding: replaces its identifier with a context tag and keeps its
 * constructed bit and value octets, e.g. `retag(2, ia5String('example.com'))` is a dNSName GeneralName.
 */
export function retag(tagNumber: number, encoded: Uint8Array): Buffer {
  const bytes = Buffer.from(encoded);
  const first = bytes[0] ?? 0;
  if ((first & 0x1f) === 0x1f) throw new RangeError('retag needs a low-tag-number encoding');
  return Buffer.concat([encodeIdentifier('context', (first & 0x20) !== 0, tagNumber), bytes.subarray(1)]);
}
