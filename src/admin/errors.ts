// Errors of the admin API (not of the four operations: those are in src/errors/catalogue.ts). Same idea: a name
// that is API, an HTTP status, a default text. Answers are {"error": NAME, "message": text, "problems"?: [...]}.
import { ERRORS } from '../errors/catalogue.js';

export const ADMIN_ERRORS = {
  UNAUTHORIZED: { status: 401, message: 'An admin token is required: Authorization: Bearer <token>.' },
  NOT_FOUND: { status: 404, message: 'No such resource.' },
  HOST_NOT_ALLOWED: {
    status: 403,
    message:
      'The Host header names no host this admin listener answers for (loopback, its bound host, admin.allowedHosts).',
  },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not allowed on this resource.' },
  // The body reader's failures: the same names, statuses and texts as the four operations' (src/http/body.ts reads both).
  UNSUPPORTED_MEDIA_TYPE: ERRORS.UNSUPPORTED_MEDIA_TYPE,
  PAYLOAD_TOO_LARGE: ERRORS.PAYLOAD_TOO_LARGE,
  MALFORMED_JSON: ERRORS.MALFORMED_JSON,
  INVALID_REQUEST: { status: 400, message: 'The request is invalid; see problems.' },
  APPLICATION_NOT_FOUND: { status: 404, message: 'No application with this Client ID.' },
  APPLICATION_EXISTS: { status: 409, message: 'An application with this Client ID already exists.' },
  APPLICATION_NOT_APPROVABLE: {
    status: 409,
    message: "The standard variant needs at least one origin on the application's domain before it can be approved.",
  },
  APPLICATION_LOCAL_ONLY: {
    status: 409,
    message: 'This application runs only the local variant, which stores no keys: passkeys cannot be imported into it.',
  },
  USER_MISMATCH: {
    status: 400,
    message: 'username and userHandle name different users; give one of them, or both of the same user.',
  },
  CREDENTIAL_NOT_FOUND: { status: 404, message: 'No credential with this id in this application.' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'No webhook with this id in this application.' },
  WEBHOOK_FROM_CONFIG: {
    status: 409,
    message: 'This webhook comes from the config file: change or remove it there (applications[].webhooks).',
  },
  RELAY_SECRET_NOT_FOUND: { status: 404, message: 'No relay secret with this id in this application.' },
  RELAY_SECRET_FROM_CONFIG: {
    status: 409,
    message: 'This relay secret comes from the config file: remove it there (applications[].relaySecrets).',
  },
  RELAY_SECRET_LIMIT: {
    status: 409,
    message: 'This application has as many created relay secrets as it may (10): revoke one first.',
  },
  DEAD_LETTER_NOT_FOUND: { status: 404, message: 'No dead letter with this id (delivered, sent again, or unknown).' },
  METADATA_RELOAD_FAILED: {
    status: 422,
    message:
      'A metadata BLOB could not be reloaded (it does not verify, its CRLs fail, or its file is unreadable); the previous BLOB stays in use. See applications[].error.',
  },
  SERVICE_UNAVAILABLE: { status: 503, message: 'A backing store is unreachable; retry shortly.' },
  INTERNAL_SERVER_ERROR: {
    status: 500,
    message: 'Unexpected error. The service log has the details under the request id.',
  },
} as const satisfies Record<string, { readonly status: number; readonly message: string }>;

export type AdminErrorName = keyof typeof ADMIN_ERRORS;

export class AdminError extends Error {
  readonly code: AdminErrorName;
  readonly problems: readonly string[] | undefined;

  constructor(code: AdminErrorName, message?: string, problems?: readonly string[]) {
    super(message ?? ADMIN_ERRORS[code].message);
    this.name = 'AdminError';
    this.code = code;
    this.problems = problems;
  }

  get status(): number {
    return ADMIN_ERRORS[this.code].status;
  }
}
