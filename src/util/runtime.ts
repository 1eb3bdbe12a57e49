// The clock, the timers and the randomness, injected everywhere so tests are deterministic.
import { randomFillSync } from 'node:crypto';
import { PreciseTimers, type ThreadStop, type Timer } from './precise-timers.js';

export type { Timer } from './precise-timers.js';

export interface Runtime {
  /** Epoch milliseconds. */
  now(): number;
  randomBytes(size: number): Buffer;
  /** A timer started now that fires `ms` later: the answer floor's (src/http/answer-floor.ts). */
  startTimer(ms: number): Timer;
  /**
   * Readies the timers before the first one starts (the precise timers' thread), so that no timer waits
   * for a start-up; awaited before the service listens with an answer floor. `onStop` hears that the
   * thread stopped (its timers then run late until another starts). Optional: fake timers need nothing.
   */
  prepareTimers?(onStop?: (stop: ThreadStop) => void): Promise<void> | void;
}

/** Bytes drawn from the CSPRNG at once: one call into OpenSSL serves 128 challenges. */
const POOL_BYTES = 4096;

/**
 * node:crypto's randomness, drawn a pool at a time (as Node's own randomUUID does). The one pool of the
 * service: every options call draws its challenge from it and every audit event the random part of its id,
 * and a call into the CSPRNG costs about as much for 4 KiB as for 4 bytes (docs/performance.md has the
 * paired figure that keeps it). Each answer is a view of bytes no other caller gets; a used-up pool is
 * replaced, never refilled in place, so views handed out earlier keep their bytes. Draws above a quarter
 * of the pool get a call of their own.
 */
export function pooledRandomBytes(poolBytes = POOL_BYTES): (size: number) => Buffer {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return (size) => {
    if (size > poolBytes / 4) return randomFillSync(Buffer.allocUnsafe(size));
    if (offset + size > pool.length) {
      pool = randomFillSync(Buffer.allocUnsafe(poolBytes));
      offset = 0;
    }
    const bytes = pool.subarray(offset, offset + size);
    offset += size;
    return bytes;
  };
}

// Not node's setTimeout: its firing is delayed by the work done after it started (precise-timers.ts).
const preciseTimers = new PreciseTimers();

export const systemRuntime: Runtime = {
  now: () => Date.now(),
  randomBytes: pooledRandomBytes(),
  startTimer: preciseTimers.start,
  prepareTimers: (onStop) => preciseTimers.startThread(onStop ? { onStop } : {}),
};
