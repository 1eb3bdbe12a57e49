// The one catalogue of error names. A name is API: clients match on it, so it never changes meaning.
// Each entry carries the HTTP status of the answer and a default text for integrators.
// docs/errors.md lists every name; test/errors.test.ts keeps the two in step.
// Names come from the underlying open-source FIDO2 server where one fits (see docs/errors.md).
// The names are kept by group, one file each in src/errors/; ERRORS joins them, in the order docs/errors.md
// lists them, and every user imports it from here. A name repeated in two groups would silently keep the later
// entry; test/errors.test.ts counts the names against docs/errors.md, which lists each once.

import { ATTESTATION_FORMAT_ERRORS } from './attestation-formats.js';
import { ATTESTATION_ERRORS } from './attestation.js';
import { CREDENTIAL_ERRORS } from './credentials.js';
import { REQUEST_ERRORS } from './request.js';
import { TRUST_ERRORS } from './trust.js';

export interface ErrorSpec {
  readonly status: number;
  readonly message: string;
}

export const ERRORS = {
  ...REQUEST_ERRORS,
  ...ATTESTATION_ERRORS,
  ...ATTESTATION_FORMAT_ERRORS,
  ...TRUST_ERRORS,
  ...CREDENTIAL_ERRORS,

  // --- Service ---
  RATE_LIMITED: { status: 429, message: 'Too many requests; retry after the time given in Retry-After.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'A backing store is unreachable; retry shortly.' },
  INTERNAL_SERVER_ERROR: {
    status: 500,
    message: 'Unexpected error. The service log has the details under the request id.',
  },
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

  constructor(
    code: ErrorName,
    detail?: string,
    options?: { cause?: unknown; fields?: Readonly<Record<string, unknown>> },
  ) {
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
  return Object.hasOwn(ERRORS, value);
}
