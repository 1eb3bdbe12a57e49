// A Map whose entries expire, for the in-process challenge store: entries sit in the order they were set,
// which is the order they expire in when every entry lives as long (one timeout). So each change first
// removes expired entries from the oldest end, stopping at the first live one: O(what expired), at most
// MAX_HEAD_SWEEP per change, never a pause over the whole map. With several lifetimes an expired entry can
// wait behind a live older one (readers check expiry themselves, so this only delays freeing it): then,
// and only then, a full sweep, O(size), runs whenever the map has doubled since the last one.

const MAX_HEAD_SWEEP = 64;
const MIN_FULL_SWEEP_SIZE = 1024;

export class ExpiringMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #expiryOf: (value: V) => number;
  #sizeAfterFullSweep = 0;
  /** The latest expiry set so far, and whether a later entry expires earlier (several lifetimes in use). */
  #latestExpiry = Number.NEGATIVE_INFINITY;
  #outOfOrder = false;

  constructor(expiryOf: (value: V) => number) {
    this.#expiryOf = expiryOf;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Adds (or replaces) an entry; `now` frees what expired before it. */
  set(key: K, value: V, now: number): void {
    this.#entries.set(key, value);
    const expiry = this.#expiryOf(value);
    if (expiry < this.#latestExpiry) this.#outOfOrder = true;
    else this.#latestExpiry = expiry;
    this.sweepHead(now);
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** Removes expired entries from the oldest end (see the top of this file). */
  sweepHead(now: number): void {
    let removed = 0;
    for (const [key, value] of this.#entries) {
      if (removed >= MAX_HEAD_SWEEP || this.#expiryOf(value) >= now) break;
      this.#entries.delete(key);
      removed += 1;
    }
    if (this.#outOfOrder && this.#entries.size > Math.max(MIN_FULL_SWEEP_SIZE, 2 * this.#sizeAfterFullSweep))
      this.sweep(now);
  }

  /** Removes every entry that expired before `now`. */
  sweep(now: number): void {
    for (const [key, value] of this.#entries) {
      if (this.#expiryOf(value) < now) this.#entries.delete(key);
    }
    this.#sizeAfterFullSweep = this.#entries.size;
    this.#outOfOrder = false;
  }

  clear(): void {
    this.#entries.clear();
  }
}
