// Error names of a registration's attestation: the attestation object and authenticator data, the
// statement and its certificate chain (part of the one catalogue, ERRORS in src/errors/catalogue.ts). The names
// each statement format adds are in attestation-formats.ts.
// No `satisfies` here: src/errors/catalogue.ts checks the whole catalogue at once, so this file imports nothing.

export const ATTESTATION_ERRORS = {
  // --- Attestation object and authenticator data ---
  INVALID_FORMAT_ATTESTATION_OBJECT: {
    status: 400,
    message: 'attestationObject is not a well-formed CBOR map with fmt, attStmt and authData.',
  },
  INVALID_AUTHENTICATOR_DATA: {
    status: 400,
    message: 'authenticatorData is truncated, has trailing bytes, or its flags contradict its content.',
  },
  CREDENTIAL_NOT_INCLUDED: { status: 400, message: 'The authenticator data carries no attested credential data.' },
  RPID_HASH_NOT_MATCHED: { status: 400, message: 'The RP ID hash in the authenticator data does not match the RP ID.' },
  USER_PRESENCE_FLAG_NOT_SET: { status: 400, message: 'The authenticator did not report user presence.' },
  USER_VERIFICATION_FLAG_NOT_SET: {
    status: 400,
    message: 'User verification was required but the authenticator did not perform it.',
  },
  INVALID_BACKUP_STATE_FLAG_SET: {
    status: 400,
    message: 'The backup state flag is set without the backup eligibility flag.',
  },
  INVALID_CREDENTIAL_ID_LENGTH: { status: 400, message: 'The credential id must be 1 to 1023 bytes long.' },
  CREDENTIAL_ID_NOT_MATCHED: {
    status: 400,
    message: 'id, rawId and the credential id in the authenticator data must be the same.',
  },
  USER_PUBLIC_KEY_INVALID_KEY_SPEC: { status: 400, message: 'The credential public key is not a valid COSE key.' },
  INVALID_COSE_ALGORITHM: { status: 400, message: 'The algorithm is not supported.' },
  NOT_ALLOWED_COSE_ALGORITHM: {
    status: 400,
    message: 'The credential uses an algorithm that was not offered in pubKeyCredParams.',
  },
  INVALID_EXTENSION_DATA: { status: 400, message: 'The extension outputs in the authenticator data are malformed.' },

  // --- Attestation statements (WebAuthn L3 §8) ---
  UNSUPPORTED_ATTESTATION_FORMAT: { status: 400, message: 'The attestation statement format is not supported.' },
  INVALID_ATTESTATION_FORMAT: { status: 400, message: 'The attestation statement is malformed for its format.' },
  ATTESTATION_SIGNATURE_VERIFICATION_FAIL: { status: 400, message: 'The attestation signature does not verify.' },
  PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED: {
    status: 400,
    message: 'The attestation statement algorithm does not match the credential key or certificate.',
  },
  PACKED_ATTESTATION_AAGUID_NOT_MATCHED: {
    status: 400,
    message: 'The AAGUID in the attestation certificate does not match the authenticator data.',
  },
  ATTESTATION_CERTIFICATE_ERROR: {
    status: 400,
    message: "The attestation certificate does not meet the format's requirements.",
  },
  U2F_ATTESTATION_AAGUID_INVALID: { status: 400, message: 'fido-u2f attestation requires an all-zero AAGUID.' },
  U2F_ATTESTATION_KEY_NOT_ECC_TYPE: { status: 400, message: 'fido-u2f attestation requires P-256 keys.' },
  CERTIFICATE_PATH_VALIDATION_FAIL: {
    status: 400,
    message: 'The attestation certificate chain is not valid (order, signatures, validity dates or CA constraints).',
  },
  ATTESTATION_NOT_TRUSTED: {
    status: 400,
    message: 'The attestation does not chain to a trust anchor, and the application requires trusted attestation.',
  },
  // Certificate chains (one name per way a chain fails; all are attestation failures).
  CERTIFICATE_UNREADABLE: { status: 400, message: 'A certificate in the chain is not a readable X.509 certificate.' },
  CERTIFICATE_EXPIRED: {
    status: 400,
    message: 'A certificate in the chain (or its trust anchor) had expired at the time of the ceremony.',
  },
  CERTIFICATE_NOT_YET_VALID: {
    status: 400,
    message: 'A certificate in the chain (or its trust anchor) was not yet valid at the time of the ceremony.',
  },
  CERTIFICATE_ISSUER_NOT_FOUND: {
    status: 400,
    message:
      'The certificates sent do not form one chain from the attestation certificate (an issuer is missing or a certificate is unrelated).',
  },
  CERTIFICATE_SIGNATURE_INVALID: {
    status: 400,
    message: "A certificate's signature does not verify with its issuer's key.",
  },
  CERTIFICATE_ISSUER_NOT_CA: {
    status: 400,
    message: 'A certificate that issues another is not a CA (basic constraints, key usage or path length forbid it).',
  },
  CERTIFICATE_CHAIN_INCLUDES_ROOT: {
    status: 400,
    message: 'The chain sent includes its trust anchor, which this format must not send.',
  },
} as const;
