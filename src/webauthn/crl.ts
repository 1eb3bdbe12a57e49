// Certificate revocation lists (RFC 5280 §5), for the one chain whose revocation this service checks: the
// signing chain of the operator's FIDO MDS3 BLOB (metadata/revocation.ts). CRLs are operator-supplied
// files, like the BLOB; nothing is fetched. Pure: bytes in, facts out. Input that is not a CRL we can use
// throws CrlError with a precise message, which callers turn into their own error name (as with Asn1Error).
// The CertificateList is read by @peculiar/asn1-x509 (the ASN.1 schemas of @peculiar/x509, without its
// WebCrypto and reflect-metadata layer); what it cannot say (strict DER, the exact form of each time) and
// what the revocation policy decides stays here. What the policy asks of a parsed CRL: crl-checks.ts; what a
// parsed CRL holds: crl-types.ts.

import { AsnConvert } from '@peculiar/asn1-schema';
import {
  CertificateList,
  Version,
  type AlgorithmIdentifier,
  type Extension,
  type RevokedCertificate as ListedCertificate,
} from '@peculiar/asn1-x509';
import {
  Asn1Error,
  decodeBitString,
  decodeInteger,
  isUniversal,
  readDer,
  sequenceOf,
  TAG,
  type Asn1Node,
} from './asn1.js';
import {
  CrlError,
  MAX_CRL_BYTES,
  SIGNATURE_ALGORITHMS,
  serialKey,
  type Crl,
  type CrlScope,
  type RevokedCertificate,
  type SignatureAlgorithm,
} from './crl-types.js';
import { nameText } from './x509.js';

export {
  CrlError,
  MAX_CRL_BYTES,
  SIGNATURE_ALGORITHMS,
  serialKey,
  type Crl,
  type CrlScope,
  type RevokedCertificate,
  type SignatureAlgorithm,
} from './crl-types.js';

/** RFC 5280 §4.1.2.2 allows 20 octets; real CAs have shipped a few more, hostile input many more. */
const MAX_SERIAL_BYTES = 64;
/** PEM blocks one file may hold. */
const MAX_PEM_BLOCKS = 64;

const OID = {
  CRL_NUMBER: '2.5.29.20',
  DELTA_CRL_INDICATOR: '2.5.29.27',
  ISSUING_DISTRIBUTION_POINT: '2.5.29.28',
  AUTHORITY_KEY_IDENTIFIER: '2.5.29.35',
  FRESHEST_CRL: '2.5.29.46',
  AUTHORITY_INFO_ACCESS: '1.3.6.1.5.5.7.1.1',
} as const;

/** CRL extensions we read or may safely ignore; any other critical one makes the CRL unusable (§5.2). */
const KNOWN_CRL_EXTENSIONS: ReadonlySet<string> = new Set([
  OID.CRL_NUMBER,
  OID.ISSUING_DISTRIBUTION_POINT,
  OID.AUTHORITY_KEY_IDENTIFIER,
  OID.FRESHEST_CRL,
  OID.AUTHORITY_INFO_ACCESS,
]);

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
    if (body.length === 0 || body.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(body))
      throw new CrlError(`${where}: the PEM body is not base64`);
    return parseCrl(Buffer.from(body, 'base64'), where);
  });
}

function readCertificateList(bytes: Buffer, label: string): Crl {
  // The library (@peculiar/asn1-x509) reads BER and keeps no encodings but the signed part's, so two
  // things stay with the attestation's ASN.1 reader (asn1.ts): that the file is one strict DER value,
  // and the exact form of each time, which RFC 5280 fixes and the library turns into a Date regardless.
  const outer = sequenceOf(readDer(bytes), 'CertificateList');
  if (outer.length !== 3) throw new Asn1Error('CertificateList must have three fields');
  let list: CertificateList;
  try {
    list = AsnConvert.parse(bytes, CertificateList);
  } catch (err) {
    throw new CrlError(`${label} is not a DER X.509 CRL (${err instanceof Error ? err.message : String(err)})`);
  }
  const tbs = list.tbsCertList;
  const algorithm = signatureAlgorithmOf(list.signatureAlgorithm, label);
  // The signature BIT STRING must hold whole octets (the library drops the unused-bits count).
  const { unusedBits } = decodeBitString(outer[2]);
  const signature = Buffer.from(list.signature);
  if (unusedBits !== 0 || signature.length === 0)
    throw new Asn1Error('the signature BIT STRING must hold whole, non-empty octets');
  // Present only as v2 (INTEGER 1), RFC 5280 §5.1.2.1.
  if (tbs.version !== undefined && tbs.version !== Version.v2)
    throw new CrlError(`${label}: version must be v2 when present`);
  const version: 1 | 2 = tbs.version === undefined ? 1 : 2;
  // §5.1.1.2: the algorithm inside the signed part must be the one outside it, or a swap goes unnoticed.
  if (
    !Buffer.from(AsnConvert.serialize(tbs.signature)).equals(Buffer.from(AsnConvert.serialize(list.signatureAlgorithm)))
  ) {
    throw new CrlError(`${label}: the signature algorithm inside tbsCertList differs from signatureAlgorithm`);
  }
  const signed = Buffer.from(list.tbsCertListRaw ?? AsnConvert.serialize(tbs));
  // The times as encoded: thisUpdate and nextUpdate follow the version (when present), signature and issuer.
  const fields = sequenceOf(readDer(signed), 'TBSCertList');
  const first = version === 2 ? 3 : 2;
  const thisUpdate = readTime(fields[first], 'thisUpdate');
  const nextUpdate = tbs.nextUpdate === undefined ? null : readTime(fields[first + 1], 'nextUpdate');
  const revokedNode = tbs.revokedCertificates === undefined ? undefined : fields[first + (nextUpdate === null ? 1 : 2)];
  const revoked = readRevoked(
    tbs.revokedCertificates ?? [],
    revokedNode ? sequenceOf(revokedNode, 'revokedCertificates') : [],
  );
  let extensions: CrlExtensions = { crlNumber: null, scope: 'all' };
  if (tbs.crlExtensions !== undefined) {
    if (version !== 2) throw new CrlError(`${label}: a v1 CRL cannot carry extensions`);
    extensions = readCrlExtensions(tbs.crlExtensions, label);
  }
  if (nextUpdate && nextUpdate.getTime() < thisUpdate.getTime())
    throw new CrlError(`${label}: nextUpdate is before thisUpdate`);
  const issuer = Buffer.from(AsnConvert.serialize(tbs.issuer));

  return {
    label,
    der: bytes,
    version,
    issuer,
    issuerText: nameText(issuer),
    thisUpdate,
    nextUpdate,
    crlNumber: extensions.crlNumber,
    scope: extensions.scope,
    revoked,
    signatureAlgorithm: algorithm.name,
    tbs: signed,
    signature,
  };
}

function signatureAlgorithmOf(identifier: AlgorithmIdentifier, label: string): SignatureAlgorithm {
  const algorithm = SIGNATURE_ALGORITHMS[identifier.algorithm];
  if (!algorithm)
    throw new CrlError(
      `${label}: signature algorithm ${identifier.algorithm} is not supported (ECDSA or RSA PKCS#1 v1.5 with SHA-256/384/512, Ed25519)`,
    );
  // RSA PKCS#1 v1.5 carries NULL parameters (RFC 4055 §5; absent is tolerated); ECDSA and Ed25519 none.
  const parameters = identifier.parameters == null ? undefined : Buffer.from(identifier.parameters);
  const nullOk = algorithm.kind === 'rsa' && parameters !== undefined && parameters.equals(NULL_DER);
  if (parameters !== undefined && !nullOk) throw new CrlError(`${label}: ${algorithm.name} has unexpected parameters`);
  return algorithm;
}

const NULL_DER = Buffer.from([0x05, 0x00]);

function isTime(node: Asn1Node): boolean {
  return isUniversal(node, TAG.UTC_TIME) || isUniversal(node, TAG.GENERALIZED_TIME);
}

/** UTCTime YYMMDDHHMMSSZ or GeneralizedTime YYYYMMDDHHMMSSZ, the only forms RFC 5280 §5.1.2.4 allows. */
function readTime(node: Asn1Node | undefined, what: string): Date {
  if (!node || !isTime(node) || node.constructed) throw new Asn1Error(`expected ${what} (UTCTime or GeneralizedTime)`);
  const text = node.value.toString('latin1');
  const utc = isUniversal(node, TAG.UTC_TIME);
  const m = (
    utc ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/ : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/
  ).exec(text);
  if (!m) throw new Asn1Error(`${what} is not ${utc ? 'YYMMDDHHMMSSZ' : 'YYYYMMDDHHMMSSZ'}`);
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fullYear = utc ? (year >= 50 ? 1900 + year : 2000 + year) : year;
  const date = new Date(Date.UTC(fullYear, month - 1, day, hour, minute, second));
  // Date.UTC rolls 31 February over into March: a round trip catches impossible dates.
  if (
    date.getUTCFullYear() !== fullYear ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    date.getUTCHours() !== hour ||
    date.getUTCMinutes() !== minute ||
    date.getUTCSeconds() !== second
  ) {
    throw new Asn1Error(`${what} is not a valid date`);
  }
  return date;
}

/** The library's entries, with each revocation date read strictly from its encoding (`nodes`, in order). */
function readRevoked(
  entries: readonly ListedCertificate[],
  nodes: readonly Asn1Node[],
): Map<string, RevokedCertificate> {
  if (entries.length !== nodes.length) throw new Asn1Error('malformed revokedCertificates');
  const out = new Map<string, RevokedCertificate>();
  entries.forEach((entry, i) => {
    // The serial's content octets as written: CAs have listed serials with redundant leading zeros, and
    // the comparison (serialKey) ignores them anyway.
    const content = Buffer.from(entry.userCertificate);
    if (content.length === 0 || content.length > MAX_SERIAL_BYTES)
      throw new Asn1Error('a revoked serial number is empty or too long');
    const serial = serialKey(content);
    const dateNode = sequenceOf(nodes[i], 'a revokedCertificates entry')[1];
    if (!out.has(serial)) out.set(serial, { serial, revocationDate: readTime(dateNode, 'revocationDate') });
  });
  return out;
}

interface CrlExtensions {
  readonly crlNumber: bigint | null;
  readonly scope: CrlScope;
}

function readCrlExtensions(list: readonly Extension[], label: string): CrlExtensions {
  const seen = new Set<string>();
  let crlNumber: bigint | null = null;
  let scope: CrlScope = 'all';
  for (const extension of list) {
    const oid = extension.extnID;
    const value = Buffer.from(extension.extnValue.buffer);
    if (seen.has(oid)) throw new CrlError(`${label}: extension ${oid} appears more than once`);
    seen.add(oid);
    if (oid === OID.DELTA_CRL_INDICATOR) throw new CrlError(`${label} is a delta CRL; give the complete CRL`);
    if (oid === OID.CRL_NUMBER) crlNumber = decodeInteger(readDer(value));
    else if (oid === OID.ISSUING_DISTRIBUTION_POINT) scope = readIssuingDistributionPoint(value, label);
    else if (extension.critical && !KNOWN_CRL_EXTENSIONS.has(oid))
      throw new CrlError(`${label}: critical extension ${oid} is not understood, so the CRL cannot be used`);
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
    if (field.tagNumber === 3)
      throw new CrlError(`${label} covers only some revocation reasons (onlySomeReasons); give a complete CRL`);
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
