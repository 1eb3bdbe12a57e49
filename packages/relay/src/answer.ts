// Writes the relay's answers: the JSON of an operation (the service's own bytes when the relay changed
// nothing) and the related origins document.
import type { ServerResponse } from 'node:http';
import type { Outcome } from './outcome.js';

export interface RelayAnswer {
  readonly status: number;
  /** The JSON bytes to send (the service's own bytes when the relay changed nothing). */
  readonly payload: Buffer;
  /** The service's Retry-After (429), passed on. */
  readonly retryAfter?: string | undefined;
}

export function toAnswer(outcome: Outcome): RelayAnswer {
  const payload = outcome.raw ?? Buffer.from(JSON.stringify(outcome.body));
  return outcome.retryAfter === undefined
    ? { status: outcome.status, payload }
    : { status: outcome.status, payload, retryAfter: outcome.retryAfter };
}

export function send(response: ServerResponse, answer: RelayAnswer): void {
  if (response.headersSent) return;
  response.statusCode = answer.status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('content-length', answer.payload.length);
  response.setHeader('cache-control', 'no-store');
  if (answer.retryAfter !== undefined) response.setHeader('retry-after', answer.retryAfter);
  response.end(answer.payload);
}

/** GET (and HEAD) of the related origins document; cached briefly, as browsers fetch it per ceremony. */
export function sendRelatedOrigins(response: ServerResponse, method: string, body: string): void {
  if (method !== 'GET' && method !== 'HEAD') {
    response.statusCode = 405;
    response.setHeader('allow', 'GET, HEAD');
    response.end();
    return;
  }
  response.statusCode = 200;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('content-length', Buffer.byteLength(body));
  response.setHeader('cache-control', 'public, max-age=300');
  response.end(method === 'HEAD' ? undefined : body);
}
