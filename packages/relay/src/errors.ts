// The relay's own failures, answered in the service's envelope so a page handles one shape only.
// Names that mean the same as the service's reuse the service's name; the rest start with RELAY_ or
// say what the relay itself refused. docs/relay.md lists them.

export const RELAY_ERRORS = {
  NOT_FOUND: {
    status: 404,
    message:
      'The relay answers POST <prefix>/attestation/options, /attestation/result, /assertion/options, /assertion/result, /credentials/list, /credentials/delete and /credentials/rename.',
  },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Only POST is accepted.' },
  CROSS_SITE_REQUEST: {
    status: 403,
    message:
      "The relay answers its page's own calls only: this one came from another site or origin (Sec-Fetch-Site, Origin).",
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be JSON (Content-Type: application/json).' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than the relay accepts.' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not a JSON object.' },
  RELAY_NOT_SIGNED_IN: {
    status: 401,
    message:
      'Sign in first: the relay manages the passkeys of the signed-in user only, and its session names nobody (or no recent sign-in).',
  },
  REGISTRATION_NOT_ALLOWED: {
    status: 403,
    message: 'This site does not allow registering a passkey for this user now (sign in first).',
  },
  RELAY_CEREMONY_UNKNOWN: {
    status: 400,
    message:
      'This relay issued no options for the challenge in clientDataJSON (expired, or asked through another relay instance); start again.',
  },
  LOCAL_CREDENTIAL_UNKNOWN: {
    status: 400,
    message: 'The relay keeps no localhost blob for this user and credential; register the passkey again.',
  },
  CREDENTIALS_TOKEN_INVALID: {
    status: 403,
    message:
      "Local variant: credentialsToken is not one this relay instance issued for this user (another user's, altered, or issued before a restart).",
  },
  CREDENTIALS_TOKEN_EXPIRED: {
    status: 403,
    message:
      'Local variant: credentialsToken has expired (10 minutes after the sign-in that issued it): sign in again.',
  },
  CREDENTIAL_ID_NOT_FOUND: {
    status: 400,
    message: 'Local variant: the relay keeps no passkey with this id for this user.',
  },
  DUPLICATED_CREDENTIAL_ID: {
    status: 400,
    message:
      'Local variant: this user has a passkey with this credential id already; the relay keeps its blob and registers nothing.',
  },
  INVALID_NICKNAME: {
    status: 400,
    message:
      'Local variant: nickname must be a string of 1 to 64 characters (after trimming spaces) without control characters, or null to clear it.',
  },
  RELAY_STORE_FAILED: { status: 500, message: 'The relay could not save the registered credential; register again.' },
  RELAY_INTERNAL_ERROR: { status: 500, message: 'The relay failed unexpectedly; the detail is in its log.' },
  RELAY_UPSTREAM_UNREACHABLE: { status: 502, message: 'The passkey service could not be reached.' },
  RELAY_UPSTREAM_INVALID_RESPONSE: {
    status: 502,
    message: 'The passkey service answered with something other than its JSON envelope.',
  },
  RELAY_UPSTREAM_TIMEOUT: { status: 504, message: 'The passkey service did not answer in time.' },
} as const;

export type RelayErrorName = keyof typeof RELAY_ERRORS;

export interface Envelope {
  readonly status: 'ok' | 'failed';
  readonly errorMessage: string | readonly string[];
  readonly sessionId: string;
  readonly [field: string]: unknown;
}

/** A relay-made failure: the name first, then a sentence that helps the integrator (as the service does). */
export function failedEnvelope(name: RelayErrorName, detail?: string): { status: number; body: Envelope } {
  const spec = RELAY_ERRORS[name];
  return {
    status: spec.status,
    body: { status: 'failed', errorMessage: [name, detail ?? spec.message], sessionId: '' },
  };
}
