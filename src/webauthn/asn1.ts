// A strict DER reader (X.690) for the parts of attestation that node:crypto does not parse for us:
// certificate extensions, TPM and Android structures. Every read is bounds-checked; malformed input
// throws Asn1Error, which callers turn into their format's precise FidoError name.

import type { X509Certificate } from 'node:crypto';

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
  for (let pos = 0; pos < node.value.length;) {
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
  if (value.length > 1 && ((value[0] === 0x00 && (value[1]! & 0x80) === 0) || (value[0] === 0xff && (value[1]! & 0x80) !== 0))) {
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
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) throw new Asn1Error('INTEGER too large');
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
  if (unusedBits === undefined || unusedBits > 7 || (value.length === 1 && unusedBits !== 0)) throw new Asn1Error('bad BIT STRING');
  return { bytes: value.subarray(1), unusedBits };
}

const STRING_TAGS = new Set<number>([TAG.UTF8_STRING, TAG.PRINTABLE_STRING, TAG.IA5_STRING, TAG.T61_STRING, TAG.BMP_STRING]);

/** Text of a directory string (UTF8String, PrintableString, IA5String, TeletexString, BMPString). */
export function decodeString(node: Asn1Node | undefined): string {
  if (!node || node.tagClass !== 'universal' || !STRING_TAGS.has(node.tagNumber) || node.constructed) throw new Asn1Error('expected a string');
  if (node.tagNumber === TAG.BMP_STRING) return Buffer.from(node.value).swap16().toString('utf16le');
  if (node.tagNumber === TAG.UTF8_STRING) return node.value.toString('utf8');
  return node.value.toString('latin1');
}

// --- X.509 helpers (RFC 5280 §4.1) ---

export interface CertificateParts {
  /** 1, 2 or 3. */
  readonly version: number;
  readonly serial: Buffer;
  readonly issuer: Asn1Node;
  readonly subject: Asn1Node;
  /** [3] extensions, in order of appearance. */
  readonly extensions: readonly RawExtension[];
}

export interface RawExtension {
  readonly oid: string;
  readonly critical: boolean;
  /** The contents of extnValue (the extension's own DER encoding). */
  readonly value: Buffer;
}

/**
 * Parses the TBSCertificate of a certificate node:crypto already accepted. Lengths are read leniently
 * because OpenSSL accepts (and real authenticators ship) certificates with BER-style long lengths.
 */
export function certificateParts(cert: X509Certificate): CertificateParts {
  const lenient = { lenientLengths: true };
  const [tbs] = sequenceOf(readDer(cert.raw, lenient), 'Certificate', lenient);
  const fields = sequenceOf(tbs, 'TBSCertificate', lenient);
  let i = 0;
  let version = 1;
  const explicitVersion = fields[0];
  if (explicitVersion && isContext(explicitVersion, 0)) {
    version = decodeSmallInteger(children(explicitVersion, lenient)[0]) + 1;
    i = 1;
  }
  const serial = expectUniversal(fields[i], TAG.INTEGER, 'serialNumber').value;
  const issuer = expectUniversal(fields[i + 2], TAG.SEQUENCE, 'issuer');
  const subject = expectUniversal(fields[i + 4], TAG.SEQUENCE, 'subject');
  const extensions: RawExtension[] = [];
  for (const field of fields.slice(i + 6)) {
    if (!isContext(field, 3)) continue;
    for (const ext of sequenceOf(children(field, lenient)[0], 'Extensions', lenient)) {
      const parts = sequenceOf(ext, 'Extension', lenient);
      const hasCritical = parts.length === 3;
      if (parts.length !== 2 && !hasCritical) throw new Asn1Error('malformed Extension');
      extensions.push({
        oid: decodeOid(parts[0]),
        critical: hasCritical ? decodeBoolean(parts[1]) : false,
        value: decodeOctetString(parts[hasCritical ? 2 : 1]),
      });
    }
  }
  return { version, serial, issuer, subject, extensions };
}

/** The raw extension with this OID, or undefined. Throws Asn1Error when it appears more than once. */
export function findExtension(cert: X509Certificate, oid: string): { critical: boolean; value: Buffer } | undefined {
  const matches = certificateParts(cert).extensions.filter((ext) => ext.oid === oid);
  if (matches.length > 1) throw new Asn1Error(`extension ${oid} appears more than once`);
  const [match] = matches;
  return match ? { critical: match.critical, value: match.value } : undefined;
}

export function certificateVersion(cert: X509Certificate): number {
  return certificateParts(cert).version;
}

export interface NameEntry {
  /** Dotted OID of the attribute type. */
  readonly oid: string;
  readonly value: string;
}

const SHORT_NAMES: Record<string, string> = {
  '2.5.4.6': 'C', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.3': 'CN', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.5': 'serialNumber',
};

/** The attributes of a Name (RDNSequence), flattened in order. */
export function decodeName(name: Asn1Node, options: ReadOptions = {}): NameEntry[] {
  const out: NameEntry[] = [];
  for (const rdn of sequenceOf(name, 'Name', options)) {
    for (const attribute of children(expectUniversal(rdn, TAG.SET, 'RelativeDistinguishedName'), options)) {
      const [type, value] = sequenceOf(attribute, 'AttributeTypeAndValue', options);
      out.push({ oid: decodeOid(type), value: decodeString(value) });
    }
  }
  return out;
}

/** Subject attributes by short name (C, O, OU, CN, …) or dotted OID; repeated attributes keep the first. */
export function subjectAttributes(cert: X509Certificate): Record<string, string> {
  return nameRecord(decodeName(certificateParts(cert).subject, { lenientLengths: true }));
}

export function nameRecord(entries: readonly NameEntry[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { oid, value } of entries) {
    const key = SHORT_NAMES[oid] ?? oid;
    if (!(key in out)) out[key] = value;
  }
  return out;
}
