// Revocation of the MDS3 BLOB's signing chain (FIDO Metadata Service v3.0 §3.2: the BLOB's certificates
// must be checked against their CRLs; conformance cases F-5, F-6) with CRLs the operator supplies next to
// the BLOB (`attestation.metadataCrls`). Every certificate of the built path except the trust anchor must
// be covered by a current CRL of its issuer, and listed on none. Pure: the CRLs arrive parsed.

import type { X509Certificate } from 'node:crypto';
import { FidoError } from '../../errors/catalogue.js';
import { Asn1Error } from '../asn1.js';
import { claimsCa } from '../certificates.js';
import type { Crl } from '../crl.js';
import {
  certificateIssuerName,
  crlDistributionPoints,
  crlTimeStatus,
  findRevoked,
  mayIssueCrls,
  sameName,
  scopeCovers,
  verifyCrlSignature,
  type CrlTimeStatus,
} from '../crl-checks.js';

/** One certificate of the path and the certificate that issued it (the next one, or the anchor). */
interface Link {
  readonly cert: X509Certificate;
  readonly issuer: X509Certificate;
  /** "the leaf certificate CN=…, serial …" / "the intermediate certificate …", for messages. */
  readonly label: string;
  readonly isCa: boolean;
  readonly issuerName: Buffer;
}

function subjectText(cert: X509Certificate): string {
  return cert.subject.replace(/\n/g, ', ');
}

function links(path: readonly X509Certificate[], anchor: X509Certificate): Link[] {
  // buildPath's path ends with the anchor itself when it was sent (an intermediate configured as a root):
  // the anchor is trusted as configured, so its revocation is not ours to check.
  const covered = path.filter((cert) => cert.fingerprint256 !== anchor.fingerprint256);
  return covered.map((cert, i) => {
    let issuerName: Buffer;
    let isCa: boolean;
    try {
      issuerName = certificateIssuerName(cert);
      isCa = claimsCa(cert);
    } catch (err) {
      if (err instanceof Asn1Error || err instanceof FidoError) {
        throw new FidoError(
          'METADATA_BLOB_INVALID',
          `the signing certificate ${subjectText(cert)} cannot be read for revocation checking`,
        );
      }
      throw err;
    }
    const role = i === 0 ? 'leaf' : 'intermediate';
    return {
      cert,
      issuer: path[i + 1] ?? anchor,
      label: `the ${role} certificate ${subjectText(cert)} (serial ${cert.serialNumber})`,
      isCa,
      issuerName,
    };
  });
}

/** The CRLs that claim to come from the link's issuer, and those of them that really do. */
function crlsOf(link: Link, crls: readonly Crl[]): { named: Crl[]; authentic: Crl[] } {
  const named = crls.filter((crl) => sameName(crl.issuer, link.issuerName));
  const authentic = mayIssueCrls(link.issuer)
    ? named.filter((crl) => verifyCrlSignature(crl, link.issuer.publicKey))
    : [];
  return { named, authentic };
}

function where(link: Link): string {
  const urls = crlDistributionPoints(link.cert);
  return urls.length > 0 ? ` (its CRL distribution point: ${urls.join(', ')})` : '';
}

const TIME_PROBLEM: Record<Exclude<CrlTimeStatus, 'current'>, (crl: Crl) => string> = {
  stale: (crl) => `is stale (nextUpdate ${crl.nextUpdate?.toISOString()}): fetch the current one`,
  'not-yet-valid': (crl) => `is not yet valid (thisUpdate ${crl.thisUpdate.toISOString()})`,
  'no-next-update': () => 'has no nextUpdate, so it cannot be known to be current',
};

/**
 * Throws METADATA_BLOB_CERTIFICATE_REVOKED when a certificate of `path` (leaf first) is listed on an
 * authentic CRL of its issuer, else METADATA_BLOB_CRL_INVALID / METADATA_BLOB_CRL_MISSING when one has no
 * current CRL of its issuer. Revocation is looked for first, along the whole path: it is the finding that
 * matters most, and a listing on an older CRL still stands (MDS CAs do not put certificates on hold).
 */
export function checkChainRevocation(
  path: readonly X509Certificate[],
  anchor: X509Certificate,
  crls: readonly Crl[],
  now: Date,
): void {
  const chain = links(path, anchor);
  const found = chain.map((link) => ({ link, ...crlsOf(link, crls) }));
  for (const { link, authentic } of found) {
    for (const crl of authentic) {
      const entry = findRevoked(crl, link.cert);
      if (entry) {
        throw new FidoError(
          'METADATA_BLOB_CERTIFICATE_REVOKED',
          `${link.label} is revoked since ${entry.revocationDate.toISOString()} (listed on ${crl.label}, the CRL of ${crl.issuerText})`,
        );
      }
    }
  }
  for (const { link, named, authentic } of found) checkCovered(link, named, authentic, now);
}

/** At least one authentic CRL whose scope includes the certificate is current at `now`. */
function checkCovered(link: Link, named: readonly Crl[], authentic: readonly Crl[], now: Date): void {
  const inScope = authentic.filter((crl) => scopeCovers(crl.scope, link.isCa));
  if (inScope.some((crl) => crlTimeStatus(crl, now) === 'current')) return;
  const issuer = subjectText(link.issuer);
  const [outdated] = inScope;
  if (outdated) {
    const status = crlTimeStatus(outdated, now) as Exclude<CrlTimeStatus, 'current'>;
    throw new FidoError(
      'METADATA_BLOB_CRL_INVALID',
      `${outdated.label}, the CRL of ${issuer} covering ${link.label}, ${TIME_PROBLEM[status](outdated)}${where(link)}`,
    );
  }
  const [outOfScope] = authentic;
  if (outOfScope) {
    throw new FidoError(
      'METADATA_BLOB_CRL_INVALID',
      `${outOfScope.label} covers only ${outOfScope.scope === 'ca' ? 'CA' : 'end-entity'} certificates of ${issuer}, not ${link.label}${where(link)}`,
    );
  }
  const [forged] = named;
  if (forged) {
    const why = mayIssueCrls(link.issuer)
      ? `its signature does not verify with the key of ${issuer}`
      : `the key usage of ${issuer} does not allow CRL signing`;
    throw new FidoError(
      'METADATA_BLOB_CRL_INVALID',
      `${forged.label} names ${forged.issuerText} as its issuer, but ${why}`,
    );
  }
  throw new FidoError(
    'METADATA_BLOB_CRL_MISSING',
    `no configured CRL comes from ${issuer}, the issuer of ${link.label}${where(link)}`,
  );
}

/** The CRL distribution points of the certificates whose revocation matters (path without the anchor). */
export function chainDistributionPoints(path: readonly X509Certificate[]): string[] {
  return [...new Set(path.flatMap((cert) => crlDistributionPoints(cert)))];
}
