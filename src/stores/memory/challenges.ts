// The challenge store in process memory: the reference implementation of ChallengeStore
// (src/stores/types.ts), and the challenge store of a single-instance deployment. Every check-then-change
// below runs without an `await` in between, so it is atomic with respect to every other call on the same
// store (Node runs one callback at a time).

import type {
  CeremonyRecord,
  ChallengeStore,
  LocalCredentialLimits,
  LocalCredentialRecord,
  TakeResult,
} from '../types.js';
import { ExpiringMap } from './expiring-map.js';
import { MemoryRememberedIds } from './remembered-ids.js';

/** Key of a (client, id) pair; NUL cannot occur in a Client ID the HTTP layer accepts. */
const pairKey = (clientId: string, id: string): string => `${clientId}\u0000${id}`;

export interface MemoryChallengeStoreOptions {
  /**
   * The clock used to free expired entries when ceremonies are put (the composition root passes
   * `runtime.now`). Without it the store frees them with the latest `now` it was given by `take`.
   */
  readonly clock?: () => number;
  /** Bounds of the local variant's remembered credential ids (default LOCAL_CREDENTIAL_LIMITS). */
  readonly localLimits?: Partial<LocalCredentialLimits>;
}

/**
 * A used-marker's key: 52 bits of two FNV-1a hashes of (Client ID, challenge). A marker answers "used" for
 * a replay until the ceremony would have expired, so markers pile up at the rate of ceremonies times the
 * timeout (900,000 at 5,000 a second and 180 s): as two numbers instead of the ceremony's text key and an
 * object they take about a third of the memory. A collision (about 2^-52 per pair) could only turn a
 * "missing" answer into "used", both failures.
 */
function usedKey(clientId: string, challenge: string): number {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < clientId.length; i++) {
    const c = clientId.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  a = Math.imul(a, 0x01000193); // the NUL between the two (NUL cannot occur in a Client ID)
  b = Math.imul(b, 0x5bd1e995);
  for (let i = 0; i < challenge.length; i++) {
    const c = challenge.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 0x100000 + ((b >>> 0) >>> 12);
}

export class MemoryChallengeStore implements ChallengeStore {
  /** Pending ceremonies by (Client ID, challenge). */
  readonly #pending = new ExpiringMap<string, CeremonyRecord>((record) => record.expiresAt);
  /** Taken ceremonies: usedKey → when the ceremony would have expired (epoch ms). */
  readonly #used = new ExpiringMap<number, number>((expiresAt) => expiresAt);
  readonly #clock: (() => number) | undefined;
  readonly #local: MemoryRememberedIds;
  #latestNow = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryChallengeStoreOptions = {}) {
    this.#clock = options.clock;
    this.#local = new MemoryRememberedIds(options.localLimits);
  }

  /** Entries held (pending ceremonies and used-markers); exposed for tests of the memory bound. */
  get size(): number {
    return this.#pending.size + this.#used.size;
  }

  async put(record: CeremonyRecord): Promise<void> {
    const now = this.#clock?.() ?? this.#latestNow;
    this.#pending.set(pairKey(record.clientId, record.challenge), copyCeremony(record), now);
    this.#used.sweepHead(now);
  }

  async take(clientId: string, challenge: string, now: number): Promise<TakeResult> {
    this.#latestNow = Math.max(this.#latestNow, now);
    const key = pairKey(clientId, challenge);
    const record = this.#pending.get(key);
    let result: TakeResult;
    if (record !== undefined) {
      this.#pending.delete(key);
      if (record.expiresAt < now) {
        result = { state: 'missing' };
      } else {
        // The marker lives as long as the ceremony would have, so a replay says "already used", not "unknown".
        this.#used.set(usedKey(clientId, challenge), record.expiresAt, now);
        // The store no longer holds the record: it is the caller's now, no copy needed.
        result = { state: 'taken', record };
      }
    } else {
      const marker = usedKey(clientId, challenge);
      const until = this.#used.get(marker);
      if (until === undefined) {
        result = { state: 'missing' };
      } else if (until < now) {
        this.#used.delete(marker);
        result = { state: 'missing' };
      } else {
        result = { state: 'used' };
      }
    }
    this.#pending.sweepHead(now);
    this.#used.sweepHead(now);
    return result;
  }

  /** Removes every entry that expired before `now`. */
  sweep(now: number): void {
    this.#pending.sweep(now);
    this.#used.sweep(now);
  }

  async rememberLocalCredential(record: LocalCredentialRecord, now: number): Promise<void> {
    this.#local.remember(record, now);
  }

  async listLocalCredentials(clientId: string, userHandle: string, now: number): Promise<LocalCredentialRecord[]> {
    return this.#local.list(clientId, userHandle, now);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#pending.clear();
    this.#used.clear();
    this.#local.clear();
  }
}

/** A copy the caller cannot change afterwards. */
function copyCeremony(record: CeremonyRecord): CeremonyRecord {
  return {
    ...record,
    ...(record.allowCredentials !== undefined && { allowCredentials: [...record.allowCredentials] }),
  };
}
