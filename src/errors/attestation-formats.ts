// Error names of the attestation statement formats with checks of their own: tpm, android-key,
// android-safetynet and apple (part of the one catalogue, ERRORS in src/errors/catalogue.ts).
// No `satisfies` here: src/errors/catalogue.ts checks the whole catalogue at once, so this file imports nothing.

export const ATTESTATION_FORMAT_ERRORS = {
  // tpm (WebAuthn L3 §8.3)
  TPM_ATTESTATION_DATA_INVALID: { status: 400, message: 'tpm: ver, pubArea or certInfo is malformed.' },
  TPM_ATTESTATION_INVALID_HASH_ALGORITHM: {
    status: 400,
    message: 'tpm: the name algorithm of the attested object is not supported.',
  },
  TPM_ATTESTATION_ALGORITHM_NOT_MATCHED: { status: 400, message: "tpm: alg does not match the AIK certificate's key." },
  TPM_ATTESTATION_CERTINFO_MAGIC_NOT_MATCHED: {
    status: 400,
    message: 'tpm: certInfo.magic is not TPM_GENERATED_VALUE.',
  },
  TPM_ATTESTATION_CERTINFO_TYPE_NOT_MATCHED: {
    status: 400,
    message: 'tpm: certInfo.type is not TPM_ST_ATTEST_CERTIFY.',
  },
  TPM_ATTESTATION_CERTINFO_EXTRADATA_NOT_MATCHED: {
    status: 400,
    message: 'tpm: certInfo.extraData is not the hash of authenticatorData and clientDataHash.',
  },
  TPM_ATTESTATION_CERTINFO_PUBAREA_HASH_NOT_MATCHED: {
    status: 400,
    message: 'tpm: certInfo.attested.name is not the name of pubArea.',
  },
  TPM_ATTESTATION_CERTINFO_PUBAREA_UNIQUE_NOT_MATCH_TO_CREDENTIAL_PUBKEY: {
    status: 400,
    message: 'tpm: the key in pubArea is not the credential public key.',
  },
  TPM_ATTESTATION_CERTIFICATE_VERSION_INVALID: { status: 400, message: 'tpm: the AIK certificate is not version 3.' },
  TPM_ATTESTATION_CERTIFICATE_SUBJECT_FIELD_INVALID: {
    status: 400,
    message: 'tpm: the AIK certificate subject must be empty.',
  },
  TPM_ATTESTATION_CERTIFICATE_SAN_INVALID: {
    status: 400,
    message: 'tpm: the AIK certificate subject alternative name lacks a known TPM manufacturer, model or version.',
  },
  TPM_ATTESTATION_CERTIFICATE_EXTENDED_KEY_USAGE_INVALID: {
    status: 400,
    message: 'tpm: the AIK certificate extended key usage lacks tcg-kp-AIKCertificate.',
  },
  TPM_ATTESTATION_CERTIFICATE_BASIC_CONSTRAINTS_INVALID: {
    status: 400,
    message: 'tpm: the AIK certificate must not be a CA.',
  },
  TPM_ATTESTATION_CERTIFICATE_INVALID: {
    status: 400,
    message:
      'tpm: the AIK certificate does not meet §8.3.1 (e.g. its AAGUID extension differs from authenticator data).',
  },
  // android-key (WebAuthn L3 §8.4)
  ANDROID_KEY_ATTESTATION_PUBLIC_KEY_NOT_MATCHED: {
    status: 400,
    message: 'android-key: the attestation certificate key is not the credential public key.',
  },
  ANDROID_KEY_ATTESTATION_DATA_NOT_FOUND: {
    status: 400,
    message: 'android-key: the attestation certificate has no key description extension.',
  },
  ANDROID_KEY_ATTESTATION_DATA_DECODING_FAIL: {
    status: 400,
    message: 'android-key: the key description extension is malformed.',
  },
  ANDROID_KEY_ATTESTATION_ATTESTATION_CHALLENGE_NOT_MATCH_TO_CLIENT_DATA_HASH: {
    status: 400,
    message: 'android-key: attestationChallenge is not the clientDataHash.',
  },
  ANDROID_KEY_ATTESTATION_ATTESTATION_ALL_APPLICATION_SET: {
    status: 400,
    message: 'android-key: the key is usable by all applications (allApplications is present).',
  },
  ANDROID_KEY_ATTESTATION_ORIGIN_NOT_GENERATED: {
    status: 400,
    message: 'android-key: the key was not generated inside the keystore (origin is not KM_ORIGIN_GENERATED).',
  },
  ANDROID_KEY_ATTESTATION_PURPOSE_NOT_SIGN: {
    status: 400,
    message: 'android-key: the key purpose is not exactly KM_PURPOSE_SIGN.',
  },
  ANDROID_KEY_ATTESTATION_ALGORITHM_NOT_MATCHED: {
    status: 400,
    message: "android-key: alg does not match the attestation certificate's key.",
  },
  // android-safetynet (WebAuthn L3 §8.5)
  ANDROID_SAFETYNET_ATTESTATION_VERSION_EMPTY: { status: 400, message: 'android-safetynet: ver is missing or empty.' },
  ANDROID_SAFETYNET_ATTESTATION_DATA_INVALID: {
    status: 400,
    message: 'android-safetynet: response is not a well-formed JWS of an attestation.',
  },
  ANDROID_SAFETYNET_ATTESTATION_NOT_SUPPORTED_SIGNATURE_ALGORITHM: {
    status: 400,
    message: 'android-safetynet: the JWS algorithm is not supported.',
  },
  ANDROID_SAFETYNET_ATTESTATION_CERTIFICATE_NOT_INCLUDED: {
    status: 400,
    message: 'android-safetynet: the JWS header carries no x5c certificates.',
  },
  ANDROID_SAFETYNET_ATTESTATION_HOSTNAME_NOT_MATCHED: {
    status: 400,
    message: 'android-safetynet: the signing certificate is not issued to attest.android.com.',
  },
  ANDROID_SAFETYNET_ATTESTATION_NONCE_NOT_MATCHED: {
    status: 400,
    message: 'android-safetynet: nonce is not the hash of authenticatorData and clientDataHash.',
  },
  ANDROID_SAFETYNET_ATTESTATION_CTS_PROFILE_MATCH_NOT_SET: {
    status: 400,
    message: 'android-safetynet: ctsProfileMatch is not true.',
  },
  ANDROID_SAFETYNET_ATTESTATION_TIMESTAMP_INVALID: {
    status: 400,
    message: 'android-safetynet: timestampMs is in the future or older than the accepted window.',
  },
  // apple (WebAuthn L3 §8.8)
  APPLE_ANONYMOUS_ATTESTATION_DATA_NOT_FOUND: {
    status: 400,
    message: 'apple: the credential certificate has no nonce extension.',
  },
  APPLE_ANONYMOUS_ATTESTATION_DATA_DECODING_FAIL: { status: 400, message: 'apple: the nonce extension is malformed.' },
  APPLE_ANONYMOUS_ATTESTATION_NONCE_NOT_MATCHED: {
    status: 400,
    message: 'apple: the nonce is not the hash of authenticatorData and clientDataHash.',
  },
  APPLE_ANONYMOUS_ATTESTATION_PUBLIC_KEY_NOT_MATCHED: {
    status: 400,
    message: 'apple: the credential certificate key is not the credential public key.',
  },
} as const;
