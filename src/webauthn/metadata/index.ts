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

/**
 * Whether a report applies to an attestation (MDS3 StatusReport.certificate): a report that names a
 * certificate applies only to a chain holding it (compared as the chain is read, repaired bits included),
 * whatever its status: a compromise of one batch refuses only that batch, and a later report that names
 * the certificate of a repaired batch clears only that batch. Where the chain is not known (a sign-in, the
 * marks of a metadata refresh), a named refusing report is taken to apply and a named other one is not: an
 * unknown chain is never shown to be the repaired one.
 */
function applies(report: StatusReport, chain: readonly X509Certificate[] | undefined): boolean {
  const named = report.certificate;
  if (!named) return true;
  if (!chain) return REFUSED_STATUSES.has(report.status);
  return chain.some((cert) => cert.raw.equals(named));
}

/**
 * The status report in force at `now` for an attestation `chain` (unknown when absent): the latest
 * effectiveDate not in the future among the reports that apply to it (undated reports count as oldest).
 */
export function latestStatus(
  entry: MetadataEntry,
  now: Date,
  chain?: readonly X509Certificate[],
): StatusReport | undefined {
  let latest: StatusReport | undefined;
  for (const report of entry.statusReports) {
    const date = report.effectiveDate ?? Number.NEGATIVE_INFINITY;
    if (date > now.getTime() || !applies(report, chain)) continue;
    if (!latest || date >= (latest.effectiveDate ?? Number.NEGATIVE_INFINITY)) latest = report;
  }
  return latest;
}

/**
 * The status report that makes this authenticator unacceptable at `now`, or undefined: the report in force
 * for `chain` (latestStatus). A report that names a certificate counts only for a chain holding it; when the
 * chain is not known (at authentication time) a named refusing report refuses.
 */
export function refusingStatus(
  entry: MetadataEntry,
  now: Date,
  chain?: readonly X509Certificate[],
): StatusReport | undefined {
  const report = latestStatus(entry, now, chain);
  return report && REFUSED_STATUSES.has(report.status) ? report : undefined;
}
