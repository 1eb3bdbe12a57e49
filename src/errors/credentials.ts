// Error names of stored credentials: sign-in against them, a user's own list and deletion, and the local
// variant's key blob (part of the one catalogue, ERRORS in src/errors/catalogue.ts).
// No `satisfies` here: src/errors/catalogue.ts checks the whole catalogue at once, so this file imports nothing.

export const CREDENTIAL_ERRORS = {
  // --- Stored credentials and assertions ---
  DUPLICATED_CREDENTIAL_ID: { status: 400, message: 'This credential id is already registered.' },
  CREDENTIAL_ID_NOT_FOUND: { status: 400, message: 'The credential is not registered for this user and application.' },
  USER_HANDLE_NOT_MATCHED: { status: 400, message: "The user handle does not match the credential's owner." },
  USER_HANDLE_MISSING: {
    status: 400,
    message: 'A sign-in without a user name needs response.userHandle (a discoverable credential).',
  },
  ASSERTION_SIGNATURE_VERIFICATION_FAIL: { status: 400, message: 'The assertion signature does not verify.' },
  SIGNATURE_COUNTER_NOT_INCREASED: {
    status: 400,
    message: 'The signature counter did not increase: the authenticator may have been cloned.',
  },

  // --- A user's own credentials (POST /api/credentials/list, /delete, /rename; adding a passkey) ---
  CREDENTIALS_TOKEN_INVALID: {
    status: 403,
    message:
      "credentialsToken is not one this service issued for this user of this application (another user's, another application's, or altered).",
  },
  CREDENTIALS_TOKEN_EXPIRED: {
    status: 403,
    message:
      'credentialsToken has expired (it is valid for 10 minutes after the sign-in that issued it): sign in again.',
  },

  INVALID_NICKNAME: {
    status: 400,
    message:
      'nickname must be a string of 1 to 64 characters (after trimming spaces) without control characters, or null to clear it.',
  },
  PASSKEY_LIMIT_REACHED: {
    status: 409,
    message:
      "The user already has as many passkeys as the application allows (applications[].maxPasskeysPerUser): delete one of the user's passkeys first. Nothing was stored.",
  },
  SIGN_IN_REQUIRED: {
    status: 400,
    message:
      'This user already has a passkey, and the application adds another only for the user signed in (addPasskey "signed-in"): send credentialsToken of their sign-in, at most 10 minutes old.',
  },

  // --- Local variant (the `localhost` key blob; texts never carry key material) ---
  LOCAL_EXTENSION_MISSING: {
    status: 400,
    message: 'A local-variant attestation result must carry extensions.localhost = true (the relay sets it).',
  },
  LOCAL_EXTENSION_UNEXPECTED: {
    status: 400,
    message: 'extensions.localhost belongs to the local variant; this ceremony uses the standard variant.',
  },
  LOCAL_BLOB_MISSING: {
    status: 400,
    message:
      'A local-variant assertion result must carry extensions.localhost = the string the attestation result returned.',
  },
  LOCAL_BLOB_NOT_STRING: {
    status: 400,
    message:
      'extensions.localhost must be the string the attestation result returned (true is only for the attestation result).',
  },
  LOCAL_BLOB_MALFORMED: {
    status: 400,
    message: 'extensions.localhost is not a well-formed key blob (not base64url, truncated, or with trailing bytes).',
  },
  LOCAL_BLOB_VERSION_UNSUPPORTED: {
    status: 400,
    message: 'The key blob has a format version this service does not read; register the credential again.',
  },
  LOCAL_BLOB_KEY_UNKNOWN: {
    status: 400,
    message:
      'The key blob was sealed with a key this service does not hold (retired, or another deployment); register the credential again.',
  },
  LOCAL_BLOB_TAMPERED: {
    status: 400,
    message: 'The key blob failed its authenticity check: it was altered or corrupted.',
  },
  LOCAL_BLOB_APPLICATION_MISMATCH: {
    status: 400,
    message: 'The key blob was issued to another application (Client ID).',
  },
  LOCAL_BLOB_USER_MISMATCH: {
    status: 400,
    message: 'The key blob was issued to another user than the one this ceremony is for.',
  },
  LOCAL_BLOB_CREDENTIAL_MISMATCH: {
    status: 400,
    message: 'The key blob holds another credential than the one that signed (id/rawId).',
  },
} as const;
