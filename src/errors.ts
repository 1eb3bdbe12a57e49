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
  NOT_FOUND: { status: 404, message: 'No such operation. The four operations are POST /api/attestation/options, /api/attestation/result, /api/assertion/options and /api/assertion/result.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Only POST is accepted.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be JSON (Content-Type: application/json).' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than the service accepts.' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  INVALID_REQUEST_BODY: { status: 400, message: 'A field of the request is missing, of the wrong type, or out of bounds.' },

  // --- Caller identity (User-agent, origin header, username) ---
  CLIENT_ID_MISSING: { status: 400, message: 'The User-agent header must carry "<Vendor> AppID: <client id>".' },
  CLIENT_ID_MALFORMED: { status: 400, message: 'The User-agent header is not exactly "<Vendor> AppID: <client id>" (a relay must overwrite the browser\'s value, not append to it).' },
  CLIENT_ID_UNKNOWN: { status: 403, message: 'The Client ID is not registered, or its application is disabled.' },
  ORIGIN_HEADER_MISSING: { status: 400, message: 'The standard variant requires the origin header.' },
  ORIGIN_NOT_ALLOWED: { status: 403, message: 'The origin header is not one of the application\'s registered origins.' },
  VARIANT_NOT_ALLOWED: { status: 403, message: 'The application may not use this variant (the standard variant needs an approved domain).' },
  LOCAL_VARIANT_DISABLED: { status: 403, message: 'The local (development) variant is switched off on this deployment.' },
  INVALID_USERNAME: { status: 400, message: 'username must be "<user>#<domain>" with a non-empty user part.' },
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

  // --- Stored credentials and assertions ---
  DUPLICATED_CREDENTIAL_ID: { status: 400, message: 'This credential id is already registered.' },
  CREDENTIAL_ID_NOT_FOUND: { status: 400, message: 'The credential is not registered for this user and application.' },
  USER_HANDLE_NOT_MATCHED: { status: 400, message: 'The user handle does not match the credential\'s owner.' },
  ASSERTION_SIGNATURE_VERIFICATION_FAIL: { status: 400, message: 'The assertion signature does not verify.' },
  SIGNATURE_COUNTER_NOT_INCREASED: { status: 400, message: 'The signature counter did not increase: the authenticator may have been cloned.' },

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

/** A failure with a catalogue name; `detail` is a short, safe text for the integrator (never a secret). */
export class FidoError extends Error {
  readonly code: ErrorName;
  readonly detail: string | undefined;

  constructor(code: ErrorName, detail?: string, options?: { cause?: unknown }) {
    super(detail ? `${code}: ${detail}` : code, options);
    this.code = code;
    this.detail = detail;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

/** Throws `FidoError(code, detail)` unless `condition` holds. Keeps each verification step one line. */
export function check(condition: unknown, code: ErrorName, detail?: string): asserts condition {
  if (!condition) throw new FidoError(code, detail);
}

export function isErrorName(value: string): value is ErrorName {
  return Object.prototype.hasOwnProperty.call(ERRORS, value);
}
