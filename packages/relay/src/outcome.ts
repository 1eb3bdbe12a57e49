// What one call to the service came to, as the relay passes it on: status, envelope, the service's own
// bytes when the relay changed nothing, and its Retry-After.
import type { Envelope } from './errors.js';

export type Body = Record<string, unknown>;

export interface Outcome {
  readonly status: number;
  readonly body: Envelope;
  /** The service's own bytes; undefined once the relay changed the body. */
  readonly raw?: Buffer | undefined;
  readonly retryAfter?: string | undefined;
}
