// X.509 certification paths for attestation (RFC 5280 §6, simplified to what attestation needs):
// the leaf is x5c[0]; the other certificates may come in any order; the path ends at a trust anchor
// (trusted) or at a certificate nobody given here issued (untrusted, which policy may still accept).
// Every way a chain is broken has its own error name, so an integrator learns what to fix. Reading one
// certificate (parseCertificate): x509.ts.

import type { X509Certificate } from 'node:crypto';
import { FidoError } from '../errors/catalogue.js';
import {
  Asn1Error,
  children,
  decodeBitString,
  decodeBoolean,
  decodeSmallInteger,
  isUniversal,
  readDer,
  readNode,
  TAG,
} from './asn1.js';
import { findExtension } from './x509.js';

/** More certificates than this in one path is hostile input, not a real attestation. */
const MAX_PATH = 8;

// --- validity ---

/**
 * Throws CERTIFICATE_EXPIRED / CERTIFICATE_NOT_YET_VALID unless `now` lies in the validity period, and
 * CERTIFICATE_UNREADABLE when a date cannot be read (OpenSSL then prints "Bad time value", which parses to
 * NaN and would compare as within any period).
 */
export function checkValidity(cert: X509Certificate, now: Date, label: string): void {
  const t = now.getTime();
  const from = validityDate(cert.validFrom, label, 'notBefore');
  const to = validityDate(cert.validTo, label, 'notAfter');
  if (t < from)
    throw new FidoError('CERTIFICATE_NOT_YET_VALID', `${label} is valid from ${new Date(from).toISOString()}`);
  if (t > to) throw new FidoError('CERTIFICATE_EXPIRED', `${label} expired ${new Date(to).toISOString()}`);
}

function validityDate(text: string, label: string, field: string): number {
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new FidoError('CERTIFICATE_UNREADABLE', `the ${field} date of ${label} cannot be read`);
  return time;
}

// --- issuer checks ---

interface CaConstraints {
  readonly ca: boolean;
  readonly pathLength: number | undefined;
  /** false when keyUsage is present without keyCertSign. */
  readonly mayCertify: boolean;
}

function caConstraints(cert: X509Certificate): CaConstraints {
  try {
    const basic = findExtension(cert, '2.5.29.19');
    let ca = false;
    let pathLength: number | undefined;
    if (basic) {
      const fields = children(readDer(basic.value, { lenientLengths: true }), { lenientLengths: true });
      let i = 0;
      if (fields[i] && isUniversal(fields[i]!, TAG.BOOLEAN)) ca = decodeBoolean(fields[i++]);
      if (fields[i]) pathLength = decodeSmallInteger(fields[i]);
    }
    const usage = findExtension(cert, '2.5.29.15');
    let mayCertify = true;
    if (usage) {
      const { bytes } = decodeBitString(readNode(usage.value, 0, { lenientLengths: true }).node);
      mayCertify = ((bytes[0] ?? 0) & 0x04) !== 0; // bit 5 = keyCertSign
    }
    return { ca, pathLength, mayCertify };
  } catch (err) {
    if (err instanceof Asn1Error)
      throw new FidoError(
        'CERTIFICATE_UNREADABLE',
        `the extensions of ${cert.subject.replace(/\n/g, ', ')} are malformed`,
      );
    throw err;
  }
}

/**
 * The basic constraints CA flag as the certificate states it. Unlike X509Certificate.ca (OpenSSL's
 * X509_check_ca), it does not depend on key usage, so "CA must be false" checks see what was claimed.
 */
export function claimsCa(cert: X509Certificate): boolean {
  return caConstraints(cert).ca;
}

/** Names chain: OpenSSL's check (names, key identifiers, key usage), or at least equal issuer/subject text. */
function namesChain(child: X509Certificate, issuer: X509Certificate): boolean {
  return child.checkIssued(issuer) || child.issuer === issuer.subject;
}

function signatureVerifies(child: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return child.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function isSelfIssued(cert: X509Certificate): boolean {
  return cert.issuer === cert.subject && signatureVerifies(cert, cert);
}

/**
 * `issuer` may issue the certificate at `depth` (0 = leaf): a CA whose key usage allows certificate
 * signing and whose path length constraint leaves room for the `depth - 1` intermediates below it.
 */
function checkIssuerMayIssue(issuer: X509Certificate, depth: number, label: string): void {
  const constraints = caConstraints(issuer);
  if (!constraints.ca) throw new FidoError('CERTIFICATE_ISSUER_NOT_CA', `${label} is not a CA (basic constraints)`);
  if (!constraints.mayCertify)
    throw new FidoError('CERTIFICATE_ISSUER_NOT_CA', `${label} key usage does not allow certificate signing`);
  if (constraints.pathLength !== undefined && depth - 1 > constraints.pathLength) {
    throw new FidoError(
      'CERTIFICATE_ISSUER_NOT_CA',
      `${label} allows ${constraints.pathLength} intermediate certificates below it, the path has ${depth - 1}`,
    );
  }
}

// --- path building ---

export interface PathOptions {
  /**
   * The format sends its root as the last x5c element (android-key on devices provisioned at the
   * factory). Otherwise a chain that carries its trust anchor is refused (FIDO conformance: x5c must not
   * include the root).
   */
  readonly rootMaySend?: boolean;
}

export interface CertificatePath {
  /** Leaf first, as far as the given certificates reach (the anchor itself is not included unless sent). */
  readonly path: readonly X509Certificate[];
  /** The trust anchor the path ends at, or undefined when it ends at an unknown issuer. */
  readonly anchor: X509Certificate | undefined;
}

/**
 * Builds the path from `x5c[0]` through the other certificates (any order, exact duplicates ignored)
 * towards one of `anchors`, checking validity at `now`, every signature and every issuer's CA rights.
 * Ending at an unknown issuer is not an error (anchor undefined); a certificate of x5c left unused is
 * (CERTIFICATE_ISSUER_NOT_FOUND), as is every broken link.
 */
export function buildPath(
  x5c: readonly X509Certificate[],
  anchors: readonly X509Certificate[],
  now: Date,
  options: PathOptions = {},
): CertificatePath {
  const [leaf] = x5c;
  if (!leaf) throw new FidoError('CERTIFICATE_ISSUER_NOT_FOUND', 'the certificate chain is empty');
  if (x5c.length > MAX_PATH) throw new FidoError('CERTIFICATE_ISSUER_NOT_FOUND', `more than ${MAX_PATH} certificates`);
  const label = (cert: X509Certificate) => `x5c[${x5c.indexOf(cert)}]`;
  const pool = new Map<string, X509Certificate>();
  for (const cert of x5c.slice(1)) {
    if (cert.fingerprint256 !== leaf.fingerprint256 && !pool.has(cert.fingerprint256))
      pool.set(cert.fingerprint256, cert);
  }
  const anchorByFingerprint = new Map(anchors.map((a) => [a.fingerprint256, a]));
  const path: X509Certificate[] = [leaf];
  checkValidity(leaf, now, 'x5c[0] (the attestation certificate)');
  let anchor: X509Certificate | undefined;

  for (;;) {
    const current = path[path.length - 1]!;
    const depth = path.length; // how deep an issuer of `current` sits (leaf = 0)
    const sameAsAnchor = anchorByFingerprint.get(current.fingerprint256);
    if (sameAsAnchor) {
      // Reached an anchor that was sent: a "self batch" leaf the metadata lists as its own root, an
      // intermediate that metadata lists as a root, or a sent self-signed root (refused unless the format
      // is known to send it).
      if (path.length > 1 && !options.rootMaySend && isSelfIssued(current)) {
        throw new FidoError(
          'CERTIFICATE_CHAIN_INCLUDES_ROOT',
          `${label(current)} is the trust anchor; x5c must not include it`,
        );
      }
      anchor = sameAsAnchor;
      break;
    }
    const fromPool = [...pool.values()].filter((c) => namesChain(current, c));
    const fromAnchors = anchors.filter((a) => namesChain(current, a));
    const poolIssuer = fromPool.find((c) => signatureVerifies(current, c));
    if (poolIssuer) {
      checkIssuerMayIssue(poolIssuer, depth, label(poolIssuer));
      checkValidity(poolIssuer, now, label(poolIssuer));
      pool.delete(poolIssuer.fingerprint256);
      path.push(poolIssuer);
      continue;
    }
    const anchorIssuer = fromAnchors.find((a) => signatureVerifies(current, a));
    if (anchorIssuer) {
      checkIssuerMayIssue(anchorIssuer, depth, `the trust anchor ${anchorIssuer.subject.replace(/\n/g, ', ')}`);
      checkValidity(anchorIssuer, now, `the trust anchor ${anchorIssuer.subject.replace(/\n/g, ', ')}`);
      anchor = anchorIssuer;
      break;
    }
    if (fromPool[0]) {
      throw new FidoError(
        'CERTIFICATE_SIGNATURE_INVALID',
        `${label(current)} names ${label(fromPool[0])} as issuer, but the signature does not verify`,
      );
    }
    // An unknown issuer, a self-signed root nobody configured, or an anchor that only shares the issuer's
    // name (another key): the path ends untrusted, which only requireTrusted refuses.
    break;
  }
  if (pool.size > 0) {
    const unused = [...pool.values()].map(label).join(', ');
    throw new FidoError(
      'CERTIFICATE_ISSUER_NOT_FOUND',
      `${unused} ${pool.size === 1 ? 'is' : 'are'} not part of the chain from x5c[0]`,
    );
  }
  return { path, anchor };
}

// --- the first versions' API (kept: callers use them) ---

/**
 * Checks an ordered path without anchors: each certificate valid at `now` and issued by the next,
 * which must be a CA. Throws the precise CERTIFICATE_* name.
 */
export function verifyPathInternals(path: readonly X509Certificate[], now: Date): void {
  if (path.length === 0) throw new FidoError('CERTIFICATE_ISSUER_NOT_FOUND', 'empty certificate path');
  for (const [i, cert] of path.entries()) {
    checkValidity(cert, now, `certificate ${i}`);
    const parent = path[i + 1];
    if (!parent) continue;
    if (!namesChain(cert, parent))
      throw new FidoError('CERTIFICATE_ISSUER_NOT_FOUND', `certificate ${i} is not issued by certificate ${i + 1}`);
    if (!signatureVerifies(cert, parent))
      throw new FidoError('CERTIFICATE_SIGNATURE_INVALID', `certificate ${i} is not signed by certificate ${i + 1}`);
    checkIssuerMayIssue(parent, i + 1, `certificate ${i + 1}`);
  }
}

/**
 * The anchor an (already internally verified) ordered path leads to, or undefined. The leaf itself may
 * be an anchor (a "self batch" certificate); a longer path that carries an anchor is refused.
 */
export function findAnchor(
  path: readonly X509Certificate[],
  anchors: readonly X509Certificate[],
  now: Date,
): X509Certificate | undefined {
  const top = path[path.length - 1];
  if (!top) return undefined;
  const same = anchors.find((a) => a.fingerprint256 === top.fingerprint256);
  if (same) {
    if (path.length === 1) return same;
    throw new FidoError('CERTIFICATE_CHAIN_INCLUDES_ROOT', 'the chain must not include the trust anchor');
  }
  const issuer = anchors.find((a) => namesChain(top, a) && signatureVerifies(top, a));
  if (!issuer) return undefined;
  checkIssuerMayIssue(issuer, path.length, 'the trust anchor');
  checkValidity(issuer, now, 'the trust anchor');
  return issuer;
}
