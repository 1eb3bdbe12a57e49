// The local variant's remembered credential ids in process memory (ChallengeStore.rememberLocalCredential),
// for the memory challenge store. An entry is (application, user, credential id): another user's
// registration of the same id is an entry of its own and never moves the first user's (docs/decisions.md
// "Local variant"). Entries sit in one Map in the order they were remembered, which is the order expiry
// forgets them in (every entry lives as long), and in one Map per application, the order its bound
// forgets them in. Each user's list is short (the per-user bound), so it is a plain array.

import { LOCAL_CREDENTIAL_LIMITS, type LocalCredentialLimits, type LocalCredentialRecord } from '../types.js';

/** Key of a tuple; NUL cannot occur in a Client ID the HTTP layer accepts nor in base64url. */
const keyOf = (...parts: string[]): string => parts.join('\u0000');
const entryKey = (e: Pick<LocalCredentialRecord, 'clientId' | 'userHandle' | 'credentialId'>): string =>
  keyOf(e.clientId, e.userHandle, e.credentialId);

export class MemoryRememberedIds {
  /** (Client ID, user handle, credential id) → the entry, oldest first. */
  readonly #order = new Map<string, LocalCredentialRecord>();
  /** Client ID → that application's entries, oldest first (its bound). */
  readonly #byClient = new Map<string, Map<string, LocalCredentialRecord>>();
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
    const key = entryKey(copy);
    this.#forget(key);
    this.#order.set(key, copy);
    const app = this.#byClient.get(copy.clientId) ?? new Map<string, LocalCredentialRecord>();
    app.set(key, copy);
    this.#byClient.set(copy.clientId, app);
    const userKey = keyOf(copy.clientId, copy.userHandle);
    const list = this.#byUser.get(userKey) ?? [];
    list.push(copy);
    this.#byUser.set(userKey, list);
    // #forget empties `list` and `app` in place (and drops them once empty, which cannot happen here: the
    // entry just added stays).
    while (list.length > this.#limits.perUser) this.#forget(entryKey(list[0]!));
    for (const oldest of app.keys()) {
      if (app.size <= this.#limits.total) break;
      this.#forget(oldest);
    }
    for (const [oldest, entry] of this.#order) {
      if (entry.expiresAt >= now) break;
      this.#forget(oldest);
    }
  }

  list(clientId: string, userHandle: string, now: number): LocalCredentialRecord[] {
    const list = this.#byUser.get(keyOf(clientId, userHandle)) ?? [];
    return list
      .filter((entry) => entry.expiresAt >= now)
      .map((entry) => ({ ...entry, transports: [...entry.transports] }));
  }

  clear(): void {
    this.#order.clear();
    this.#byClient.clear();
    this.#byUser.clear();
  }

  #forget(key: string): void {
    const entry = this.#order.get(key);
    if (entry === undefined) return;
    this.#order.delete(key);
    const app = this.#byClient.get(entry.clientId);
    app?.delete(key);
    if (app?.size === 0) this.#byClient.delete(entry.clientId);
    const userKey = keyOf(entry.clientId, entry.userHandle);
    const list = this.#byUser.get(userKey);
    if (list === undefined) return;
    list.splice(list.indexOf(entry), 1);
    if (list.length === 0) this.#byUser.delete(userKey);
  }
}
