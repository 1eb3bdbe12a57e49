// Error names of the request itself: its transport and shape, the caller's identity, the ceremony its
// challenge names, and the client data (part of the one catalogue, ERRORS in src/errors/catalogue.ts).
// No `satisfies` here: src/errors/catalogue.ts checks the whole catalogue at once, so this file imports nothing.

export const REQUEST_ERRORS = {
  // --- Transport and request shape ---
  NOT_FOUND: {
    status: 404,
    message:
      "No such operation. The four operations are POST /api/attestation/options, /api/attestation/result, /api/assertion/options and /api/assertion/result; a user's own passkeys are POST /api/credentials/list, /api/credentials/delete and /api/credentials/rename.",
  },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Only POST is accepted.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be JSON (Content-Type: application/json).' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than the service accepts.' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  MALFORMED_HTTP_REQUEST: {
    status: 400,
    message:
      'The request is not well-formed HTTP/1.1 (its framing, a control character in a header, or no Host header).',
  },
  REQUEST_HEADERS_TOO_LARGE: { status: 431, message: 'The request header block is larger than 16 KiB.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time.' },
  INVALID_REQUEST_BODY: {
    status: 400,
    message: 'A field of the request is missing, of the wrong type, or out of bounds.',
  },
  UNKNOWN_HINT: {
    status: 400,
    message: 'hints may hold only "security-key", "client-device" and "hybrid" (WebAuthn L3 PublicKeyCredentialHint).',
  },

  // --- Caller identity (User-agent, origin header, username) ---
  CLIENT_ID_MISSING: { status: 400, message: 'The User-agent header must carry "<Vendor> AppID: <client id>".' },
  CLIENT_ID_MALFORMED: {
    status: 400,
    message:
      'The User-agent header is not exactly "<Vendor> AppID: <client id>" (a relay must overwrite the browser\'s value, not append to it).',
  },
  CLIENT_ID_UNKNOWN: { status: 403, message: 'The Client ID is not registered, or its application is disabled.' },
  RELAY_SECRET_MISSING: {
    status: 401,
    message: "This application's relay must send its relay secret: Authorization: Bearer <secret>.",
  },
  RELAY_SECRET_INVALID: {
    status: 401,
    message: "The Authorization header does not carry one of this application's relay secrets.",
  },
  ORIGIN_HEADER_MISSING: { status: 400, message: 'The standard variant requires the origin header.' },
  ORIGIN_NOT_ALLOWED: { status: 403, message: "The origin header is not one of the application's registered origins." },
  VARIANT_NOT_ALLOWED: {
    status: 403,
    message: 'The application may not use this variant (the standard variant needs an approved domain).',
  },
  LOCAL_VARIANT_DISABLED: {
    status: 403,
    message: 'The local (development) variant is switched off on this deployment.',
  },
  INVALID_USERNAME: {
    status: 400,
    message: 'username must be "<user>#<domain>" with a non-empty user part, in well-formed Unicode.',
  },
  INVALID_DISPLAY_NAME: { status: 400, message: 'displayName must be well-formed Unicode (no lone surrogate).' },
  RPID_NOT_FOUND: {
    status: 400,
    message: 'The domain after "#" in username is neither the application\'s domain nor localhost.',
  },

  // --- Ceremony (challenge) lookup ---
  SESSION_NOT_FOUND: {
    status: 400,
    message:
      'No pending ceremony for this challenge: it was never issued, belongs to another application or operation, or has expired.',
  },
  SESSION_ALREADY_REVOKED: { status: 400, message: 'This challenge was already used; ask for new options.' },

  // --- Client data (WebAuthn L3 §7.1 steps 5-11, §7.2 steps 9-15) ---
  INVALID_FORMAT_CLIENT_DATA_JSON: {
    status: 400,
    message: 'clientDataJSON is not base64url-encoded UTF-8 JSON of the expected shape.',
  },
  INVALID_OPERATION_TYPE: { status: 400, message: 'clientDataJSON.type does not match the operation.' },
  CHALLENGE_NOT_MATCHED: { status: 400, message: 'clientDataJSON.challenge does not match the issued challenge.' },
  INVALID_ORIGIN: { status: 400, message: 'clientDataJSON.origin is not a valid origin.' },
  ORIGIN_NOT_MATCHED: { status: 400, message: 'clientDataJSON.origin does not match the expected origin.' },
  CROSS_ORIGIN_NOT_ALLOWED: {
    status: 400,
    message: 'The ceremony ran in a cross-origin frame, which the application does not allow.',
  },
  TOP_ORIGIN_NOT_MATCHED: {
    status: 400,
    message:
      "The ceremony ran in a cross-origin frame whose top-level page (clientDataJSON.topOrigin) is missing or not one of the application's topOrigins.",
  },
  TOKEN_BINDING_STATUS_MISSING: {
    status: 400,
    message: 'clientDataJSON.tokenBinding is present but has no valid status.',
  },
  TOKEN_BINDING_INFO_NOT_MATCHED: { status: 400, message: 'Token binding is not supported by this service.' },
} as const;
