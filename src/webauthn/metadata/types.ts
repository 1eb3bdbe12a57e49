// The parts of a FIDO Metadata Service (MDS3) BLOB this service uses (FIDO Metadata Service v3.0 §3.1,
// Metadata Statement v3.0 §4). Everything else in an entry is kept as received in `raw`.

import type { X509Certificate } from 'node:crypto';

/** AuthenticatorStatus values that make an authenticator unacceptable (MDS3 §3.1.4). */
export const REFUSED_STATUSES: ReadonlySet<string> = new Set([
  'REVOKED',
  'USER_VERIFICATION_BYPASS',
  'ATTESTATION_KEY_COMPROMISE',
  'USER_KEY_REMOTE_COMPROMISE',
  'USER_KEY_PHYSICAL_COMPROMISE',
]);

export interface StatusReport {
  readonly status: string;
  /** Epoch ms of effectiveDate (ISO date), or null when the report gives none. */
  readonly effectiveDate: number | null;
  /** The attestation certificate (DER, repaired as a chain's) the report is about, when it names one. */
  readonly certificate: Buffer | null;
}

export interface MetadataEntry {
  /** Lower-case dashed AAGUID (FIDO2 authenticators), or null. */
  readonly aaguid: string | null;
  /** Lower-case hex SHA-1 key identifiers of attestation certificates (U2F authenticators). */
  readonly attestationCertificateKeyIdentifiers: readonly string[];
  readonly description: string | null;
  /** attestationTypes of the statement (basic_full, basic_surrogate, attca, anonca, none, …); empty = unknown. */
  readonly attestationTypes: readonly string[];
  /** The statement's attestationRootCertificates (unreadable ones are skipped). */
  readonly attestationRoots: readonly X509Certificate[];
  readonly statusReports: readonly StatusReport[];
  /** The entry exactly as it was in the BLOB's payload. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface MetadataBlob {
  /** The BLOB's serial number ("no"); a newer BLOB has a higher one. */
  readonly serial: number;
  /** Epoch ms of the start of the day after nextUpdate: from then on the BLOB is stale. */
  readonly staleAfter: number;
  /** nextUpdate as written (YYYY-MM-DD). */
  readonly nextUpdate: string;
  readonly legalHeader: string;
  readonly entries: readonly MetadataEntry[];
  /**
   * The certificates that signed the BLOB, leaf first, up to but without the trust anchor: the ones whose
   * revocation matters (their CRL distribution points say where the CRLs to configure are published).
   */
  readonly signingPath: readonly X509Certificate[];
  /** Whether the signing path was checked against CRLs (attestation.metadataCrls) when it was read. */
  readonly revocationChecked: boolean;
}
