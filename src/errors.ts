// The one catalogue of error names. A name is API: clients match on it, so it never changes meaning.
// Each entry carries the HTTP status of the answer and a default text for integrators.
// docs/errors.md lists every name; test/errors.test.ts keeps the two in step.
// Names come from the underlying open-source FIDO2 server where one fits (see docs/errors.md).

export interface ErrorSpec {
  readonly status: number;
  readonly message: string;
}

export const ERRORS = {
  // --- Transport and request shape ---
  NOT_FOUND: { status: 404, message: 'No such operation. The four operations are POST /api/attestation/options, /api/attestation/result, /api/assertion/options and /api/assertion/result; a user\'s own passkeys are POST /api/credentials/list and /api/credentials/delete.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Only POST is accepted.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be JSON (Content-Type: application/json).' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than the service accepts.' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  MALFORMED_HTTP_REQUEST: { status: 400, message: 'The request is not well-formed HTTP/1.1 (its framing, a control character in a header, or no Host header).' },
  REQUEST_HEADERS_TOO_LARGE: { status: 431, message: 'The request header block is larger than 16 KiB.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time.' },
  INVALID_REQUEST_BODY: { status: 400, message: 'A field of the request is missing, of the wrong type, or out of bounds.' },
  UNKNOWN_HINT: { status: 400, message: 'hints may hold only "security-key", "client-device" and "hybrid" (WebAuthn L3 PublicKeyCredentialHint).' },

  // --- Caller identity (User-agent, origin header, username) ---
  CLIENT_ID_MISSING: { status: 400, message: 'The User-agent header must carry "<Vendor> AppID: <client id>".' },
  CLIENT_ID_MALFORMED: { status: 400, message: 'The User-agent header is not exactly "<Vendor> AppID: <client id>" (a relay must overwrite the browser\'s value, not append to it).' },
  CLIENT_ID_UNKNOWN: { status: 403, message: 'The Client ID is not registered, or its application is disabled.' },
  ORIGIN_HEADER_MISSING: { status: 400, message: 'The standard variant requires the origin header.' },
  ORIGIN_NOT_ALLOWED: { status: 403, message: 'The origin header is not one of the application\'s registered origins.' },
  VARIANT_NOT_ALLOWED: { status: 403, message: 'The application may not use this variant (the standard variant needs an approved domain).' },
  LOCAL_VARIANT_DISABLED: { status: 403, message: 'The local (development) variant is switched off on this deployment.' },
  INVALID_USERNAME: { status: 400, message: 'username must be "<user>#<domain>" with a non-empty user part, in well-formed Unicode.' },
  INVALID_DISPLAY_NAME: { status: 400, message: 'displayName must be well-formed Unicode (no lone surrogate).' },
  RPID_NOT_FOUND: { status: 400, message: 'The domain after "#" in username is neither the application\'s domain nor localhost.' },

  // --- Ceremony (challenge) lookup ---
  SESSION_NOT_FOUND: { status: 400, message: 'No pending ceremony for this challenge: it was never issued, belongs to another application or operation, or has expired.' },
  SESSION_ALREADY_REVOKED: { status: 400, message: 'This challenge was already used; ask for new options.' },

  // --- Client data (WebAuthn L3 §7.1 steps 5-11, §7.2 steps 9-15) ---
  INVALID_FORMAT_CLIENT_DATA_JSON: { status: 400, message: 'clientDataJSON is not base64url-encoded UTF-8 JSON of the expected shape.' },
  INVALID_OPERATION_TYPE: { status: 400, message: 'clientDataJSON.type does not match the operation.' },
  CHALLENGE_NOT_MATCHED: { status: 400, message: 'clientDataJSON.challenge does not match the issued challenge.' },
  INVALID_ORIGIN: { status: 400, message: 'clientDataJSON.origin is not a valid origin.' },
  ORIGIN_NOT_MATCHED: { status: 400, message: 'clientDataJSON.origin does not match the expected origin.' },
  CROSS_ORIGIN_NOT_ALLOWED: { status: 400, message: 'The ceremony ran in a cross-origin frame, which the application does not allow.' },
  TOP_ORIGIN_NOT_MATCHED: { status: 400, message: 'The ceremony ran in a cross-origin frame whose top-level page (clientDataJSON.topOrigin) is missing or not one of the application\'s topOrigins.' },
  TOKEN_BINDING_STATUS_MISSING: { status: 400, message: 'clientDataJSON.tokenBinding is present but has no valid status.' },
  TOKEN_BINDING_INFO_NOT_MATCHED: { status: 400, message: 'Token binding is not supported by this service.' },

  // --- Attestation object and authenticator data ---
  INVALID_FORMAT_ATTESTATION_OBJECT: { status: 400, message: 'attestationObject is not a well-formed CBOR map with fmt, attStmt and authData.' },
  INVALID_AUTHENTICATOR_DATA: { status: 400, message: 'authenticatorData is truncated, has trailing bytes, or its flags contradict its content.' },
  CREDENTIAL_NOT_INCLUDED: { status: 400, message: 'The authenticator data carries no attested credential data.' },
  RPID_HASH_NOT_MATCHED: { status: 400, message: 'The RP ID hash in the authenticator data does not match the RP ID.' },
  USER_PRESENCE_FLAG_NOT_SET: { status: 400, message: 'The authenticator did not report user presence.' },
  USER_VERIFICATION_FLAG_NOT_SET: { status: 400, message: 'User verification was required but the authenticator did not perform it.' },
  INVALID_BACKUP_STATE_FLAG_SET: { status: 400, message: 'The backup state flag is set without the backup eligibility flag.' },
  INVALID_CREDENTIAL_ID_LENGTH: { status: 400, message: 'The credential id must be 1 to 1023 bytes long.' },
  CREDENTIAL_ID_NOT_MATCHED: { status: 400, message: 'id, rawId and the credential id in the authenticator data must be the same.' },
  USER_PUBLIC_KEY_INVALID_KEY_SPEC: { status: 400, message: 'The credential public key is not a valid COSE key.' },
  INVALID_COSE_ALGORITHM: { status: 400, message: 'The algorithm is not supported.' },
  NOT_ALLOWED_COSE_ALGORITHM: { status: 400, message: 'The credential uses an algorithm that was not offered in pubKeyCredParams.' },
  INVALID_EXTENSION_DATA: { status: 400, message: 'The extension outputs in the authenticator data are malformed.' },

  // --- Attestation statements (WebAuthn L3 §8) ---
  UNSUPPORTED_ATTESTATION_FORMAT: { status: 400, message: 'The attestation statement format is not supported.' },
  INVALID_ATTESTATION_FORMAT: { status: 400, message: 'The attestation statement is malformed for its format.' },
  ATTESTATION_SIGNATURE_VERIFICATION_FAIL: { status: 400, message: 'The attestation signature does not verify.' },
  PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED: { status: 400, message: 'The attestation statement algorithm does not match the credential key or certificate.' },
  PACKED_ATTESTATION_AAGUID_NOT_MATCHED: { status: 400, message: 'The AAGUID in the attestation certificate does not match the authenticator data.' },
  ATTESTATION_CERTIFICATE_ERROR: { status: 400, message: 'The attestation certificate does not meet the format\'s requirements.' },
  U2F_ATTESTATION_AAGUID_INVALID: { status: 400, message: 'fido-u2f attestation requires an all-zero AAGUID.' },
  U2F_ATTESTATION_KEY_NOT_ECC_TYPE: { status: 400, message: 'fido-u2f attestation requires P-256 keys.' },
  CERTIFICATE_PATH_VALIDATION_FAIL: { status: 400, message: 'The attestation certificate chain is not valid (order, signatures, validity dates or CA constraints).' },
  ATTESTATION_NOT_TRUSTED: { status: 400, message: 'The attestation does not chain to a trust anchor, and the application requires trusted attestation.' },
  // Certificate chains (one name per way a chain fails; all are attestation failures).
  CERTIFICATE_UNREADABLE: { status: 400, message: 'A certificate in the chain is not a readable X.509 certificate.' },
  CERTIFICATE_EXPIRED: { status: 400, message: 'A certificate in the chain (or its trust anchor) had expired at the time of the ceremony.' },
  CERTIFICATE_NOT_YET_VALID: { status: 400, message: 'A certificate in the chain (or its trust anchor) was not yet valid at the time of the ceremony.' },
  CERTIFICATE_ISSUER_NOT_FOUND: { status: 400, message: 'The certificates sent do not form one chain from the attestation certificate (an issuer is missing or a certificate is unrelated).' },
  CERTIFICATE_SIGNATURE_INVALID: { status: 400, message: 'A certificate\'s signature does not verify with its issuer\'s key.' },
  CERTIFICATE_ISSUER_NOT_CA: { status: 400, message: 'A certificate that issues another is not a CA (basic constraints, key usage or path length forbid it).' },
  CERTIFICATE_CHAIN_INCLUDES_ROOT: { status: 400, message: 'The chain sent includes its trust anchor, which this format must not send.' },
  // tpm (WebAuthn L3 §8.3)
  TPM_ATTESTATION_DATA_INVALID: { status: 400, message: 'tpm: ver, pubArea or certInfo is malformed.' },
  TPM_ATTESTATION_INVALID_HASH_ALGORITHM: { status: 400, message: 'tpm: the name algorithm of the attested object is not supported.' },
  TPM_ATTESTATION_ALGORITHM_NOT_MATCHED: { status: 400, message: 'tpm: alg does not match the AIK certificate\'s key.' },
  TPM_ATTESTATION_CERTINFO_MAGIC_NOT_MATCHED: { status: 400, message: 'tpm: certInfo.magic is not TPM_GENERATED_VALUE.' },
  TPM_ATTESTATION_CERTINFO_TYPE_NOT_MATCHED: { status: 400, message: 'tpm: certInfo.type is not TPM_ST_ATTEST_CERTIFY.' },
  TPM_ATTESTATION_CERTINFO_EXTRADATA_NOT_MATCHED: { status: 400, message: 'tpm: certInfo.extraData is not the hash of authenticatorData and clientDataHash.' },
  TPM_ATTESTATION_CERTINFO_PUBAREA_HASH_NOT_MATCHED: { status: 400, message: 'tpm: certInfo.attested.name is not the name of pubArea.' },
  TPM_ATTESTATION_CERTINFO_PUBAREA_UNIQUE_NOT_MATCH_TO_CREDENTIAL_PUBKEY: { status: 400, message: 'tpm: the key in pubArea is not the credential public key.' },
  TPM_ATTESTATION_CERTIFICATE_VERSION_INVALID: { status: 400, message: 'tpm: the AIK certificate is not version 3.' },
  TPM_ATTESTATION_CERTIFICATE_SUBJECT_FIELD_INVALID: { status: 400, message: 'tpm: the AIK certificate subject must be empty.' },
  TPM_ATTESTATION_CERTIFICATE_SAN_INVALID: { status: 400, message: 'tpm: the AIK certificate subject alternative name lacks a known TPM manufacturer, model or version.' },
  TPM_ATTESTATION_CERTIFICATE_EXTENDED_KEY_USAGE_INVALID: { status: 400, message: 'tpm: the AIK certificate extended key usage lacks tcg-kp-AIKCertificate.' },
  TPM_ATTESTATION_CERTIFICATE_BASIC_CONSTRAINTS_INVALID: { status: 400, message: 'tpm: the AIK certificate must not be a CA.' },
  TPM_ATTESTATION_CERTIFICATE_INVALID: { status: 400, message: 'tpm: the AIK certificate does not meet §8.3.1 (e.g. its AAGUID extension differs from authenticator data).' },
  // android-key (WebAuthn L3 §8.4)
  ANDROID_KEY_ATTESTATION_PUBLIC_KEY_NOT_MATCHED: { status: 400, message: 'android-key: the attestation certificate key is not the credential public key.' },
  ANDROID_KEY_ATTESTATION_DATA_NOT_FOUND: { status: 400, message: 'android-key: the attestation certificate has no key description extension.' },
  ANDROID_KEY_ATTESTATION_DATA_DECODING_FAIL: { status: 400, message: 'android-key: the key description extension is malformed.' },
  ANDROID_KEY_ATTESTATION_ATTESTATION_CHALLENGE_NOT_MATCH_TO_CLIENT_DATA_HASH: { status: 400, message: 'android-key: attestationChallenge is not the clientDataHash.' },
  ANDROID_KEY_ATTESTATION_ATTESTATION_ALL_APPLICATION_SET: { status: 400, message: 'android-key: the key is usable by all applications (allApplications is present).' },
  ANDROID_KEY_ATTESTATION_ORIGIN_NOT_GENERATED: { status: 400, message: 'android-key: the key was not generated inside the keystore (origin is not KM_ORIGIN_GENERATED).' },
  ANDROID_KEY_ATTESTATION_PURPOSE_NOT_SIGN: { status: 400, message: 'android-key: the key purpose is not exactly KM_PURPOSE_SIGN.' },
  ANDROID_KEY_ATTESTATION_ALGORITHM_NOT_MATCHED: { status: 400, message: 'android-key: alg does not match the attestation certificate\'s key.' },
  // android-safetynet (WebAuthn L3 §8.5)
  ANDROID_SAFETYNET_ATTESTATION_VERSION_EMPTY: { status: 400, message: 'android-safetynet: ver is missing or empty.' },
  ANDROID_SAFETYNET_ATTESTATION_DATA_INVALID: { status: 400, message: 'android-safetynet: response is not a well-formed JWS of an attestation.' },
  ANDROID_SAFETYNET_ATTESTATION_NOT_SUPPORTED_SIGNATURE_ALGORITHM: { status: 400, message: 'android-safetynet: the JWS algorithm is not supported.' },
  ANDROID_SAFETYNET_ATTESTATION_CERTIFICATE_NOT_INCLUDED: { status: 400, message: 'android-safetynet: the JWS header carries no x5c certificates.' },
  ANDROID_SAFETYNET_ATTESTATION_HOSTNAME_NOT_MATCHED: { status: 400, message: 'android-safetynet: the signing certificate is not issued to attest.android.com.' },
  ANDROID_SAFETYNET_ATTESTATION_NONCE_NOT_MATCHED: { status: 400, message: 'android-safetynet: nonce is not the hash of authenticatorData and clientDataHash.' },
  ANDROID_SAFETYNET_ATTESTATION_CTS_PROFILE_MATCH_NOT_SET: { status: 400, message: 'android-safetynet: ctsProfileMatch is not true.' },
  ANDROID_SAFETYNET_ATTESTATION_TIMESTAMP_INVALID: { status: 400, message: 'android-safetynet: timestampMs is in the future or older than the accepted window.' },
  // apple (WebAuthn L3 §8.8)
  APPLE_ANONYMOUS_ATTESTATION_DATA_NOT_FOUND: { status: 400, message: 'apple: the credential certificate has no nonce extension.' },
  APPLE_ANONYMOUS_ATTESTATION_DATA_DECODING_FAIL: { status: 400, message: 'apple: the nonce extension is malformed.' },
  APPLE_ANONYMOUS_ATTESTATION_NONCE_NOT_MATCHED: { status: 400, message: 'apple: the nonce is not the hash of authenticatorData and clientDataHash.' },
  APPLE_ANONYMOUS_ATTESTATION_PUBLIC_KEY_NOT_MATCHED: { status: 400, message: 'apple: the credential certificate key is not the credential public key.' },
  // Trust policy and FIDO metadata (MDS3)
  AAGUID_NOT_ALLOWED: { status: 400, message: 'The application does not accept this authenticator model (AAGUID deny-list, or not on its allow-list).' },
  AAGUID_NOT_PROVEN: { status: 400, message: 'The application\'s AAGUID allow- or deny-list decides only on an AAGUID a trusted attestation proved (a chain to its trust anchors or to the roots of that AAGUID\'s metadata statement); this attestation proves none.' },
  BACKUP_ELIGIBILITY_REQUIRED: { status: 400, message: 'The application accepts only synced passkeys (backupEligibility "required"), and this credential is not backup eligible.' },
  BACKUP_ELIGIBILITY_NOT_ALLOWED: { status: 400, message: 'The application accepts only device-bound credentials (backupEligibility "forbidden"), and this credential is backup eligible.' },
  AUTHENTICATOR_STATUS_NOT_ACCEPTED: { status: 400, message: 'FIDO metadata reports this authenticator model as compromised or revoked.' },
  METADATA_BLOB_EXPIRED: { status: 503, message: 'The metadata BLOB is past its nextUpdate, so trust cannot be decided; the operator must install a newer BLOB.' },
  METADATA_BLOB_INVALID: { status: 500, message: 'The metadata BLOB is not a well-formed MDS3 JWT.' },
  METADATA_BLOB_SIGNATURE_INVALID: { status: 500, message: 'The metadata BLOB signature does not verify, or its certificate chain does not lead to the MDS root.' },
  METADATA_BLOB_NOT_NEWER: { status: 500, message: 'The new metadata BLOB is not newer (its serial number "no") than the installed one.' },
  METADATA_BLOB_CERTIFICATE_REVOKED: { status: 500, message: 'A certificate of the metadata BLOB\'s signing chain is listed as revoked on its issuer\'s CRL (attestation.metadataCrls).' },
  METADATA_BLOB_CRL_MISSING: { status: 500, message: 'CRLs are configured (attestation.metadataCrls), but none of them covers a certificate of the metadata BLOB\'s signing chain.' },
  METADATA_BLOB_CRL_INVALID: { status: 500, message: 'A CRL of the metadata BLOB\'s signing chain cannot be used: unreadable, not signed by the issuer, stale (past nextUpdate) or not yet valid.' },

  // --- Stored credentials and assertions ---
  DUPLICATED_CREDENTIAL_ID: { status: 400, message: 'This credential id is already registered.' },
  CREDENTIAL_ID_NOT_FOUND: { status: 400, message: 'The credential is not registered for this user and application.' },
  USER_HANDLE_NOT_MATCHED: { status: 400, message: 'The user handle does not match the credential\'s owner.' },
  USER_HANDLE_MISSING: { status: 400, message: 'A sign-in without a user name needs response.userHandle (a discoverable credential).' },
  ASSERTION_SIGNATURE_VERIFICATION_FAIL: { status: 400, message: 'The assertion signature does not verify.' },
  SIGNATURE_COUNTER_NOT_INCREASED: { status: 400, message: 'The signature counter did not increase: the authenticator may have been cloned.' },

  // --- A user's own credentials (POST /api/credentials/list, /api/credentials/delete) ---
  CREDENTIALS_TOKEN_INVALID: { status: 403, message: 'credentialsToken is not one this service issued for this user of this application (another user\'s, another application\'s, or altered).' },
  CREDENTIALS_TOKEN_EXPIRED: { status: 403, message: 'credentialsToken has expired (it is valid for 10 minutes after the sign-in or registration that issued it): sign in again.' },

  // --- Local variant (the `localhost` key blob; texts never carry key material) ---
  LOCAL_EXTENSION_MISSING: { status: 400, message: 'A local-variant attestation result must carry extensions.localhost = true (the relay sets it).' },
  LOCAL_EXTENSION_UNEXPECTED: { status: 400, message: 'extensions.localhost belongs to the local variant; this ceremony uses the standard variant.' },
  LOCAL_BLOB_MISSING: { status: 400, message: 'A local-variant assertion result must carry extensions.localhost = the string the attestation result returned.' },
  LOCAL_BLOB_NOT_STRING: { status: 400, message: 'extensions.localhost must be the string the attestation result returned (true is only for the attestation result).' },
  LOCAL_BLOB_MALFORMED: { status: 400, message: 'extensions.localhost is not a well-formed key blob (not base64url, truncated, or with trailing bytes).' },
  LOCAL_BLOB_VERSION_UNSUPPORTED: { status: 400, message: 'The key blob has a format version this service does not read; register the credential again.' },
  LOCAL_BLOB_KEY_UNKNOWN: { status: 400, message: 'The key blob was sealed with a key this service does not hold (retired, or another deployment); register the credential again.' },
  LOCAL_BLOB_TAMPERED: { status: 400, message: 'The key blob failed its authenticity check: it was altered or corrupted.' },
  LOCAL_BLOB_APPLICATION_MISMATCH: { status: 400, message: 'The key blob was issued to another application (Client ID).' },
  LOCAL_BLOB_USER_MISMATCH: { status: 400, message: 'The key blob was issued to another user than the one this ceremony is for.' },
  LOCAL_BLOB_CREDENTIAL_MISMATCH: { status: 400, message: 'The key blob holds another credential than the one that signed (id/rawId).' },

  // --- Service ---
  RATE_LIMITED: { status: 429, message: 'Too many requests; retry after the time given in Retry-After.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'A backing store is unreachable; retry shortly.' },
  INTERNAL_SERVER_ERROR: { status: 500, message: 'Unexpected error. The service log has the details under the request id.' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorName = keyof typeof ERRORS;

/**
 * A failure with a catalogue name; `detail` is a short, safe text for the integrator (never a secret).
 * `fields` are members the failure envelope carries beside its three (only `signals.unknownCredential`,
 * docs/api.md "Signals"); never anything that says who a user is.
 */
export class FidoError extends Error {
  readonly code: ErrorName;
  readonly detail: string | undefined;
  readonly fields: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorName, detail?: string, options?: { cause?: unknown; fields?: Readonly<Record<string, unknown>> }) {
    super(detail ? `${code}: ${detail}` : code, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.detail = detail;
    this.fields = options?.fields;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

/** Raised by a store when its backend cannot be reached; the HTTP layer and the admin API answer 503 SERVICE_UNAVAILABLE. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Throws `FidoError(code, detail)` unless `condition` holds. Keeps each verification step one line. */
export function check(condition: unknown, code: ErrorName, detail?: string): asserts condition {
  if (!condition) throw new FidoError(code, detail);
}

export function isErrorName(value: string): value is ErrorName {
  return  Object.hasOwn(ERRORS, value);
}
