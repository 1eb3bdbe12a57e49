// X.509 certification path checks for attestation (node:crypto X509Certificate).
// Minimal first version: issue #4 extends it (unordered intermediates, DER quirks, per-failure names).

import type { X509Certificate } from 'node:crypto';
import { FidoError } from '../errors.js';

function validAt(cert: X509Certificate, now: Date): boolean {
  const t = now.getTime();
  return Date.parse(cert.validFrom) <= t && t <= Date.parse(cert.validTo);
}

function signedBy(child: X509Certificate, parent: X509Certificate): boolean {
  return child.checkIssued(parent) && child.verify(parent.publicKey);
}

/**
 * Checks what can be checked without trust anchors: every certificate valid at `now`, and each one
 * issued and signed by the next, which must be a CA (x5c is leaf first). Throws CERTIFICATE_PATH_VALIDATION_FAIL.
 */
export function verifyPathInternals(path: readonly X509Certificate[], now: Date): void {
  if (path.length === 0) throw new FidoError('CERTIFICATE_PATH_VALIDATION_FAIL', 'empty certificate path');
  for (const [i, cert] of path.entries()) {
    if (!validAt(cert, now)) throw new FidoError('CERTIFICATE_PATH_VALIDATION_FAIL', `certificate ${i} is not valid at the ceremony time`);
    const parent = path[i + 1];
    if (parent && !(parent.ca && signedBy(cert, parent))) {
      throw new FidoError('CERTIFICATE_PATH_VALIDATION_FAIL', `certificate ${i} is not issued by certificate ${i + 1}`);
    }
  }
}

/**
 * Finds the anchor that the (already internally verified) path leads to, or undefined.
 * The leaf itself may be a listed anchor (a "self batch" certificate); a path that carries a CA anchor
 * as its last element is refused, because x5c must not include the root.
 */
export function findAnchor(
  path: readonly X509Certificate[],
  anchors: readonly X509Certificate[],
  now: Date,
): X509Certificate | undefined {
  const top = path[path.length - 1];
  if (!top) return undefined;
  for (const anchor of anchors) {
    if (top.fingerprint256 === anchor.fingerprint256) {
      if (path.length === 1) return anchor;
      throw new FidoError('CERTIFICATE_PATH_VALIDATION_FAIL', 'the chain must not include the trust anchor');
    }
  }
  return anchors.find((anchor) => validAt(anchor, now) && signedBy(top, anchor));
}
