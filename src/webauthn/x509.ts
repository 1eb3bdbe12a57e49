// What the service reads of an X.509 certificate (RFC 5280 §4.1) that node:crypto does not give: the parts of
// its TBSCertificate, its extensions by OID, and its names, on the strict DER reader of asn1.ts.
import type { X509Certificate } from 'node:crypto';
import {
  Asn1Error, type Asn1Node, children, decodeBoolean, decodeOctetString, decodeOid, decodeSmallInteger, decodeString, expectUniversal,
  isContext, readDer, type ReadOptions, sequenceOf, TAG,
} from './asn1.js';

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

/** "C=US, O=…, CN=…" for messages; a name our reader cannot decode is shown as hex. */
export function nameText(der: Uint8Array): string {
  try {
    const entries = decodeName(readDer(Buffer.from(der)), { lenientLengths: true });
    return entries.length === 0 ? '(empty name)' : entries.map(({ oid, value }) => `${SHORT_NAMES[oid] ?? oid}=${value}`).join(', ');
  } catch {
    return `(name ${Buffer.from(der).toString('hex')})`;
  }
}
