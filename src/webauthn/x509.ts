// Reading X.509 certificates (RFC 5280 §4.1): DER into node:crypto's X509Certificate, repairing the one quirk
// real authenticators ship, and what node:crypto does not give: the parts of the TBSCertificate, extensions
// by OID, and names, on the strict DER reader of asn1.ts. Chains of them: certificates.ts.
import { X509Certificate, type KeyObject } from 'node:crypto';
import { FidoError } from '../errors/catalogue.js';
import {
  Asn1Error,
  type Asn1Node,
  children,
  decodeBoolean,
  decodeOctetString,
  decodeOid,
  decodeSmallInteger,
  decodeString,
  expectUniversal,
  isContext,
  isUniversal,
  readDer,
  type ReadOptions,
  sequenceOf,
  TAG,
} from './asn1.js';

/**
 * Parses a DER certificate, repairing the one quirk real authenticators are known to ship that OpenSSL
 * refuses to verify: a signature BIT STRING that claims unused bits (early YubiKey U2F batches). The
 * signature octets are complete, so the count is set to zero; the signed TBSCertificate is untouched.
 */
export function parseCertificate(der: Uint8Array, label = 'certificate'): X509Certificate {
  const bytes = Buffer.from(der);
  let repaired: Buffer = bytes;
  try {
    repaired = withZeroUnusedSignatureBits(bytes);
  } catch (err) {
    if (!(err instanceof Asn1Error)) throw err;
    // Not even lenient DER: let OpenSSL give its verdict below.
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(repaired);
  } catch {
    throw new FidoError('CERTIFICATE_UNREADABLE', `${label} is not a DER X.509 certificate`);
  }
  certificatePublicKey(cert, label); // a certificate whose key cannot be imported is unreadable too
  return cert;
}

/**
 * The certificate's public key. OpenSSL parses a certificate without decoding its key, and
 * X509Certificate.publicKey throws on a malformed one: this turns that into CERTIFICATE_UNREADABLE.
 */
export function certificatePublicKey(cert: X509Certificate, label = 'certificate'): KeyObject {
  try {
    return cert.publicKey;
  } catch {
    throw new FidoError('CERTIFICATE_UNREADABLE', `${label} holds a public key that cannot be decoded`);
  }
}

/**
 * The DER as parseCertificate reads it (the unused-bits quirk repaired), for comparing certificate bytes
 * from elsewhere (a metadata status report) with a parsed chain's `raw`. Unreadable bytes come back as given.
 */
export function repairedCertificateDer(der: Buffer): Buffer {
  try {
    return withZeroUnusedSignatureBits(der);
  } catch (err) {
    if (err instanceof Asn1Error) return der;
    throw err;
  }
}

function withZeroUnusedSignatureBits(der: Buffer): Buffer {
  const lenient = { lenientLengths: true };
  const outer = readDer(der, lenient);
  const parts = children(outer, lenient);
  const signature = parts[2];
  if (parts.length !== 3 || !signature || !isUniversal(signature, TAG.BIT_STRING) || signature.value.length < 2)
    return der;
  if (signature.value[0] === 0) return der;
  const copy = Buffer.from(der);
  const offset = signature.value.byteOffset - der.byteOffset;
  copy[offset] = 0;
  return copy;
}

export function parseCertificates(ders: readonly Uint8Array[], label = 'x5c'): X509Certificate[] {
  return ders.map((der, i) => parseCertificate(der, `${label}[${i}]`));
}

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
  '2.5.4.6': 'C',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.3': 'CN',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.5': 'serialNumber',
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

/** "C=US, O=…, CN=…" for messages; a name our reader cannot decode is shown as hex. */
export function nameText(der: Uint8Array): string {
  try {
    const entries = decodeName(readDer(Buffer.from(der)), { lenientLengths: true });
    return entries.length === 0
      ? '(empty name)'
      : entries.map(({ oid, value }) => `${SHORT_NAMES[oid] ?? oid}=${value}`).join(', ');
  } catch {
    return `(name ${Buffer.from(der).toString('hex')})`;
  }
}
