// Buckets in process memory, for a single instance. Bounded: buckets that have refilled completely are
// forgotten (that changes nothing), and past `maxBuckets` the oldest are dropped.
import { refill, retryAfterSeconds, waitMs, type BucketState } from '../token-bucket.js';
import type { BucketDecision, BucketRequest, BucketStore } from '../types.js';

const ALLOWED: BucketDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

interface Entry extends BucketState {
  /** When the bucket will be full again if untouched. */
  readonly fullAt: number;
}

export class MemoryBucketStore implements BucketStore {
  readonly #buckets = new Map<string, Entry>();
  readonly #maxBuckets: number;

  constructor(options: { readonly maxBuckets?: number } = {}) {
    this.#maxBuckets = options.maxBuckets ?? 100_000;
  }

  get size(): number {
    return this.#buckets.size;
  }

  async consume(buckets: readonly BucketRequest[], now: number): Promise<BucketDecision> {
    // No await below: the check and the take are one step for every other caller. Plain loops: this runs
    // for every request of the four operations.
    const states: BucketState[] = [];
    let wait = 0;
    for (const { key, rule } of buckets) {
      const state = refill(this.#buckets.get(key), rule, now);
      states.push(state);
      wait = Math.max(wait, waitMs(state, rule));
    }
    if (wait > 0) return { allowed: false, retryAfterSeconds: retryAfterSeconds(wait) };
    for (let i = 0; i < buckets.length; i++) {
      const { key, rule } = buckets[i]!;
      const state = states[i]!;
      const tokens = state.tokens - 1;
      this.#buckets.delete(key); // re-insert: Map order becomes least-recently-used first
      this.#buckets.set(key, {
        tokens,
        updatedAt: state.updatedAt,
        fullAt: state.updatedAt + Math.ceil(((rule.burst - tokens) * 1000) / rule.perSecond),
      });
    }
    if (this.#buckets.size > this.#maxBuckets) this.#evict(now);
    return ALLOWED;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#buckets.clear();
  }

  #evict(now: number): void {
    for (const [key, entry] of this.#buckets) {
      if (entry.fullAt <= now) this.#buckets.delete(key);
    }
    // Still too many active buckets: drop the least recently used tenth (they refill as if new: lenient).
    const excess = this.#buckets.size - Math.floor(this.#maxBuckets * 0.9);
    if (excess <= 0) return;
    let dropped = 0;
    for (const key of this.#buckets.keys()) {
      if (dropped >= excess) break;
      this.#buckets.delete(key);
      dropped += 1;
    }
  }
}
