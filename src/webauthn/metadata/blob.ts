// Verifies and reads a FIDO MDS3 BLOB (FIDO Metadata Service v3.0 §3.2): a JWS in compact serialization
// whose header carries the signing chain in x5c. The chain must lead to a configured MDS root (the real
// service's is bundled); the signature must verify with the first certificate; when the operator gave
// CRLs, no certificate of the chain may be revoked (revocation.ts). Pure: bytes in, facts out.

import { constants, createHash, verify, type KeyObject, type X509Certificate } from 'node:crypto';
import { FidoError } from '../../errors/catalogue.js';
import { decodeBase64url } from '../../util/base64url.js';
import { decodeBitString, readDer, sequenceOf } from '../asn1.js';
import { buildPath } from '../certificates.js';
import { certificatePublicKey, parseCertificate, repairedCertificateDer } from '../x509.js';
import type { Crl } from '../crl.js';
import { checkChainRevocation } from './revocation.js';
import type { MetadataBlob, MetadataEntry, StatusReport } from './types.js';

/** JWS algorithms (RFC 7518 §3.1) a BLOB may be signed with. */
const JWS_ALGORITHMS: Record<string, { hash: string; kind: 'rsa' | 'pss' | 'ecdsa' }> = {
  RS256: { hash: 'sha256', kind: 'rsa' },
  RS384: { hash: 'sha384', kind: 'rsa' },
  RS512: { hash: 'sha512', kind: 'rsa' },
  PS256: { hash: 'sha256', kind: 'pss' },
  PS384: { hash: 'sha384', kind: 'pss' },
  PS512: { hash: 'sha512', kind: 'pss' },
  ES256: { hash: 'sha256', kind: 'ecdsa' },
  ES384: { hash: 'sha384', kind: 'ecdsa' },
  ES512: { hash: 'sha512', kind: 'ecdsa' },
};

const AAGUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_ID = /^[0-9a-f]{40}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function invalid(detail: string): FidoError {
  return new FidoError('METADATA_BLOB_INVALID', detail);
}

export interface CompactJws {
  readonly header: Record<string, unknown>;
  readonly payload: unknown;
  readonly signingInput: Buffer;
  readonly signature: Buffer;
}

/** Splits and decodes a JWS compact serialization (strict base64url, JSON objects), without verifying it. */
export function decodeCompactJws(text: string, fail: (detail: string) => FidoError): CompactJws {
  const parts = text.trim().split('.');
  if (parts.length !== 3) throw fail('not a JWS compact serialization (three dot-separated parts)');
  const [h = '', p = '', s = ''] = parts;
  const bytes = [h, p, s].map((part) => decodeBase64url(part));
  const [headerBytes, payloadBytes, signature] = bytes;
  if (!headerBytes || !payloadBytes || !signature || signature.length === 0) throw fail('a JWS part is not base64url');
  const json = (buf: Buffer, what: string): unknown => {
    try {
      return JSON.parse(buf.toString('utf8'));
    } catch {
      throw fail(`the JWS ${what} is not JSON`);
    }
  };
  const header = json(headerBytes, 'header');
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    throw fail('the JWS header is not a JSON object');
  return {
    header: header as Record<string, unknown>,
    payload: json(payloadBytes, 'payload'),
    signingInput: Buffer.from(`${h}.${p}`, 'ascii'),
    signature,
  };
}

/** Verifies a JWS signature with `key` for `alg` (ECDSA signatures are r‖s, RFC 7518 §3.4). */
export function verifyJwsSignature(alg: string, key: KeyObject, signingInput: Buffer, signature: Buffer): boolean {
  const entry = JWS_ALGORITHMS[alg];
  if (!entry) return false;
  try {
    switch (entry.kind) {
      case 'rsa':
        return verify(entry.hash, signingInput, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
      case 'pss':
        return verify(
          entry.hash,
          signingInput,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
          signature,
        );
      case 'ecdsa':
        return verify(entry.hash, signingInput, { key, dsaEncoding: 'ieee-p1363' }, signature);
    }
  } catch {
    return false;
  }
}

export function isSupportedJwsAlgorithm(alg: unknown): alg is string {
  return typeof alg === 'string' && Object.hasOwn(JWS_ALGORITHMS, alg);
}

/** The x5c of a JWS header: standard base64 DER certificates (RFC 7515 §4.1.6), leaf first. */
export function headerCertificates(
  header: Record<string, unknown>,
  fail: (detail: string) => FidoError,
): X509Certificate[] {
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0) throw fail('the JWS header has no x5c certificate chain');
  if (x5c.length > 8) throw fail('the JWS header x5c is too long');
  return x5c.map((item, i) => {
    if (typeof item !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(item)) throw fail(`x5c[${i}] is not base64`);
    try {
      return parseCertificate(Buffer.from(item, 'base64'), `x5c[${i}]`);
    } catch (err) {
      if (err instanceof FidoError) throw fail(err.detail ?? err.message);
      throw err;
    }
  });
}

export interface VerifyBlobOptions {
  /**
   * The CRLs of the signing chain (parsed operator files). Absent or empty: revocation is not checked.
   * Given: every certificate of the path except the anchor needs a current CRL of its issuer, and none
   * may be listed (METADATA_BLOB_CERTIFICATE_REVOKED, METADATA_BLOB_CRL_MISSING, METADATA_BLOB_CRL_INVALID).
   */
  readonly crls?: readonly Crl[];
}

/**
 * Verifies the BLOB's signature and certificate chain (to one of `roots`, valid at `now`; not revoked
 * when CRLs are given) and reads its payload. Throws METADATA_BLOB_SIGNATURE_INVALID, METADATA_BLOB_INVALID
 * or a revocation error. A stale BLOB (past nextUpdate) is returned as is: the trust evaluator decides
 * what staleness means.
 */
export function verifyMetadataBlob(
  jwt: string,
  roots: readonly X509Certificate[],
  now: Date,
  options: VerifyBlobOptions = {},
): MetadataBlob {
  const jws = decodeCompactJws(jwt, invalid);
  const alg = jws.header.alg;
  if (!isSupportedJwsAlgorithm(alg))
    throw new FidoError('METADATA_BLOB_SIGNATURE_INVALID', `unsupported JWS alg ${JSON.stringify(alg)}`);
  const chain = headerCertificates(jws.header, invalid);
  let built: ReturnType<typeof buildPath>;
  try {
    built = buildPath(chain, roots, now);
  } catch (err) {
    if (err instanceof FidoError)
      throw new FidoError(
        'METADATA_BLOB_SIGNATURE_INVALID',
        `signing chain: ${err.code}${err.detail ? ` (${err.detail})` : ''}`,
      );
    throw err;
  }
  const { anchor, path } = built;
  if (!anchor)
    throw new FidoError('METADATA_BLOB_SIGNATURE_INVALID', 'the signing chain does not lead to a configured MDS root');
  if (!verifyJwsSignature(alg, certificatePublicKey(chain[0]!), jws.signingInput, jws.signature)) {
    throw new FidoError(
      'METADATA_BLOB_SIGNATURE_INVALID',
      'the BLOB signature does not verify with its signing certificate',
    );
  }
  const crls = options.crls ?? [];
  if (crls.length > 0) checkChainRevocation(path, anchor, crls, now);
  const signingPath = path.filter((cert) => cert.fingerprint256 !== anchor.fingerprint256);
  return { ...readPayload(jws.payload), signingPath, revocationChecked: crls.length > 0 };
}

function readPayload(payload: unknown): Omit<MetadataBlob, 'signingPath' | 'revocationChecked'> {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw invalid('the payload is not a JSON object');
  const p = payload as Record<string, unknown>;
  if (typeof p.no !== 'number' || !Number.isSafeInteger(p.no) || p.no < 0)
    throw invalid('"no" must be a non-negative integer');
  if (typeof p.nextUpdate !== 'string') throw invalid('"nextUpdate" is missing');
  const staleAfter = dayAfter(p.nextUpdate);
  if (staleAfter === undefined) throw invalid('"nextUpdate" is not a YYYY-MM-DD date');
  if (!Array.isArray(p.entries)) throw invalid('"entries" must be an array');
  const entries = p.entries.map((entry, i) => readEntry(entry, i));
  return {
    serial: p.no,
    staleAfter,
    nextUpdate: p.nextUpdate,
    legalHeader: typeof p.legalHeader === 'string' ? p.legalHeader : '',
    entries,
  };
}

function dayAfter(text: string): number | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1);
  return Number.isNaN(t) ? undefined : t;
}

function readEntry(value: unknown, i: number): MetadataEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(`entries[${i}] is not an object`);
  const e = value as Record<string, unknown>;
  const statement =
    typeof e.metadataStatement === 'object' && e.metadataStatement !== null
      ? (e.metadataStatement as Record<string, unknown>)
      : {};
  const aaguidText =
    typeof e.aaguid === 'string' ? e.aaguid : typeof statement.aaguid === 'string' ? statement.aaguid : null;
  const aaguid = aaguidText === null ? null : aaguidText.toLowerCase();
  if (aaguid !== null && !AAGUID.test(aaguid)) throw invalid(`entries[${i}].aaguid is not a dashed UUID`);
  const keyIds = stringArray(
    e.attestationCertificateKeyIdentifiers ?? statement.attestationCertificateKeyIdentifiers,
    `entries[${i}].attestationCertificateKeyIdentifiers`,
  ).map((id) => id.toLowerCase());
  for (const id of keyIds)
    if (!KEY_ID.test(id)) throw invalid(`entries[${i}] has a key identifier that is not 40 hex digits`);
  if (!Array.isArray(e.statusReports)) throw invalid(`entries[${i}].statusReports must be an array`);
  const statusReports = e.statusReports.map((report, j) =>
    readStatusReport(report, `entries[${i}].statusReports[${j}]`),
  );
  const attestationRoots = stringArray(
    statement.attestationRootCertificates,
    `entries[${i}].metadataStatement.attestationRootCertificates`,
  ).flatMap((b64) => {
    try {
      return [parseCertificate(Buffer.from(b64, 'base64'))];
    } catch {
      return []; // one unreadable root in a statement must not disable the whole BLOB
    }
  });
  return {
    aaguid,
    attestationCertificateKeyIdentifiers: keyIds,
    description: typeof statement.description === 'string' ? statement.description : null,
    attestationTypes: stringArray(statement.attestationTypes, `entries[${i}].metadataStatement.attestationTypes`),
    attestationRoots,
    statusReports,
    raw: e,
  };
}

function stringArray(value: unknown, what: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw invalid(`${what} must be an array of strings`);
  return value as string[];
}

function readStatusReport(value: unknown, what: string): StatusReport {
  if (typeof value !== 'object' || value === null) throw invalid(`${what} is not an object`);
  const r = value as Record<string, unknown>;
  if (typeof r.status !== 'string' || r.status === '') throw invalid(`${what}.status is missing`);
  let effectiveDate: number | null = null;
  if (r.effectiveDate !== undefined) {
    const next = typeof r.effectiveDate === 'string' ? dayAfter(r.effectiveDate) : undefined;
    if (next === undefined) throw invalid(`${what}.effectiveDate is not a YYYY-MM-DD date`);
    effectiveDate = next - 86_400_000;
  }
  // Kept as the chain's certificates are parsed (repaired signature bits), so that the two compare equal.
  const certificate =
    typeof r.certificate === 'string' && r.certificate !== ''
      ? repairedCertificateDer(Buffer.from(r.certificate, 'base64'))
      : null;
  return { status: r.status, effectiveDate, certificate };
}

/** SHA-1 key identifier (lower-case hex) of a certificate's subjectPublicKey, as MDS lists U2F keys. */
export function attestationKeyIdentifier(cert: X509Certificate): string {
  const spki = certificatePublicKey(cert).export({ type: 'spki', format: 'der' });
  return createHash('sha1').update(subjectPublicKeyBits(spki)).digest('hex');
}

/** The subjectPublicKey BIT STRING contents (without the unused-bits octet) of a DER SubjectPublicKeyInfo. */
function subjectPublicKeyBits(spki: Buffer): Buffer {
  // SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }
  const [, bits] = sequenceOf(readDer(spki), 'SubjectPublicKeyInfo');
  return decodeBitString(bits).bytes;
}
