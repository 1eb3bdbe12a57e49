// A strict DER reader (X.690) for the parts of attestation that node:crypto does not parse for us:
// certificate extensions, TPM and Android structures. Every read is bounds-checked; malformed input
// throws Asn1Error, which callers turn into their format's precise FidoError name. What it reads of an
// X.509 certificate (its TBSCertificate parts, extensions and names): x509.ts.

export class Asn1Error extends Error {
  override readonly name = 'Asn1Error';
}

export type Asn1Class = 'universal' | 'application' | 'context' | 'private';

export interface Asn1Node {
  readonly tagClass: Asn1Class;
  readonly constructed: boolean;
  readonly tagNumber: number;
  /** The value octets. */
  readonly value: Buffer;
  /** The whole encoding (identifier, length and value). */
  readonly encoded: Buffer;
}

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  ENUMERATED: 0x0a,
  UTF8_STRING: 0x0c,
  SEQUENCE: 0x10,
  SET: 0x11,
  PRINTABLE_STRING: 0x13,
  T61_STRING: 0x14,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  BMP_STRING: 0x1e,
} as const;

const CLASSES: readonly Asn1Class[] = ['universal', 'application', 'context', 'private'];

export interface ReadOptions {
  /**
   * Accept non-minimal length encodings (BER long form for short lengths). Real authenticator
   * certificates have shipped with them; structures we parse ourselves stay strict by default.
   */
  readonly lenientLengths?: boolean;
}

/** Reads one TLV starting at `offset`; returns the node and the offset after it. */
export function readNode(buf: Buffer, offset = 0, options: ReadOptions = {}): { node: Asn1Node; next: number } {
  let pos = offset;
  const byte = (): number => {
    if (pos >= buf.length) throw new Asn1Error('truncated DER');
    return buf[pos++]!;
  };
  const first = byte();
  let tagNumber = first & 0x1f;
  if (tagNumber === 0x1f) {
    tagNumber = 0;
    let b: number;
    let digits = 0;
    do {
      b = byte();
      if (digits === 0 && b === 0x80) throw new Asn1Error('non-minimal tag number');
      tagNumber = tagNumber * 128 + (b & 0x7f);
      if (++digits > 4) throw new Asn1Error('tag number too large');
    } while (b & 0x80);
    if (tagNumber < 31) throw new Asn1Error('non-minimal tag number');
  }
  const lengthByte = byte();
  let length: number;
  if (lengthByte < 0x80) {
    length = lengthByte;
  } else if (lengthByte === 0x80) {
    throw new Asn1Error('indefinite length is not DER');
  } else {
    const count = lengthByte & 0x7f;
    if (count > 4) throw new Asn1Error('length too large');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + byte();
    if (!options.lenientLengths && (length < 0x80 || (count > 1 && (buf[pos - count] ?? 0) === 0))) {
      throw new Asn1Error('non-minimal length');
    }
  }
  const end = pos + length;
  if (end > buf.length) throw new Asn1Error('value runs past the end of the input');
  const node: Asn1Node = {
    tagClass: CLASSES[first >> 6]!,
    constructed: (first & 0x20) !== 0,
    tagNumber,
    value: buf.subarray(pos, end),
    encoded: buf.subarray(offset, end),
  };
  return { node, next: end };
}

/** Reads exactly one TLV that spans the whole input. */
export function readDer(buf: Buffer, options: ReadOptions = {}): Asn1Node {
  const { node, next } = readNode(buf, 0, options);
  if (next !== buf.length) throw new Asn1Error('trailing bytes after DER value');
  return node;
}

/** The children of a constructed node, in order. */
export function children(node: Asn1Node, options: ReadOptions = {}): Asn1Node[] {
  if (!node.constructed) throw new Asn1Error('expected a constructed value');
  const out: Asn1Node[] = [];
  for (let pos = 0; pos < node.value.length; ) {
    const { node: child, next } = readNode(node.value, pos, options);
    out.push(child);
    pos = next;
  }
  return out;
}

export function isUniversal(node: Asn1Node, tagNumber: number): boolean {
  return node.tagClass === 'universal' && node.tagNumber === tagNumber;
}

export function isContext(node: Asn1Node, tagNumber: number): boolean {
  return node.tagClass === 'context' && node.tagNumber === tagNumber;
}

/** Asserts the node is the universal type `tagNumber`. */
export function expectUniversal(node: Asn1Node | undefined, tagNumber: number, what: string): Asn1Node {
  if (!node || !isUniversal(node, tagNumber)) throw new Asn1Error(`expected ${what}`);
  const constructed = tagNumber === TAG.SEQUENCE || tagNumber === TAG.SET;
  if (node.constructed !== constructed) throw new Asn1Error(`${what} has the wrong constructed bit`);
  return node;
}

/** The children of a SEQUENCE. */
export function sequenceOf(node: Asn1Node | undefined, what = 'SEQUENCE', options: ReadOptions = {}): Asn1Node[] {
  return children(expectUniversal(node, TAG.SEQUENCE, what), options);
}

/** Dotted text of an OBJECT IDENTIFIER. */
export function decodeOid(node: Asn1Node | undefined): string {
  const value = expectUniversal(node, TAG.OID, 'OBJECT IDENTIFIER').value;
  if (value.length === 0) throw new Asn1Error('empty OBJECT IDENTIFIER');
  const arcs: bigint[] = [];
  let current = 0n;
  let fresh = true;
  for (const b of value) {
    if (fresh && b === 0x80) throw new Asn1Error('non-minimal OBJECT IDENTIFIER arc');
    current = (current << 7n) | BigInt(b & 0x7f);
    fresh = (b & 0x80) === 0;
    if (fresh) {
      arcs.push(current);
      current = 0n;
    }
  }
  if (!fresh) throw new Asn1Error('truncated OBJECT IDENTIFIER');
  const [head = 0n, ...rest] = arcs;
  const first = head < 80n ? head / 40n : 2n;
  return [first, head - first * 40n, ...rest].join('.');
}

/** An INTEGER (or ENUMERATED when `tag` says so) as a bigint, rejecting non-minimal encodings. */
export function decodeInteger(node: Asn1Node | undefined, tag: number = TAG.INTEGER): bigint {
  const value = expectUniversal(node, tag, tag === TAG.ENUMERATED ? 'ENUMERATED' : 'INTEGER').value;
  return decodeIntegerContent(value);
}

export function decodeIntegerContent(value: Buffer): bigint {
  if (value.length === 0) throw new Asn1Error('empty INTEGER');
  if (
    value.length > 1 &&
    ((value[0] === 0x00 && (value[1]! & 0x80) === 0) || (value[0] === 0xff && (value[1]! & 0x80) !== 0))
  ) {
    throw new Asn1Error('non-minimal INTEGER');
  }
  let n = 0n;
  for (const b of value) n = (n << 8n) | BigInt(b);
  if (value[0]! & 0x80) n -= 1n << BigInt(value.length * 8);
  return n;
}

/** An INTEGER that must fit a safe JavaScript number. */
export function decodeSmallInteger(node: Asn1Node | undefined, tag: number = TAG.INTEGER): number {
  const n = decodeInteger(node, tag);
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER))
    throw new Asn1Error('INTEGER too large');
  return Number(n);
}

export function decodeBoolean(node: Asn1Node | undefined): boolean {
  const value = expectUniversal(node, TAG.BOOLEAN, 'BOOLEAN').value;
  if (value.length !== 1) throw new Asn1Error('BOOLEAN must be one octet');
  if (value[0] === 0xff) return true;
  if (value[0] === 0x00) return false;
  throw new Asn1Error('BOOLEAN must be 0x00 or 0xFF in DER');
}

export function decodeOctetString(node: Asn1Node | undefined): Buffer {
  return expectUniversal(node, TAG.OCTET_STRING, 'OCTET STRING').value;
}

/** BIT STRING contents and its count of unused bits. */
export function decodeBitString(node: Asn1Node | undefined): { bytes: Buffer; unusedBits: number } {
  const value = expectUniversal(node, TAG.BIT_STRING, 'BIT STRING').value;
  const unusedBits = value[0];
  if (unusedBits === undefined || unusedBits > 7 || (value.length === 1 && unusedBits !== 0))
    throw new Asn1Error('bad BIT STRING');
  return { bytes: value.subarray(1), unusedBits };
}

const STRING_TAGS = new Set<number>([
  TAG.UTF8_STRING,
  TAG.PRINTABLE_STRING,
  TAG.IA5_STRING,
  TAG.T61_STRING,
  TAG.BMP_STRING,
]);

/** Text of a directory string (UTF8String, PrintableString, IA5String, TeletexString, BMPString). */
export function decodeString(node: Asn1Node | undefined): string {
  if (node?.tagClass !== 'universal' || !STRING_TAGS.has(node.tagNumber) || node.constructed)
    throw new Asn1Error('expected a string');
  if (node.tagNumber === TAG.BMP_STRING) return Buffer.from(node.value).swap16().toString('utf16le');
  if (node.tagNumber === TAG.UTF8_STRING) return node.value.toString('utf8');
  return node.value.toString('latin1');
}
