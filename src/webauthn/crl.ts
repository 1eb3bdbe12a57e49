// Certificate revocation lists (RFC 5280 §5), for the one chain whose revocation this service checks: the
// signing chain of the operator's FIDO MDS3 BLOB (metadata/revocation.ts). CRLs are operator-supplied
// files, like the BLOB; nothing is fetched. Pure: bytes in, facts out. Input that is not a CRL we can use
// throws CrlError with a precise message, which callers turn into their own error name (as with Asn1Error).

import { constants, verify, type KeyObject, type X509Certificate } from 'node:crypto';
import {
  Asn1Error, certificateParts, children, decodeBitString, decodeBoolean, decodeInteger, decodeName, decodeOctetString, decodeOid,
  expectUniversal, findExtension, isContext, isUniversal, readDer, readNode, sequenceOf, TAG, type Asn1Node,
} from './asn1.js';

export class CrlError extends Error {
  override readonly name = 'CrlError';
}

/** A CRL file far larger than this is not a CA's CRL (the GlobalSign ones of the MDS chain are a few kB). */
export const MAX_CRL_BYTES = 32 * 1024 * 1024;
/** RFC 5280 §4.1.2.2 allows 20 octets; real CAs have shipped a few more, hostile input many more. */
const MAX_SERIAL_BYTES = 64;
/** PEM blocks one file may hold. */
const MAX_PEM_BLOCKS = 64;

/** The signature algorithms a CRL may be signed with (the ones certificates of the MDS chain use). */
interface SignatureAlgorithm {
  readonly name: string;
  readonly hash: string | null;
  readonly kind: 'ecdsa' | 'rsa' | 'eddsa';
}

const SIGNATURE_ALGORITHMS: Record<string, SignatureAlgorithm> = {
  '1.2.840.10045.4.3.2': { name: 'ecdsa-with-SHA256', hash: 'sha256', kind: 'ecdsa' },
  '1.2.840.10045.4.3.3': { name: 'ecdsa-with-SHA384', hash: 'sha384', kind: 'ecdsa' },
  '1.2.840.10045.4.3.4': { name: 'ecdsa-with-SHA512', hash: 'sha512', kind: 'ecdsa' },
  '1.2.840.113549.1.1.11': { name: 'sha256WithRSAEncryption', hash: 'sha256', kind: 'rsa' },
  '1.2.840.113549.1.1.12': { name: 'sha384WithRSAEncryption', hash: 'sha384', kind: 'rsa' },
  '1.2.840.113549.1.1.13': { name: 'sha512WithRSAEncryption', hash: 'sha512', kind: 'rsa' },
  '1.3.101.112': { name: 'Ed25519', hash: null, kind: 'eddsa' },
};

const OID = {
  CRL_NUMBER: '2.5.29.20',
  DELTA_CRL_INDICATOR: '2.5.29.27',
  ISSUING_DISTRIBUTION_POINT: '2.5.29.28',
  AUTHORITY_KEY_IDENTIFIER: '2.5.29.35',
  FRESHEST_CRL: '2.5.29.46',
  AUTHORITY_INFO_ACCESS: '1.3.6.1.5.5.7.1.1',
  CRL_DISTRIBUTION_POINTS: '2.5.29.31',
  KEY_USAGE: '2.5.29.15',
} as const;

/** CRL extensions we read or may safely ignore; any other critical one makes the CRL unusable (§5.2). */
const KNOWN_CRL_EXTENSIONS: ReadonlySet<string> = new Set([
  OID.CRL_NUMBER, OID.ISSUING_DISTRIBUTION_POINT, OID.AUTHORITY_KEY_IDENTIFIER, OID.FRESHEST_CRL, OID.AUTHORITY_INFO_ACCESS,
]);

/** Which certificates of its issuer a CRL covers (its issuingDistributionPoint, RFC 5280 §5.2.5). */
export type CrlScope = 'all' | 'end-entity' | 'ca';

export interface RevokedCertificate {
  /** The serial number as upper-case hex, leading zero octets removed (see serialKey). */
  readonly serial: string;
  readonly revocationDate: Date;
}

export interface Crl {
  /** Where the CRL came from (file name, PEM block number), for messages. */
  readonly label: string;
  readonly der: Buffer;
  readonly version: 1 | 2;
  /** The issuer Name exactly as encoded (DER). */
  readonly issuer: Buffer;
  /** The issuer Name as text (C=US, O=…, CN=…), for messages. */
  readonly issuerText: string;
  readonly thisUpdate: Date;
  /** Absent in the CRL = null (RFC 5280 requires it; such a CRL cannot be known to be current). */
  readonly nextUpdate: Date | null;
  readonly crlNumber: bigint | null;
  readonly scope: CrlScope;
  /** The listed certificates, by serial key. Entry extensions (reason codes, …) are not read. */
  readonly revoked: ReadonlyMap<string, RevokedCertificate>;
  readonly signatureAlgorithm: string;
  /** The signed part (tbsCertList, DER) and the signature over it. */
  readonly tbs: Buffer;
  readonly signature: Buffer;
}

// --- parsing ---

/** Parses one DER CertificateList. Throws CrlError. */
export function parseCrl(der: Uint8Array, label = 'CRL'): Crl {
  const bytes = Buffer.from(der);
  if (bytes.length > MAX_CRL_BYTES) throw new CrlError(`${label} is larger than ${MAX_CRL_BYTES} bytes`);
  try {
    return readCertificateList(bytes, label);
  } catch (err) {
    if (err instanceof Asn1Error) throw new CrlError(`${label} is not a DER X.509 CRL (${err.message})`);
    throw err;
  }
}

/**
 * The CRLs of one file: PEM ("-----BEGIN X509 CRL-----" blocks, any number, text around them ignored as
 * OpenSSL does) or one DER CRL. Throws CrlError.
 */
export function parseCrls(file: Uint8Array, label = 'CRL file'): Crl[] {
  const bytes = Buffer.from(file);
  if (bytes.length > MAX_CRL_BYTES) throw new CrlError(`${label} is larger than ${MAX_CRL_BYTES} bytes`);
  if (bytes.length === 0) throw new CrlError(`${label} is empty`);
  // DER starts with a SEQUENCE (0x30); PEM with text. Anything else is neither.
  if (bytes[0] === 0x30) return [parseCrl(bytes, label)];
  const text = bytes.toString('latin1');
  if (!text.includes('-----BEGIN')) throw new CrlError(`${label} is neither a DER CRL nor PEM`);
  const blocks = [...text.matchAll(/-----BEGIN X509 CRL-----([^-]*)-----END X509 CRL-----/g)];
  if (blocks.length === 0) throw new CrlError(`${label} holds no PEM CRL (-----BEGIN X509 CRL-----)`);
  if (blocks.length > MAX_PEM_BLOCKS) throw new CrlError(`${label} holds more than ${MAX_PEM_BLOCKS} PEM CRLs`);
  return blocks.map((block, i) => {
    const where = blocks.length === 1 ? label : `${label} (PEM CRL ${i + 1})`;
    const body = (block[1] ?? '').replace(/[\r\n\t ]/g, '');
    if (body.length === 0 || body.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw new CrlError(`${where}: the PEM body is not base64`);
    return parseCrl(Buffer.from(body, 'base64'), where);
  });
}

function readCertificateList(bytes: Buffer, label: string): Crl {
  // CertificateList ::= SEQUENCE { tbsCertList, signatureAlgorithm AlgorithmIdentifier, signatureValue BIT STRING }
  const outer = sequenceOf(readDer(bytes), 'CertificateList');
  if (outer.length !== 3) throw new Asn1Error('CertificateList must have three fields');
  const [tbsNode, algorithmNode, signatureNode] = outer as [Asn1Node, Asn1Node, Asn1Node];
  const algorithm = signatureAlgorithmOf(algorithmNode, label);
  const { bytes: signature, unusedBits } = decodeBitString(signatureNode);
  if (unusedBits !== 0 || signature.length === 0) throw new Asn1Error('the signature BIT STRING must hold whole, non-empty octets');

  const fields = sequenceOf(tbsNode, 'TBSCertList');
  let i = 0;
  let version: 1 | 2 = 1;
  if (fields[i] && isUniversal(fields[i]!, TAG.INTEGER)) {
    // Present only as v2 (INTEGER 1), RFC 5280 §5.1.2.1.
    if (decodeInteger(fields[i++]) !== 1n) throw new CrlError(`${label}: version must be v2 when present`);
    version = 2;
  }
  const innerAlgorithm = expectUniversal(fields[i++], TAG.SEQUENCE, 'the TBSCertList signature algorithm');
  // §5.1.1.2: the algorithm inside the signed part must be the one outside it, or a swap goes unnoticed.
  if (!innerAlgorithm.encoded.equals(algorithmNode.encoded)) throw new CrlError(`${label}: the signature algorithm inside tbsCertList differs from signatureAlgorithm`);
  const issuerNode = expectUniversal(fields[i++], TAG.SEQUENCE, 'issuer Name');
  const thisUpdate = readTime(fields[i++], 'thisUpdate');
  let nextUpdate: Date | null = null;
  if (fields[i] && isTime(fields[i]!)) nextUpdate = readTime(fields[i++], 'nextUpdate');
  let revoked = new Map<string, RevokedCertificate>();
  if (fields[i] && isUniversal(fields[i]!, TAG.SEQUENCE)) revoked = readRevoked(fields[i++]!);
  let extensions: CrlExtensions = { crlNumber: null, scope: 'all' };
  if (fields[i] && isContext(fields[i]!, 0)) {
    if (version !== 2) throw new CrlError(`${label}: a v1 CRL cannot carry extensions`);
    const [inner, ...extra] = children(fields[i++]!);
    if (extra.length > 0) throw new Asn1Error('crlExtensions [0] holds more than one value');
    extensions = readCrlExtensions(inner, label);
  }
  if (i !== fields.length) throw new Asn1Error('unexpected fields after crlExtensions');
  if (nextUpdate && nextUpdate.getTime() < thisUpdate.getTime()) throw new CrlError(`${label}: nextUpdate is before thisUpdate`);

  return {
    label,
    der: bytes,
    version,
    issuer: Buffer.from(issuerNode.encoded),
    issuerText: nameText(issuerNode.encoded),
    thisUpdate,
    nextUpdate,
    crlNumber: extensions.crlNumber,
    scope: extensions.scope,
    revoked,
    signatureAlgorithm: algorithm.name,
    tbs: Buffer.from(tbsNode.encoded),
    signature: Buffer.from(signature),
  };
}

function signatureAlgorithmOf(node: Asn1Node, label: string): SignatureAlgorithm {
  const [oidNode, parameters, ...extra] = sequenceOf(node, 'AlgorithmIdentifier');
  const oid = decodeOid(oidNode);
  const algorithm = SIGNATURE_ALGORITHMS[oid];
  if (!algorithm) throw new CrlError(`${label}: signature algorithm ${oid} is not supported (ECDSA or RSA PKCS#1 v1.5 with SHA-256/384/512, Ed25519)`);
  // RSA PKCS#1 v1.5 carries NULL parameters (RFC 4055 §5; absent is tolerated); ECDSA and Ed25519 none.
  const nullOk = algorithm.kind === 'rsa' && parameters !== undefined && isUniversal(parameters, TAG.NULL) && parameters.value.length === 0;
  if (extra.length > 0 || (parameters !== undefined && !nullOk)) throw new CrlError(`${label}: ${algorithm.name} has unexpected parameters`);
  return algorithm;
}

function isTime(node: Asn1Node): boolean {
  return isUniversal(node, TAG.UTC_TIME) || isUniversal(node, TAG.GENERALIZED_TIME);
}

/** UTCTime YYMMDDHHMMSSZ or GeneralizedTime YYYYMMDDHHMMSSZ, the only forms RFC 5280 §5.1.2.4 allows. */
function readTime(node: Asn1Node | undefined, what: string): Date {
  if (!node || !isTime(node) || node.constructed) throw new Asn1Error(`expected ${what} (UTCTime or GeneralizedTime)`);
  const text = node.value.toString('latin1');
  const utc = isUniversal(node, TAG.UTC_TIME);
  const m = (utc ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/ : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/).exec(text);
  if (!m) throw new Asn1Error(`${what} is not ${utc ? 'YYMMDDHHMMSSZ' : 'YYYYMMDDHHMMSSZ'}`);
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const fullYear = utc ? (year >= 50 ? 1900 + year : 2000 + year) : year;
  const date = new Date(Date.UTC(fullYear, month - 1, day, hour, minute, second));
  // Date.UTC rolls 31 February over into March: a round trip catches impossible dates.
  if (date.getUTCFullYear() !== fullYear || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day ||
      date.getUTCHours() !== hour || date.getUTCMinutes() !== minute || date.getUTCSeconds() !== second) {
    throw new Asn1Error(`${what} is not a valid date`);
  }
  return date;
}

function readRevoked(node: Asn1Node): Map<string, RevokedCertificate> {
  const out = new Map<string, RevokedCertificate>();
  for (const entry of sequenceOf(node, 'revokedCertificates')) {
    // SEQUENCE { userCertificate CertificateSerialNumber, revocationDate Time, crlEntryExtensions OPTIONAL }
    const [serialNode, dateNode, extensions, ...extra] = sequenceOf(entry, 'a revokedCertificates entry');
    if (extra.length > 0 || (extensions !== undefined && !isUniversal(extensions, TAG.SEQUENCE))) throw new Asn1Error('malformed revokedCertificates entry');
    // Read as octets, not decodeInteger: CAs have listed serials with redundant leading zeros, and the
    // comparison (serialKey) ignores them anyway.
    const content = expectUniversal(serialNode, TAG.INTEGER, 'a revoked serial number').value;
    if (content.length === 0 || content.length > MAX_SERIAL_BYTES) throw new Asn1Error('a revoked serial number is empty or too long');
    const serial = serialKey(content);
    if (!out.has(serial)) out.set(serial, { serial, revocationDate: readTime(dateNode, 'revocationDate') });
  }
  return out;
}

interface CrlExtensions {
  readonly crlNumber: bigint | null;
  readonly scope: CrlScope;
}

function readCrlExtensions(node: Asn1Node | undefined, label: string): CrlExtensions {
  const seen = new Set<string>();
  let crlNumber: bigint | null = null;
  let scope: CrlScope = 'all';
  for (const extension of sequenceOf(node, 'crlExtensions')) {
    const parts = sequenceOf(extension, 'Extension');
    const hasCritical = parts.length === 3;
    if (parts.length !== 2 && !hasCritical) throw new Asn1Error('malformed Extension');
    const oid = decodeOid(parts[0]);
    const critical = hasCritical ? decodeBoolean(parts[1]) : false;
    const value = decodeOctetString(parts[hasCritical ? 2 : 1]);
    if (seen.has(oid)) throw new CrlError(`${label}: extension ${oid} appears more than once`);
    seen.add(oid);
    if (oid === OID.DELTA_CRL_INDICATOR) throw new CrlError(`${label} is a delta CRL; give the complete CRL`);
    if (oid === OID.CRL_NUMBER) crlNumber = decodeInteger(readDer(value));
    else if (oid === OID.ISSUING_DISTRIBUTION_POINT) scope = readIssuingDistributionPoint(value, label);
    else if (critical && !KNOWN_CRL_EXTENSIONS.has(oid)) throw new CrlError(`${label}: critical extension ${oid} is not understood, so the CRL cannot be used`);
  }
  return { crlNumber, scope };
}

/**
 * IssuingDistributionPoint: which certificates the CRL covers. Indirect CRLs, CRLs partitioned by reason
 * and attribute-certificate CRLs are not complete CRLs of the issuer's certificates: refused.
 */
function readIssuingDistributionPoint(value: Buffer, label: string): CrlScope {
  let userOnly = false;
  let caOnly = false;
  for (const field of sequenceOf(readDer(value), 'IssuingDistributionPoint')) {
    if (field.tagClass !== 'context') throw new Asn1Error('malformed IssuingDistributionPoint');
    if (field.tagNumber === 0) continue; // distributionPoint: where it is published; not needed offline
    if (field.tagNumber === 3) throw new CrlError(`${label} covers only some revocation reasons (onlySomeReasons); give a complete CRL`);
    const flag = field.tagNumber <= 5 && !field.constructed && field.value.length === 1 ? field.value[0] : undefined;
    if (flag !== 0xff && flag !== 0x00) throw new Asn1Error('malformed IssuingDistributionPoint flag');
    if (flag === 0x00) continue;
    if (field.tagNumber === 1) userOnly = true;
    if (field.tagNumber === 2) caOnly = true;
    if (field.tagNumber === 4) throw new CrlError(`${label} is an indirect CRL, which is not supported`);
    if (field.tagNumber === 5) throw new CrlError(`${label} covers only attribute certificates`);
  }
  if (userOnly && caOnly) throw new CrlError(`${label} claims to cover only end-entity and only CA certificates`);
  return userOnly ? 'end-entity' : caOnly ? 'ca' : 'all';
}

// --- using a CRL ---

/** Does the CRL's signature verify with `key` (the issuer certificate's public key)? */
export function verifyCrlSignature(crl: Crl, key: KeyObject): boolean {
  const algorithm = Object.values(SIGNATURE_ALGORITHMS).find((a) => a.name === crl.signatureAlgorithm);
  if (!algorithm) return false;
  const expectedKey = algorithm.kind === 'ecdsa' ? 'ec' : algorithm.kind === 'rsa' ? 'rsa' : 'ed25519';
  if (key.asymmetricKeyType !== expectedKey) return false;
  try {
    if (algorithm.kind === 'rsa') return verify(algorithm.hash, crl.tbs, { key, padding: constants.RSA_PKCS1_PADDING }, crl.signature);
    return verify(algorithm.hash, crl.tbs, key, crl.signature); // ECDSA: DER Ecdsa-Sig-Value, Node's default
  } catch {
    return false;
  }
}

/** thisUpdate ≤ now ≤ nextUpdate. */
export type CrlTimeStatus = 'current' | 'not-yet-valid' | 'stale' | 'no-next-update';

export function crlTimeStatus(crl: Crl, now: Date): CrlTimeStatus {
  const t = now.getTime();
  if (t < crl.thisUpdate.getTime()) return 'not-yet-valid';
  if (crl.nextUpdate === null) return 'no-next-update';
  return t > crl.nextUpdate.getTime() ? 'stale' : 'current';
}

/** Does a CRL of this scope cover `cert`? */
export function scopeCovers(scope: CrlScope, certIsCa: boolean): boolean {
  return scope === 'all' || (scope === 'ca') === certIsCa;
}

/**
 * A serial number as a comparison key: upper-case hex of the INTEGER's content octets without leading
 * zero octets, so the DER sign octet (00 before a high bit) and redundant zeros do not matter.
 */
export function serialKey(content: Uint8Array): string {
  let start = 0;
  while (start < content.length - 1 && content[start] === 0) start++;
  return Buffer.from(content.subarray(start)).toString('hex').toUpperCase();
}

/** The certificate's serial as a key (serialKey). Throws Asn1Error when our reader cannot read it. */
export function certificateSerialKey(cert: X509Certificate): string {
  return serialKey(certificateParts(cert).serial);
}

/** The CRL entry that lists `cert`, or undefined. */
export function findRevoked(crl: Crl, cert: X509Certificate): RevokedCertificate | undefined {
  return crl.revoked.get(certificateSerialKey(cert));
}

/**
 * Do two encoded Names denote the same name? Equal octets, or (RFC 5280 §7.1, simplified) the same
 * attributes in the same order with values equal ignoring case and runs of white space: a CA may encode
 * its name in a CRL with other string types than in its certificates.
 */
export function sameName(a: Uint8Array, b: Uint8Array): boolean {
  if (Buffer.from(a).equals(Buffer.from(b))) return true;
  try {
    const norm = (der: Uint8Array) => decodeName(readDer(Buffer.from(der)), { lenientLengths: true })
      .map(({ oid, value }) => `${oid}=${value.trim().replace(/\s+/g, ' ').toLowerCase()}`).join('\n');
    return norm(a) === norm(b);
  } catch (err) {
    if (err instanceof Asn1Error) return false;
    throw err;
  }
}

/** The issuer Name of a certificate as encoded (DER). Throws Asn1Error. */
export function certificateIssuerName(cert: X509Certificate): Buffer {
  return Buffer.from(certificateParts(cert).issuer.encoded);
}

/** keyUsage, when present, must allow cRLSign for the certificate's key to sign CRLs (RFC 5280 §4.2.1.3). */
export function mayIssueCrls(issuer: X509Certificate): boolean {
  try {
    const usage = findExtension(issuer, OID.KEY_USAGE);
    if (!usage) return true;
    const { bytes } = decodeBitString(readNode(usage.value, 0, { lenientLengths: true }).node);
    return ((bytes[0] ?? 0) & 0x02) !== 0; // bit 6 = cRLSign
  } catch (err) {
    if (err instanceof Asn1Error) return false;
    throw err;
  }
}

/**
 * The http(s)/ldap URLs of a certificate's CRL distribution points (RFC 5280 §4.2.1.13): where its
 * issuer publishes the CRL that covers it. Empty when the extension is absent or cannot be read (the list
 * only guides the operator; revocation itself is decided by the CRLs given).
 */
export function crlDistributionPoints(cert: X509Certificate): string[] {
  try {
    const extension = findExtension(cert, OID.CRL_DISTRIBUTION_POINTS);
    if (!extension) return [];
    const lenient = { lenientLengths: true };
    const urls: string[] = [];
    for (const point of sequenceOf(readDer(extension.value, lenient), 'CRLDistributionPoints', lenient)) {
      const name = sequenceOf(point, 'DistributionPoint', lenient).find((field) => isContext(field, 0));
      const fullName = name && children(name, lenient).find((field) => isContext(field, 0));
      if (!fullName) continue;
      for (const general of children(fullName, lenient)) {
        if (isContext(general, 6) && !general.constructed) urls.push(general.value.toString('latin1')); // uniformResourceIdentifier
      }
    }
    return urls;
  } catch (err) {
    if (err instanceof Asn1Error) return [];
    throw err;
  }
}

const SHORT_NAMES: Record<string, string> = {
  '2.5.4.6': 'C', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.3': 'CN', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.5': 'serialNumber',
};

/** "C=US, O=…, CN=…" for messages; a name our reader cannot decode is shown as hex. */
export function nameText(der: Uint8Array): string {
  try {
    const entries = decodeName(readDer(Buffer.from(der)), { lenientLengths: true });
    return entries.length === 0 ? '(empty name)' : entries.map(({ oid, value }) => `${SHORT_NAMES[oid] ?? oid}=${value}`).join(', ');
  } catch {
    return `(name ${Buffer.from(der).toString('hex')})`;
  }
}
