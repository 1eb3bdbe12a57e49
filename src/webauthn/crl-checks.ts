// What the revocation policy (metadata/revocation.ts) asks of a parsed CRL (crl.ts) and of the
// certificates it is checked against: the signature, currency and scope of a CRL, whether it lists a
// certificate, whether its issuer is the certificate's issuer and may sign CRLs, and where a
// certificate's CRL is published. Pure: the CRLs and certificates are given.

import { constants, verify, type KeyObject, type X509Certificate } from 'node:crypto';
import { Asn1Error, children, decodeBitString, isContext, readDer, readNode, sequenceOf } from './asn1.js';
import { certificateParts, decodeName, findExtension } from './x509.js';
import { SIGNATURE_ALGORITHMS, serialKey, type Crl, type CrlScope, type RevokedCertificate } from './crl.js';

const OID_KEY_USAGE = '2.5.29.15';
const OID_CRL_DISTRIBUTION_POINTS = '2.5.29.31';

/** Does the CRL's signature verify with `key` (the issuer certificate's public key)? */
export function verifyCrlSignature(crl: Crl, key: KeyObject): boolean {
  const algorithm = Object.values(SIGNATURE_ALGORITHMS).find((a) => a.name === crl.signatureAlgorithm);
  if (!algorithm) return false;
  const expectedKey = algorithm.kind === 'ecdsa' ? 'ec' : algorithm.kind === 'rsa' ? 'rsa' : 'ed25519';
  if (key.asymmetricKeyType !== expectedKey) return false;
  try {
    if (algorithm.kind === 'rsa')
      return verify(algorithm.hash, crl.tbs, { key, padding: constants.RSA_PKCS1_PADDING }, crl.signature);
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
    const norm = (der: Uint8Array) =>
      decodeName(readDer(Buffer.from(der)), { lenientLengths: true })
        .map(({ oid, value }) => `${oid}=${value.trim().replace(/\s+/g, ' ').toLowerCase()}`)
        .join('\n');
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
    const usage = findExtension(issuer, OID_KEY_USAGE);
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
    const extension = findExtension(cert, OID_CRL_DISTRIBUTION_POINTS);
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
