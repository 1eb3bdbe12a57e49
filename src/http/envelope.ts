// The one mapping from outcomes to the response envelope (docs/decisions.md "Envelope and HTTP status").
// Success: {status:"ok", errorMessage:"", sessionId:"", ...fields}, HTTP 200.
// Failure: {status:"failed", errorMessage:[NAME, description], sessionId:""} with the catalogue's status.

import { ERRORS, FidoError, type ErrorName } from '../errors/catalogue.js';
import { StoreUnavailableError } from '../errors/catalogue.js';

export interface Reply {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
  /** Extra response headers (e.g. Allow, Retry-After). */
  readonly headers?: Readonly<Record<string, string>>;
}

export function ok(fields: Readonly<Record<string, unknown>>): Reply {
  // Envelope first (readable order); operations never return fields of these names.
  return { status: 200, body: { status: 'ok', errorMessage: '', sessionId: '', ...fields } };
}

export function failed(
  code: ErrorName,
  detail?: string,
  headers?: Readonly<Record<string, string>>,
  fields?: Readonly<Record<string, unknown>>,
): Reply {
  const spec = ERRORS[code];
  const reply: Reply = {
    status: spec.status,
    // Envelope first (readable order); FidoError.fields never hold members of these names.
    body: { status: 'failed', errorMessage: [code, detail ?? spec.message], sessionId: '', ...fields },
  };
  // A 401 names the scheme it asks for (RFC 9110 §11.6.1, RFC 6750 §3): the relay secret's Bearer.
  const all = spec.status === 401 ? { 'www-authenticate': 'Bearer realm="passkey-server"', ...headers } : headers;
  return all ? { ...reply, headers: all } : reply;
}

export interface ClassifiedError {
  readonly reply: Reply;
  /** true when the failure is ours, not the caller's: log it with the request id. */
  readonly unexpected: boolean;
}

/** Turns anything thrown by an operation into its reply. Unknown errors never leak their text. */
export function replyForError(error: unknown): ClassifiedError {
  if (error instanceof FidoError)
    return { reply: failed(error.code, error.detail, undefined, error.fields), unexpected: false };
  if (error instanceof StoreUnavailableError) return { reply: failed('SERVICE_UNAVAILABLE'), unexpected: true };
  return { reply: failed('INTERNAL_SERVER_ERROR'), unexpected: true };
}
