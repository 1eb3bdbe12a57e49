// The clock and the randomness, injected everywhere so tests are deterministic.
import { randomBytes } from 'node:crypto';

export interface Runtime {
  /** Epoch milliseconds. */
  now(): number;
  randomBytes(size: number): Buffer;
}

export const systemRuntime: Runtime = {
  now: () => Date.now(),
  randomBytes: (size) => randomBytes(size),
};
