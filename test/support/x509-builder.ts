// Test-only: builds and signs X.509 v3 certificates and CRLs (RFC 5280) with node:crypto keys, synchronously,
// for the tests' attestation PKIs and hostile CRLs (byte-exact control the tests need); general, not a CA.

import { createHash, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import * as der from './der.js';

/** Short names for the usual attributes; any other attribute is given by its dotted OID. */
const ATTRIBUTE_OIDS: Record<string, string> = {
  C: '2.5.4.6',
  O: '2.5.4.10',
  OU: '2.5.4.11',
  CN: '2.5.4.3',
  L: '2.5.4.7',
  ST: '2.5.4.8',
  serialNumber: '2.5.4.5',
};

export interface NameAttribute {
  /** 'C', 'O', 'OU', 'CN', 'L', 'ST', 'serialNumber' or a dotted OID. */
  readonly type: string;
  readonly value: string;
}

/** A distinguished name: an ordered attribute list (one attribute per RDN) or a {C, O, OU, CN} record. */
export type NameSpec = readonly NameAttribute[] | Readonly<Partial<Record<'C' | 'O' | 'OU' | 'CN' | 'L' | 'ST', string>>>;

export interface Extension {
  readonly oid: string;
  readonly critical?: boolean;
  /** The DER encoding placed inside extnValue's OCTET STRING. */
  readonly valueDer: Uint8Array;
}

export type KeyUsageName =
  | 'digitalSignature' | 'nonRepudiation' | 'keyEncipherment' | 'dataEncipherment'
  | 'keyAgreement' | 'keyCertSign' | 'cRLSign' | 'encipherOnly' | 'decipherOnly';

const KEY_USAGE_BITS: readonly KeyUsageName[] = [
  'digitalSignature', 'nonRepudiation', 'keyEncipherment', 'dataEncipherment',
  'keyAgreement', 'keyCertSign', 'cRLSign', 'encipherOnly', 'decipherOnly',
];

export interface SubjectAltName {
  readonly dns?: readonly string[];
  readonly ip?: readonly string[];
  /** directoryName entries (the TPM AIK certificate carries the TPM manufacturer/model/version here). */
  readonly directoryNames?: readonly NameSpec[];
}

export interface CertificateSpec {
  /** The certified public key. */
  readonly publicKey: KeyObject;
  /** The issuer's private key (the subject's own for a self-signed certificate). */
  readonly signingKey: KeyObject;
  readonly subject: NameSpec;
  /** Defaults to the subject (self-signed). A Buffer is an already encoded Name (copied byte for byte). */
  readonly issuer?: NameSpec | Uint8Array;
  /** Defaults to 16 random bytes (positive). */
  readonly serial?: bigint | number | Uint8Array;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** 3 (default) or 1; version 1 carries no extensions. */
  readonly version?: 1 | 3;
  readonly basicConstraints?: { readonly ca: boolean; readonly pathLength?: number; readonly critical?: boolean };
  readonly keyUsage?: readonly KeyUsageName[];
  /** Dotted OIDs (e.g. 2.23.133.8.3 for a TPM AIK, 1.3.6.1.5.5.7.3.1 for TLS servers). */
  readonly extendedKeyUsage?: readonly string[];
  readonly subjectAltName?: SubjectAltName & { readonly critical?: boolean };
  /** Adds subjectKeyIdentifier (SHA-1 of the key) unless false. */
  readonly subjectKeyIdentifier?: boolean;
  /** The issuer's key identifier for authorityKeyIdentifier, when known. */
  readonly authorityKeyIdentifier?: Uint8Array;
  readonly extensions?: readonly Extension[];
  /** Hash for RSA and ECDSA signatures; defaults by key (SHA-256, SHA-384 for P-384, SHA-512 for P-521). */
  readonly hash?: 'sha256' | 'sha384' | 'sha512';
}

export interface BuiltCertificate {
  readonly der: Buffer;
  readonly pem: string;
  readonly cert: X509Certificate;
  /** The subjectKeyIdentifier value (useful as a child's authorityKeyIdentifier). */
  readonly keyIdentifier: Buffer;
}

export function encodeName(name: NameSpec): Buffer {
  const attributes: NameAttribute[] = Array.isArray(name)
    ? [...(name as readonly NameAttribute[])]
    : Object.entries(name as Record<string, string | undefined>)
        .filter((entry): entry is [string, string] => entry[1] !== undefined)
        .map(([type, value]) => ({ type, value }));
  return der.sequence(attributes.map(({ type, value }) => {
    const attributeOid = ATTRIBUTE_OIDS[type] ?? type;
    // countryName and serialNumber are PrintableString (RFC 5280 Appendix A); the rest UTF8String.
    const text = attributeOid === '2.5.4.6' || attributeOid === '2.5.4.5' ? der.printableString(value) : der.utf8String(value);
    return der.set([der.sequence([der.oid(attributeOid), text])]);
  }));
}

function signatureAlgorithm(key: KeyObject, hashOverride?: CertificateSpec['hash']): { algorithmId: Buffer; hash: string | null } {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519') return { algorithmId: der.sequence([der.oid('1.3.101.112')]), hash: null };
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const hash = hashOverride ?? (curve === 'secp384r1' ? 'sha384' : curve === 'secp521r1' ? 'sha512' : 'sha256');
    const oids = { sha256: '1.2.840.10045.4.3.2', sha384: '1.2.840.10045.4.3.3', sha512: '1.2.840.10045.4.3.4' };
    return { algorithmId: der.sequence([der.oid(oids[hash])]), hash };
  }
  if (type === 'rsa') {
    const hash = hashOverride ?? 'sha256';
    const oids = { sha256: '1.2.840.113549.1.1.11', sha384: '1.2.840.113549.1.1.12', sha512: '1.2.840.113549.1.1.13' };
    return { algorithmId: der.sequence([der.oid(oids[hash]), der.nullValue()]), hash };
  }
  throw new RangeError(`unsupported signing key type ${String(type)}`);
}

/**
 * The key identifier: SHA-1 of the whole DER SubjectPublicKeyInfo (RFC 7093 §2, method 4 with SHA-1), which
 * is unique per key and needs no parsing of the key encoding.
 */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  return createHash('sha1').update(publicKey.export({ type: 'spki', format: 'der' })).digest();
}

function extension({ oid, critical = false, valueDer }: Extension): Buffer {
  return der.sequence([der.oid(oid), ...(critical ? [der.boolean(true)] : []), der.octetString(valueDer)]);
}

function keyUsageValue(usages: readonly KeyUsageName[]): Buffer {
  const bits = usages.map((usage) => KEY_USAGE_BITS.indexOf(usage));
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[bit >> 3]! |= 0x80 >> (bit & 7);
  // DER: trailing zero bits are removed and counted as unused (X.690 §11.2.2).
  const unused = 7 - (highest % 8);
  return der.bitString(bytes, unused);
}

function ipAddress(text: string): Buffer {
  if (text.includes(':')) {
    const [head = '', tail = ''] = text.split('::');
    const parts = (part: string) => (part ? part.split(':') : []);
    const fill = 8 - parts(head).length - parts(tail).length;
    const groups = [...parts(head), ...Array(text.includes('::') ? fill : 0).fill('0'), ...parts(tail)];
    return Buffer.from(groups.flatMap((g) => { const n = parseInt(g, 16); return [n >> 8, n & 0xff]; }));
  }
  return Buffer.from(text.split('.').map(Number));
}

function standardExtensions(spec: CertificateSpec, subjectKeyId: Buffer): Extension[] {
  const out: Extension[] = [];
  if (spec.basicConstraints) {
    const { ca, pathLength, critical = true } = spec.basicConstraints;
    const fields = [...(ca ? [der.boolean(true)] : []), ...(pathLength !== undefined ? [der.integer(pathLength)] : [])];
    out.push({ oid: '2.5.29.19', critical, valueDer: der.sequence(fields) });
  }
  if (spec.keyUsage && spec.keyUsage.length > 0) out.push({ oid: '2.5.29.15', critical: true, valueDer: keyUsageValue(spec.keyUsage) });
  if (spec.extendedKeyUsage && spec.extendedKeyUsage.length > 0) {
    out.push({ oid: '2.5.29.37', valueDer: der.sequence(spec.extendedKeyUsage.map((usage) => der.oid(usage))) });
  }
  if (spec.subjectAltName) {
    const { dns = [], ip = [], directoryNames = [], critical = false } = spec.subjectAltName;
    const names = [
      ...directoryNames.map((name) => der.explicit(4, encodeName(name))),
      ...dns.map((host) => der.implicit(2, Buffer.from(host, 'latin1'))),
      ...ip.map((address) => der.implicit(7, ipAddress(address))),
    ];
    out.push({ oid: '2.5.29.17', critical, valueDer: der.sequence(names) });
  }
  if (spec.subjectKeyIdentifier !== false) out.push({ oid: '2.5.29.14', valueDer: der.octetString(subjectKeyId) });
  if (spec.authorityKeyIdentifier) {
    out.push({ oid: '2.5.29.35', valueDer: der.sequence([der.implicit(0, spec.authorityKeyIdentifier)]) });
  }
  return out;
}

function serialContent(serial: CertificateSpec['serial']): Buffer {
  if (serial === undefined) {
    const bytes = randomBytes(16);
    bytes[0] = (bytes[0] ?? 0) & 0x7f | 0x01; // positive, and 16 bytes long
    return der.integer(bytes);
  }
  return der.integer(serial);
}

/** Encodes and signs the certificate described by `spec`. */
export function buildCertificate(spec: CertificateSpec): BuiltCertificate {
  const { algorithmId, hash } = signatureAlgorithm(spec.signingKey, spec.hash);
  const version = spec.version ?? 3;
  const subjectKeyId = keyIdentifier(spec.publicKey);
  const issuer = spec.issuer === undefined ? encodeName(spec.subject)
    : spec.issuer instanceof Uint8Array ? Buffer.from(spec.issuer) : encodeName(spec.issuer);
  const extensions = version === 3 ? [...standardExtensions(spec, subjectKeyId), ...(spec.extensions ?? [])] : [];
  const tbs = der.sequence([
    ...(version === 3 ? [der.explicit(0, der.integer(2))] : []),
    serialContent(spec.serial),
    algorithmId,
    issuer,
    der.sequence([der.x509Time(spec.notBefore), der.x509Time(spec.notAfter)]),
    encodeName(spec.subject),
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    ...(extensions.length > 0 ? [der.explicit(3, der.sequence(extensions.map(extension)))] : []),
  ]);
  const signature = sign(hash, tbs, spec.signingKey);
  const certificateDer = der.sequence([tbs, algorithmId, der.bitString(signature)]);
  const pem = `-----BEGIN CERTIFICATE-----\n${certificateDer.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
  return { der: certificateDer, pem, cert: new X509Certificate(certificateDer), keyIdentifier: subjectKeyId };
}

// --- certificate revocation lists (RFC 5280 §5) ---

export interface RevokedEntrySpec {
  /** As for certificates; `{ raw }` writes these INTEGER content octets as given (e.g. redundant leading zeros). */
  readonly serial: bigint | number | Uint8Array | { readonly raw: Uint8Array };
  readonly revocationDate: Date;
  /** CRLReason (RFC 5280 §5.3.1) as a crlEntryExtension, e.g. 1 = keyCompromise. */
  readonly reason?: number;
}

export interface CrlSpec {
  /** The issuer's private key. */
  readonly signingKey: KeyObject;
  /** The issuer's name; a Buffer is an already encoded Name (copied byte for byte). */
  readonly issuer: NameSpec | Uint8Array;
  readonly thisUpdate: Date;
  /** null leaves nextUpdate out (RFC 5280 requires it; tests need CRLs without it too). */
  readonly nextUpdate: Date | null;
  readonly revoked?: readonly RevokedEntrySpec[];
  /** The cRLNumber extension; default 1. */
  readonly crlNumber?: bigint | number;
  /** The issuer's key identifier for authorityKeyIdentifier, when known. */
  readonly authorityKeyIdentifier?: Uint8Array;
  readonly extensions?: readonly Extension[];
  /** 2 (default) or 1; version 1 carries no extensions. */
  readonly version?: 1 | 2;
  readonly hash?: 'sha256' | 'sha384' | 'sha512';
}

export interface BuiltCrl {
  readonly der: Buffer;
  readonly pem: string;
}

function revokedEntry({ serial, revocationDate, reason }: RevokedEntrySpec): Buffer {
  const serialDer = typeof serial === 'object' && 'raw' in serial ? der.tlv('universal', false, 0x02, serial.raw) : der.integer(serial);
  const reasonExtension = reason === undefined ? []
    : [der.sequence([extension({ oid: '2.5.29.21', valueDer: der.tlv('universal', false, 0x0a, Buffer.from([reason])) })])];
  return der.sequence([serialDer, der.x509Time(revocationDate), ...reasonExtension]);
}

/** Encodes and signs the CRL described by `spec`. */
export function buildCrl(spec: CrlSpec): BuiltCrl {
  const { algorithmId, hash } = signatureAlgorithm(spec.signingKey, spec.hash);
  const version = spec.version ?? 2;
  const issuer = spec.issuer instanceof Uint8Array ? Buffer.from(spec.issuer) : encodeName(spec.issuer);
  const extensions: Extension[] = version === 2 ? [
    ...(spec.authorityKeyIdentifier ? [{ oid: '2.5.29.35', valueDer: der.sequence([der.implicit(0, spec.authorityKeyIdentifier)]) }] : []),
    { oid: '2.5.29.20', valueDer: der.integer(spec.crlNumber ?? 1) },
    ...(spec.extensions ?? []),
  ] : [];
  const revoked = spec.revoked ?? [];
  const tbs = der.sequence([
    ...(version === 2 ? [der.integer(1)] : []),
    algorithmId,
    issuer,
    der.x509Time(spec.thisUpdate),
    ...(spec.nextUpdate === null ? [] : [der.x509Time(spec.nextUpdate)]),
    ...(revoked.length > 0 ? [der.sequence(revoked.map(revokedEntry))] : []),
    ...(extensions.length > 0 ? [der.explicit(0, der.sequence(extensions.map(extension)))] : []),
  ]);
  const crlDer = der.sequence([tbs, algorithmId, der.bitString(sign(hash, tbs, spec.signingKey))]);
  const pem = `-----BEGIN X509 CRL-----\n${crlDer.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END X509 CRL-----\n`;
  return { der: crlDer, pem };
}

/** The cRLDistributionPoints extension (RFC 5280 §4.2.1.13) with one fullName URI per distribution point. */
export function crlDistributionPointsExtension(urls: readonly string[]): Extension {
  const points = urls.map((url) => der.sequence([der.explicit(0, der.implicit(0, der.implicit(6, Buffer.from(url, 'latin1')), true))]));
  return { oid: '2.5.29.31', valueDer: der.sequence(points) };
}
