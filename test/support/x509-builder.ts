// Test-only: builds and signs X.509 v3 certificates and CRLs (RFC 5280) with node:crypto keys, synchronously,
// for the tests' attestation PKIs and hostile CRLs. The structures are @peculiar/asn1-x509's schema classes,
// encoded by @peculiar/asn1-schema (AsnConvert.serialize is synchronous); node:crypto signs the TBS bytes.

import { createHash, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  CertificateList,
  CRLDistributionPoints,
  CRLReason,
  DistributionPoint,
  DistributionPointName,
  ExtendedKeyUsage,
  Extension as AsnExtension,
  Extensions,
  GeneralName,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  RevokedCertificate,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  TBSCertList,
  Time,
  Validity,
  Version,
} from '@peculiar/asn1-x509';
import { derOf, integerDer } from './asn1-schema.js';

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
export type NameSpec =
  | readonly NameAttribute[]
  | Readonly<Partial<Record<'C' | 'O' | 'OU' | 'CN' | 'L' | 'ST', string>>>;

export interface Extension {
  readonly oid: string;
  readonly critical?: boolean;
  /** The DER encoding placed inside extnValue's OCTET STRING (as given: tests put broken values here). */
  readonly valueDer: Uint8Array;
}

export type KeyUsageName =
  | 'digitalSignature'
  | 'nonRepudiation'
  | 'keyEncipherment'
  | 'dataEncipherment'
  | 'keyAgreement'
  | 'keyCertSign'
  | 'cRLSign'
  | 'encipherOnly'
  | 'decipherOnly';

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
  /** Defaults to 16 random bytes (positive). A Uint8Array is an unsigned big-endian magnitude. */
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

function nameOf(name: NameSpec): Name {
  const attributes: NameAttribute[] = Array.isArray(name)
    ? [...(name as readonly NameAttribute[])]
    : Object.entries(name as Record<string, string | undefined>)
        .filter((entry): entry is [string, string] => entry[1] !== undefined)
        .map(([type, value]) => ({ type, value }));
  return new Name(
    attributes.map(({ type, value }) => {
      const attributeOid = ATTRIBUTE_OIDS[type] ?? type;
      // countryName and serialNumber are PrintableString (RFC 5280 Appendix A); the rest UTF8String.
      const text =
        attributeOid === '2.5.4.6' || attributeOid === '2.5.4.5' ? { printableString: value } : { utf8String: value };
      return new RelativeDistinguishedName([
        new AttributeTypeAndValue({ type: attributeOid, value: new AttributeValue(text) }),
      ]);
    }),
  );
}

/** An encoded Name as given, checked to survive the library's round trip unchanged (so it is byte for byte). */
function parsedName(encoded: Uint8Array): Name {
  const name = AsnConvert.parse(encoded, Name);
  if (!derOf(name).equals(Buffer.from(encoded)))
    throw new RangeError('this encoded Name would not be written back byte for byte');
  return name;
}

export function encodeName(name: NameSpec): Buffer {
  return derOf(nameOf(name));
}

function signatureAlgorithm(
  key: KeyObject,
  hashOverride?: CertificateSpec['hash'],
): { algorithmId: AlgorithmIdentifier; hash: string | null } {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519') return { algorithmId: new AlgorithmIdentifier({ algorithm: '1.3.101.112' }), hash: null };
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const hash = hashOverride ?? (curve === 'secp384r1' ? 'sha384' : curve === 'secp521r1' ? 'sha512' : 'sha256');
    const oids = { sha256: '1.2.840.10045.4.3.2', sha384: '1.2.840.10045.4.3.3', sha512: '1.2.840.10045.4.3.4' };
    return { algorithmId: new AlgorithmIdentifier({ algorithm: oids[hash] }), hash };
  }
  if (type === 'rsa') {
    const hash = hashOverride ?? 'sha256';
    const oids = { sha256: '1.2.840.113549.1.1.11', sha384: '1.2.840.113549.1.1.12', sha512: '1.2.840.113549.1.1.13' };
    // parameters NULL, as RFC 4055 §5 requires for these algorithms.
    return { algorithmId: new AlgorithmIdentifier({ algorithm: oids[hash], parameters: null }), hash };
  }
  throw new RangeError(`unsupported signing key type ${String(type)}`);
}

/**
 * The key identifier: SHA-1 of the whole DER SubjectPublicKeyInfo (RFC 7093 §2, method 4 with SHA-1), which
 * is unique per key and needs no parsing of the key encoding.
 */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  return createHash('sha1')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest();
}

function extension({ oid, critical = false, valueDer }: Extension): AsnExtension {
  return new AsnExtension({ extnID: oid, critical, extnValue: new OctetString(valueDer) });
}

function keyUsageValue(usages: readonly KeyUsageName[]): KeyUsage {
  // The library's flags are the bits in RFC 5280 order; from a number it writes the minimal BIT STRING
  // (trailing zero bits counted as unused, X.690 §11.2.2).
  return new KeyUsage(usages.reduce((flags, usage) => flags | KeyUsageFlags[usage], 0));
}

function time(date: Date): Time {
  // RFC 5280 §4.1.2.5: UTCTime for 1950-2049, GeneralizedTime otherwise (the library handles only the upper end).
  return date.getUTCFullYear() < 1950
    ? new Time({ generalTime: new Date(Math.floor(date.getTime() / 1000) * 1000) })
    : new Time(date);
}

function standardExtensions(spec: CertificateSpec, subjectKeyId: Buffer): Extension[] {
  const out: Extension[] = [];
  if (spec.basicConstraints) {
    const { ca, pathLength, critical = true } = spec.basicConstraints;
    out.push({
      oid: '2.5.29.19',
      critical,
      valueDer: derOf(
        new BasicConstraints({ cA: ca, ...(pathLength !== undefined && { pathLenConstraint: pathLength }) }),
      ),
    });
  }
  if (spec.keyUsage && spec.keyUsage.length > 0)
    out.push({ oid: '2.5.29.15', critical: true, valueDer: derOf(keyUsageValue(spec.keyUsage)) });
  if (spec.extendedKeyUsage && spec.extendedKeyUsage.length > 0) {
    out.push({ oid: '2.5.29.37', valueDer: derOf(new ExtendedKeyUsage([...spec.extendedKeyUsage])) });
  }
  if (spec.subjectAltName) {
    const { dns = [], ip = [], directoryNames = [], critical = false } = spec.subjectAltName;
    const names = [
      ...directoryNames.map((name) => new GeneralName({ directoryName: nameOf(name) })),
      ...dns.map((host) => new GeneralName({ dNSName: host })),
      ...ip.map((address) => new GeneralName({ iPAddress: address })),
    ];
    out.push({ oid: '2.5.29.17', critical, valueDer: derOf(new SubjectAlternativeName(names)) });
  }
  if (spec.subjectKeyIdentifier !== false)
    out.push({ oid: '2.5.29.14', valueDer: derOf(new SubjectKeyIdentifier(subjectKeyId)) });
  if (spec.authorityKeyIdentifier) out.push(authorityKeyIdentifierExtension(spec.authorityKeyIdentifier));
  return out;
}

function authorityKeyIdentifierExtension(id: Uint8Array): Extension {
  return { oid: '2.5.29.35', valueDer: derOf(new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(id) })) };
}

/** INTEGER content octets: two's complement, minimal (a Uint8Array is read as an unsigned magnitude). */
function integerContent(value: bigint | number | Uint8Array): ArrayBuffer {
  const n = value instanceof Uint8Array ? BigInt(`0x${Buffer.from(value).toString('hex') || '0'}`) : BigInt(value);
  const encoded = integerDer(n);
  return new Uint8Array(encoded.subarray(encoded.length - encoded[1]!)).buffer; // the content octets (short length: serials are at most 20 octets)
}

function serialContent(serial: CertificateSpec['serial']): ArrayBuffer {
  if (serial !== undefined) return integerContent(serial);
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01; // positive, and 16 bytes long
  return integerContent(bytes);
}

function pemOf(label: string, der: Buffer): string {
  return `-----BEGIN ${label}-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}

/** Encodes and signs the certificate described by `spec`. */
export function buildCertificate(spec: CertificateSpec): BuiltCertificate {
  const { algorithmId, hash } = signatureAlgorithm(spec.signingKey, spec.hash);
  const version = spec.version ?? 3;
  const subjectKeyId = keyIdentifier(spec.publicKey);
  const issuer =
    spec.issuer === undefined
      ? nameOf(spec.subject)
      : spec.issuer instanceof Uint8Array
        ? parsedName(spec.issuer)
        : nameOf(spec.issuer);
  const extensions = version === 3 ? [...standardExtensions(spec, subjectKeyId), ...(spec.extensions ?? [])] : [];
  const tbsCertificate = new TBSCertificate({
    version: version === 3 ? Version.v3 : Version.v1,
    serialNumber: serialContent(spec.serial),
    signature: algorithmId,
    issuer,
    validity: new Validity({ notBefore: spec.notBefore, notAfter: spec.notAfter }),
    subject: nameOf(spec.subject),
    subjectPublicKeyInfo: AsnConvert.parse(
      spec.publicKey.export({ type: 'spki', format: 'der' }),
      SubjectPublicKeyInfo,
    ),
    ...(extensions.length > 0 && { extensions: new Extensions(extensions.map(extension)) }),
  });
  tbsCertificate.validity.notBefore = time(spec.notBefore);
  tbsCertificate.validity.notAfter = time(spec.notAfter);
  const signature = sign(hash, derOf(tbsCertificate), spec.signingKey);
  const certificateDer = derOf(
    new Certificate({
      tbsCertificate,
      signatureAlgorithm: algorithmId,
      signatureValue: new Uint8Array(signature).buffer,
    }),
  );
  return {
    der: certificateDer,
    pem: pemOf('CERTIFICATE', certificateDer),
    cert: new X509Certificate(certificateDer),
    keyIdentifier: subjectKeyId,
  };
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

function revokedEntry({ serial, revocationDate, reason }: RevokedEntrySpec): RevokedCertificate {
  const content =
    typeof serial === 'object' && 'raw' in serial ? new Uint8Array(serial.raw).buffer : integerContent(serial);
  return new RevokedCertificate({
    userCertificate: content,
    revocationDate: time(revocationDate),
    ...(reason !== undefined && {
      crlEntryExtensions: [extension({ oid: '2.5.29.21', valueDer: derOf(new CRLReason(reason)) })],
    }),
  });
}

/** Encodes and signs the CRL described by `spec`. */
export function buildCrl(spec: CrlSpec): BuiltCrl {
  const { algorithmId, hash } = signatureAlgorithm(spec.signingKey, spec.hash);
  const version = spec.version ?? 2;
  const crlNumber = integerDer(spec.crlNumber ?? 1);
  const extensions: Extension[] =
    version === 2
      ? [
          ...(spec.authorityKeyIdentifier ? [authorityKeyIdentifierExtension(spec.authorityKeyIdentifier)] : []),
          { oid: '2.5.29.20', valueDer: crlNumber },
          ...(spec.extensions ?? []),
        ]
      : [];
  const revoked = spec.revoked ?? [];
  const tbsCertList = new TBSCertList({
    ...(version === 2 && { version: Version.v2 }),
    signature: algorithmId,
    issuer: spec.issuer instanceof Uint8Array ? parsedName(spec.issuer) : nameOf(spec.issuer),
    thisUpdate: time(spec.thisUpdate),
    ...(spec.nextUpdate !== null && { nextUpdate: time(spec.nextUpdate) }),
    ...(revoked.length > 0 && { revokedCertificates: revoked.map(revokedEntry) }),
    ...(extensions.length > 0 && { crlExtensions: extensions.map(extension) }),
  });
  const signature = sign(hash, derOf(tbsCertList), spec.signingKey);
  const crlDer = derOf(
    new CertificateList({ tbsCertList, signatureAlgorithm: algorithmId, signature: new Uint8Array(signature).buffer }),
  );
  return { der: crlDer, pem: pemOf('X509 CRL', crlDer) };
}

/** The cRLDistributionPoints extension (RFC 5280 §4.2.1.13) with one fullName URI per distribution point. */
export function crlDistributionPointsExtension(urls: readonly string[]): Extension {
  const points = urls.map(
    (url) =>
      new DistributionPoint({
        distributionPoint: new DistributionPointName({
          fullName: [new GeneralName({ uniformResourceIdentifier: url })],
        }),
      }),
  );
  return { oid: '2.5.29.31', valueDer: derOf(new CRLDistributionPoints(points)) };
}
