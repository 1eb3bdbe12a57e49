// In-process stores: the reference implementation of src/stores/types.ts, and the challenge store of a
// single-instance deployment. Every check-then-change below runs without an `await` in between, so it is
// atomic with respect to every other call on the same store (Node runs one callback at a time).

import type {
  CeremonyRecord,
  ChallengeStore,
  CredentialRecord,
  CredentialStore,
  CredentialUse,
  LocalCredentialLimits,
  LocalCredentialRecord,
  TakeResult,
} from './types.js';
import { ExpiringMap } from './expiring-map.js';
import { MemoryLocalCredentials } from './memory-local.js';

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
  readonly #local: MemoryLocalCredentials;
  #latestNow = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryChallengeStoreOptions = {}) {
    this.#clock = options.clock;
    this.#local = new MemoryLocalCredentials(options.localLimits);
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

export class MemoryCredentialStore implements CredentialStore {
  readonly #byId = new Map<string, CredentialRecord>();
  /** (clientId, userHandle) → credential ids, for listByUser. */
  readonly #byUser = new Map<string, Set<string>>();

  async create(record: CredentialRecord): Promise<'created' | 'duplicate'> {
    const key = pairKey(record.clientId, record.credentialId);
    if (this.#byId.has(key)) return 'duplicate';
    this.#byId.set(key, copyCredential(record));
    const userKey = pairKey(record.clientId, record.userHandle);
    const ids = this.#byUser.get(userKey) ?? new Set<string>();
    ids.add(record.credentialId);
    this.#byUser.set(userKey, ids);
    return 'created';
  }

  async find(clientId: string, credentialId: string): Promise<CredentialRecord | undefined> {
    const record = this.#byId.get(pairKey(clientId, credentialId));
    return record === undefined ? undefined : copyCredential(record);
  }

  async listByUser(clientId: string, userHandle: string): Promise<CredentialRecord[]> {
    const ids = this.#byUser.get(pairKey(clientId, userHandle)) ?? new Set<string>();
    const records: CredentialRecord[] = [];
    for (const id of ids) {
      const record = this.#byId.get(pairKey(clientId, id));
      if (record !== undefined) records.push(copyCredential(record));
    }
    return records.sort(byCreation);
  }

  async recordUse(clientId: string, credentialId: string, use: CredentialUse): Promise<boolean> {
    const key = pairKey(clientId, credentialId);
    const record = this.#byId.get(key);
    if (record === undefined || record.signCount !== use.expectedSignCount) return false;
    this.#byId.set(key, {
      ...record,
      signCount: use.signCount,
      backupEligible: use.backupEligible,
      backupState: use.backupState,
      userVerified: use.userVerified,
      // A clone warning, once recorded, stays: later clean uses do not make the credential trustworthy again.
      cloneWarning: record.cloneWarning || use.cloneWarning,
      lastUsedAt: use.usedAt,
    });
    return true;
  }

  async listByApplication(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    const limit = Math.max(0, Math.min(MAX_ADMIN_PAGE, Math.floor(page.limit)));
    const after = page.after;
    return [...this.#byId.values()]
      .filter((r) => r.clientId === clientId && (after === undefined || r.credentialId > after))
      .sort((a, b) => (a.credentialId < b.credentialId ? -1 : a.credentialId > b.credentialId ? 1 : 0))
      .slice(0, limit)
      .map(copyCredential);
  }

  async delete(clientId: string, credentialId: string): Promise<boolean> {
    return this.#remove(clientId, credentialId);
  }

  #remove(clientId: string, credentialId: string): boolean {
    const key = pairKey(clientId, credentialId);
    const record = this.#byId.get(key);
    if (record === undefined) return false;
    this.#byId.delete(key);
    this.#byUser.get(pairKey(clientId, record.userHandle))?.delete(credentialId);
    return true;
  }

  async rename(clientId: string, credentialId: string, nickname: string | null): Promise<boolean> {
    const key = pairKey(clientId, credentialId);
    const record = this.#byId.get(key);
    if (record === undefined) return false;
    this.#byId.set(key, { ...record, nickname });
    return true;
  }

  async deleteByApplication(clientId: string): Promise<number> {
    const ids = [...this.#byId.values()].filter((r) => r.clientId === clientId).map((r) => r.credentialId);
    for (const id of ids) this.#remove(clientId, id);
    return ids.length;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#byId.clear();
    this.#byUser.clear();
  }
}

/** Admin listing pages are bounded whatever the caller asks (the same bound on every backend). */
export const MAX_ADMIN_PAGE = 1000;

/** listByUser order shared by every backend: oldest first, ties by credential id (code-unit order). */
export function byCreation(a: CredentialRecord, b: CredentialRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.credentialId < b.credentialId ? -1 : a.credentialId > b.credentialId ? 1 : 0;
}

/** A copy in the shape every backend returns: the optional names are absent when null ("absent or null = none"). */
function copyCredential(record: CredentialRecord): CredentialRecord {
  const { nickname, authenticatorName, displayName, ...rest } = record;
  return {
    ...rest,
    publicKey: Uint8Array.from(record.publicKey),
    transports: [...record.transports],
    ...(nickname == null ? {} : { nickname }),
    ...(authenticatorName == null ? {} : { authenticatorName }),
    ...(displayName == null ? {} : { displayName }),
  };
}
