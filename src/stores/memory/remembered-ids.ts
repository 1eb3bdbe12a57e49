// The local variant's remembered credential ids in process memory (ChallengeStore.rememberLocalCredential),
// for the memory challenge store. Entries sit in one Map in the order they were remembered, which is the
// order they are forgotten in: by the total bound (oldest first) and, every entry living as long, by
// expiry. Each user's list is short (the per-user bound), so it is a plain array.

import { LOCAL_CREDENTIAL_LIMITS, type LocalCredentialLimits, type LocalCredentialRecord } from '../types.js';

/** Key of a (client, id) pair; NUL cannot occur in a Client ID the HTTP layer accepts. */
const pairKey = (clientId: string, id: string): string => `${clientId}\u0000${id}`;

export class MemoryRememberedIds {
  /** (Client ID, credential id) → the entry, oldest first. */
  readonly #order = new Map<string, LocalCredentialRecord>();
  /** (Client ID, user handle) → that user's entries, oldest first. */
  readonly #byUser = new Map<string, LocalCredentialRecord[]>();
  readonly #limits: LocalCredentialLimits;

  constructor(limits: Partial<LocalCredentialLimits> = {}) {
    this.#limits = {
      perUser: limits.perUser ?? LOCAL_CREDENTIAL_LIMITS.perUser,
      total: limits.total ?? LOCAL_CREDENTIAL_LIMITS.total,
    };
  }

  get size(): number {
    return this.#order.size;
  }

  remember(record: LocalCredentialRecord, now: number): void {
    const copy: LocalCredentialRecord = {
      clientId: record.clientId,
      userHandle: record.userHandle,
      credentialId: record.credentialId,
      transports: [...record.transports],
      expiresAt: record.expiresAt,
    };
    this.#forget(pairKey(record.clientId, record.credentialId));
    this.#order.set(pairKey(copy.clientId, copy.credentialId), copy);
    const userKey = pairKey(copy.clientId, copy.userHandle);
    const list = this.#byUser.get(userKey) ?? [];
    list.push(copy);
    this.#byUser.set(userKey, list);
    // #forget empties `list` in place (and drops it from #byUser once empty, which cannot happen here:
    // the entry just added stays).
    while (list.length > this.#limits.perUser) this.#forget(pairKey(copy.clientId, list[0]!.credentialId));
    for (const [key, entry] of this.#order) {
      if (this.#order.size <= this.#limits.total && entry.expiresAt >= now) break;
      this.#forget(key);
    }
  }

  list(clientId: string, userHandle: string, now: number): LocalCredentialRecord[] {
    const list = this.#byUser.get(pairKey(clientId, userHandle)) ?? [];
    return list
      .filter((entry) => entry.expiresAt >= now)
      .map((entry) => ({ ...entry, transports: [...entry.transports] }));
  }

  clear(): void {
    this.#order.clear();
    this.#byUser.clear();
  }

  #forget(key: string): void {
    const entry = this.#order.get(key);
    if (entry === undefined) return;
    this.#order.delete(key);
    const userKey = pairKey(entry.clientId, entry.userHandle);
    const list = this.#byUser.get(userKey);
    if (list === undefined) return;
    list.splice(list.indexOf(entry), 1);
    if (list.length === 0) this.#byUser.delete(userKey);
  }
}
