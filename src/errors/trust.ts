// Error names of an application's trust policy and of the FIDO metadata BLOB (MDS3) it relies on
// (part of the one catalogue, ERRORS in src/errors/catalogue.ts).
// No `satisfies` here: src/errors/catalogue.ts checks the whole catalogue at once, so this file imports nothing.

export const TRUST_ERRORS = {
  // Trust policy and FIDO metadata (MDS3)
  AAGUID_NOT_ALLOWED: {
    status: 400,
    message: 'The application does not accept this authenticator model (AAGUID deny-list, or not on its allow-list).',
  },
  AAGUID_NOT_PROVEN: {
    status: 400,
    message:
      "The application's AAGUID allow- or deny-list decides only on an AAGUID a trusted attestation proved (a chain to its trust anchors or to the roots of that AAGUID's metadata statement); this attestation proves none.",
  },
  BACKUP_ELIGIBILITY_REQUIRED: {
    status: 400,
    message:
      'The application accepts only synced passkeys (backupEligibility "required"), and this credential is not backup eligible.',
  },
  BACKUP_ELIGIBILITY_NOT_ALLOWED: {
    status: 400,
    message:
      'The application accepts only device-bound credentials (backupEligibility "forbidden"), and this credential is backup eligible.',
  },
  AUTHENTICATOR_STATUS_NOT_ACCEPTED: {
    status: 400,
    message: 'FIDO metadata reports this authenticator model as compromised or revoked.',
  },
  METADATA_BLOB_EXPIRED: {
    status: 503,
    message:
      'The metadata BLOB is past its nextUpdate, so trust cannot be decided; the operator must install a newer BLOB.',
  },
  METADATA_BLOB_INVALID: { status: 500, message: 'The metadata BLOB is not a well-formed MDS3 JWT.' },
  METADATA_BLOB_SIGNATURE_INVALID: {
    status: 500,
    message: 'The metadata BLOB signature does not verify, or its certificate chain does not lead to the MDS root.',
  },
  METADATA_BLOB_NOT_NEWER: {
    status: 500,
    message: 'The new metadata BLOB is not newer (its serial number "no") than the installed one.',
  },
  METADATA_BLOB_CERTIFICATE_REVOKED: {
    status: 500,
    message:
      "A certificate of the metadata BLOB's signing chain is listed as revoked on its issuer's CRL (attestation.metadataCrls).",
  },
  METADATA_BLOB_CRL_MISSING: {
    status: 500,
    message:
      "CRLs are configured (attestation.metadataCrls), but none of them covers a certificate of the metadata BLOB's signing chain.",
  },
  METADATA_BLOB_CRL_INVALID: {
    status: 500,
    message:
      "A CRL of the metadata BLOB's signing chain cannot be used: unreadable, not signed by the issuer, stale (past nextUpdate) or not yet valid.",
  },
} as const;
