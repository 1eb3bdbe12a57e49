// In-process stores: the reference implementation of src/stores/types.ts, and the challenge store of a
// single-instance deployment. Every check-then-change below runs without an `await` in between, so it is
// atomic with respect to every other call on the same store (Node runs one callback at a time).

import type {
  CeremonyRecord,
  ChallengeStore,
  CredentialRecord,
  CredentialStore,
  CredentialUse,
  TakeResult,
} from './types.js';

/** Key of a (client, id) pair; NUL cannot occur in a Client ID the HTTP layer accepts. */
const pairKey = (clientId: string, id: string): string => `${clientId}\u0000${id}`;

type ChallengeEntry =
  | { readonly kind: 'pending'; readonly record: CeremonyRecord }
  | { readonly kind: 'used'; readonly expiresAt: number };

export interface MemoryChallengeStoreOptions {
  /**
   * The clock used to sweep expired entries when ceremonies are put (the composition root passes
   * `runtime.now`). Without it the store sweeps with the latest `now` it was given by `take`.
   */
  readonly clock?: () => number;
}

/**
 * Entries sit in the Map in the order they were put, which is the order they expire in for one timeout (a
 * used-marker keeps its ceremony's place and expiry). So every change first removes expired entries from
 * the oldest end, stopping at the first live one: O(what expired), never a pause over the whole store, at
 * most this many per change. With several timeouts an expired entry can wait behind a live older one
 * (`take` checks expiry itself, so this only delays freeing it): then, and only then, a full sweep,
 * O(size), runs whenever the store has doubled since the last one.
 */
const MAX_HEAD_SWEEP = 64;
const MIN_FULL_SWEEP_SIZE = 1024;

export class MemoryChallengeStore implements ChallengeStore {
  readonly #entries = new Map<string, ChallengeEntry>();
  readonly #clock: (() => number) | undefined;
  #latestNow = Number.NEGATIVE_INFINITY;
  #sizeAfterFullSweep = 0;
  /** The latest expiry put so far, and whether a later put expires earlier (several timeouts in use). */
  #latestExpiry = Number.NEGATIVE_INFINITY;
  #outOfOrder = false;

  constructor(options: MemoryChallengeStoreOptions = {}) {
    this.#clock = options.clock;
  }

  /** Entries held (pending ceremonies and used-markers); exposed for tests of the memory bound. */
  get size(): number {
    return this.#entries.size;
  }

  async put(record: CeremonyRecord): Promise<void> {
    this.#entries.set(pairKey(record.clientId, record.challenge), { kind: 'pending', record: copyCeremony(record) });
    if (record.expiresAt < this.#latestExpiry) this.#outOfOrder = true;
    else this.#latestExpiry = record.expiresAt;
    this.#noteChange(this.#clock?.() ?? this.#latestNow);
  }

  async take(clientId: string, challenge: string, now: number): Promise<TakeResult> {
    this.#latestNow = Math.max(this.#latestNow, now);
    const key = pairKey(clientId, challenge);
    const entry = this.#entries.get(key);
    let result: TakeResult;
    if (entry === undefined) {
      result = { state: 'missing' };
    } else if (expiryOf(entry) < now) {
      this.#entries.delete(key);
      result = { state: 'missing' };
    } else if (entry.kind === 'used') {
      result = { state: 'used' };
    } else {
      // The marker lives as long as the ceremony would have, so a replay says "already used", not "unknown".
      this.#entries.set(key, { kind: 'used', expiresAt: entry.record.expiresAt });
      // The store no longer holds the record (the marker replaced it): it is the caller's now, no copy needed.
      result = { state: 'taken', record: entry.record };
    }
    this.#noteChange(now);
    return result;
  }

  /** Removes every entry that expired before `now`. */
  sweep(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (expiryOf(entry) < now) this.#entries.delete(key);
    }
    this.#sizeAfterFullSweep = this.#entries.size;
    this.#outOfOrder = false;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#entries.clear();
  }

  #noteChange(now: number): void {
    let removed = 0;
    for (const [key, entry] of this.#entries) {
      if (removed >= MAX_HEAD_SWEEP || expiryOf(entry) >= now) break;
      this.#entries.delete(key);
      removed += 1;
    }
    if (this.#outOfOrder && this.#entries.size > Math.max(MIN_FULL_SWEEP_SIZE, 2 * this.#sizeAfterFullSweep)) this.sweep(now);
  }
}

function expiryOf(entry: ChallengeEntry): number {
  return entry.kind === 'pending' ? entry.record.expiresAt : entry.expiresAt;
}

/** A copy the caller cannot change afterwards (field by field: rest/spread copies are slow, and this is per options call). */
function copyCeremony(record: CeremonyRecord): CeremonyRecord {
  const copy: { -readonly [K in keyof CeremonyRecord]: CeremonyRecord[K] } = {
    challenge: record.challenge,
    clientId: record.clientId,
    variant: record.variant,
    type: record.type,
    username: record.username,
    userHandle: record.userHandle,
    userVerification: record.userVerification,
    origin: record.origin,
    expiresAt: record.expiresAt,
  };
  if (record.allowCredentials !== undefined) copy.allowCredentials = [...record.allowCredentials];
  return copy;
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
      backupState: use.backupState,
      userVerified: use.userVerified,
      // A clone warning, once recorded, stays: later clean uses do not make the credential trustworthy again.
      cloneWarning: record.cloneWarning || use.cloneWarning,
      lastUsedAt: use.usedAt,
    });
    return true;
  }

  async listByApplication(clientId: string, page: { readonly limit: number; readonly after?: string }): Promise<CredentialRecord[]> {
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
  const { nickname, authenticatorName, ...rest } = record;
  return {
    ...rest,
    publicKey: Uint8Array.from(record.publicKey),
    transports: [...record.transports],
    ...(nickname == null ? {} : { nickname }),
    ...(authenticatorName == null ? {} : { authenticatorName }),
  };
}
