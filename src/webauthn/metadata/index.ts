// Lookup over a verified MDS3 BLOB: by AAGUID for FIDO2 authenticators, by attestation key identifier
// for U2F ones (never the second when an AAGUID is present: conformance tool issue #542), plus the
// status-report rules the trust policy enforces.

import type { X509Certificate } from 'node:crypto';
import { REFUSED_STATUSES, type MetadataBlob, type MetadataEntry, type StatusReport } from './types.js';

export { REFUSED_STATUSES } from './types.js';
export type { MetadataBlob, MetadataEntry, StatusReport } from './types.js';
export { attestationKeyIdentifier, verifyMetadataBlob, type VerifyBlobOptions } from './blob.js';
export { chainDistributionPoints } from './revocation.js';

export const ZERO_AAGUID = '00000000-0000-0000-0000-000000000000';

export interface MetadataIndex {
  readonly blob: MetadataBlob;
  findByAaguid(aaguid: string): MetadataEntry | undefined;
  findByKeyIdentifier(keyIdentifier: string): MetadataEntry | undefined;
}

export function indexMetadata(blob: MetadataBlob): MetadataIndex {
  const byAaguid = new Map<string, MetadataEntry>();
  const byKeyId = new Map<string, MetadataEntry>();
  for (const entry of blob.entries) {
    // The first entry wins; MDS does not repeat identifiers, and a later duplicate must not override.
    if (entry.aaguid && !byAaguid.has(entry.aaguid)) byAaguid.set(entry.aaguid, entry);
    for (const id of entry.attestationCertificateKeyIdentifiers) if (!byKeyId.has(id)) byKeyId.set(id, entry);
  }
  return {
    blob,
    findByAaguid: (aaguid) => byAaguid.get(aaguid.toLowerCase()),
    findByKeyIdentifier: (id) => byKeyId.get(id.toLowerCase()),
  };
}

/** From the start of the day after nextUpdate, a newer BLOB exists and this one is stale. */
export function isStale(blob: MetadataBlob, now: Date): boolean {
  return now.getTime() >= blob.staleAfter;
}

/** The status report in force at `now`: the latest effectiveDate not in the future (undated reports count as oldest). */
export function latestStatus(entry: MetadataEntry, now: Date): StatusReport | undefined {
  let latest: StatusReport | undefined;
  for (const report of entry.statusReports) {
    const date = report.effectiveDate ?? Number.NEGATIVE_INFINITY;
    if (date > now.getTime()) continue;
    if (!latest || date >= (latest.effectiveDate ?? Number.NEGATIVE_INFINITY)) latest = report;
  }
  return latest;
}

/**
 * The status report that makes this authenticator unacceptable at `now`, or undefined. An
 * ATTESTATION_KEY_COMPROMISE that names one certificate refuses only chains containing that certificate
 * (when the chain is known; at authentication time it is not, so it refuses).
 */
export function refusingStatus(
  entry: MetadataEntry,
  now: Date,
  chain?: readonly X509Certificate[],
): StatusReport | undefined {
  const report = latestStatus(entry, now);
  if (!report || !REFUSED_STATUSES.has(report.status)) return undefined;
  if (report.status === 'ATTESTATION_KEY_COMPROMISE' && report.certificate && chain) {
    const named = report.certificate;
    return chain.some((cert) => cert.raw.equals(named)) ? report : undefined;
  }
  return report;
}
