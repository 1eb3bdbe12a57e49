// The credential store in process memory: the reference implementation of CredentialStore (src/stores/types.ts)
// for tests and the contract suite, with its webhook outbox (memory-webhooks.ts). Every check-then-change
// runs without an `await` in between, so it is atomic with respect to every other call on the same store.
import type {
  AlgorithmUsage,
  CredentialRecord,
  CredentialStore,
  CredentialUse,
  ImportBatchResult,
  ImportedUserHandle,
  ImportOwner,
  ImportLookup,
  MarkRequest,
  OutboxMessage,
} from '../types.js';
import { byCreation } from '../credential-order.js';
import { MemoryOutbox, MemoryWebhookStore } from './webhooks.js';
import { MemoryUserHandles } from './user-handles.js';

/** Key of a (client, id) pair; NUL cannot occur in a Client ID the HTTP layer accepts. */
const pairKey = (clientId: string, id: string): string => `${clientId}\u0000${id}`;

export class MemoryCredentialStore implements CredentialStore {
  readonly #byId = new Map<string, CredentialRecord>();
  /** (clientId, userHandle) → credential ids, for listByUser. */
  readonly #byUser = new Map<string, Set<string>>();
  readonly #outbox = new MemoryOutbox();
  readonly outbox = this.#outbox;
  readonly webhooks = new MemoryWebhookStore();
  readonly #handles = new MemoryUserHandles();

  async create(record: CredentialRecord, events: readonly OutboxMessage[] = []): Promise<'created' | 'duplicate'> {
    return this.#insert(record, Number.POSITIVE_INFINITY, events) === 'duplicate' ? 'duplicate' : 'created';
  }

  async createCounted(
    record: CredentialRecord,
    limit: number,
    events: readonly OutboxMessage[] = [],
  ): Promise<number | 'duplicate' | 'limit'> {
    return this.#insert(record, limit, events);
  }

  /** The user's credentials with this one, or why nothing was written (a duplicate first, then the limit). */
  #insert(record: CredentialRecord, limit: number, events: readonly OutboxMessage[]): number | 'duplicate' | 'limit' {
    const key = pairKey(record.clientId, record.credentialId);
    if (this.#byId.has(key)) return 'duplicate';
    const userKey = pairKey(record.clientId, record.userHandle);
    const ids = this.#byUser.get(userKey) ?? new Set<string>();
    if (ids.size >= limit) return 'limit';
    this.#byId.set(key, copyCredential(record));
    this.#outbox.add(events);
    ids.add(record.credentialId);
    this.#byUser.set(userKey, ids);
    return ids.size;
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

  async recordUse(
    clientId: string,
    credentialId: string,
    use: CredentialUse,
    events: readonly OutboxMessage[] = [],
  ): Promise<boolean> {
    const key = pairKey(clientId, credentialId);
    const record = this.#byId.get(key);
    if (
      record === undefined ||
      record.signCount !== use.expectedSignCount ||
      (record.authenticatorStatus ?? null) !== use.expectedAuthenticatorStatus ||
      record.createdAt !== use.expectedCreatedAt
    ) {
      return false;
    }
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
    this.#outbox.add(events);
    return true;
  }

  async importedUserHandle(clientId: string, username: string): Promise<string | undefined> {
    return this.#handles.get(clientId, username);
  }

  async importLookup(
    clientId: string,
    query: { credentialIds: readonly string[]; usernames: readonly string[]; userHandles: readonly string[] },
  ): Promise<ImportLookup> {
    const credentials = query.credentialIds
      .map((id) => this.#byId.get(pairKey(clientId, id)))
      .filter((r): r is CredentialRecord => r !== undefined)
      .map(copyCredential);
    const owners = new Map<string, ImportOwner>();
    for (const userHandle of query.userHandles) {
      for (const id of this.#byUser.get(pairKey(clientId, userHandle)) ?? []) {
        const username = this.#byId.get(pairKey(clientId, id))?.username;
        if (username === undefined) continue;
        const key = `${userHandle}\u0000${username}`;
        owners.set(key, { userHandle, username, passkeys: (owners.get(key)?.passkeys ?? 0) + 1 });
      }
    }
    const handles = this.#handles.matching(clientId, query.usernames, query.userHandles);
    return { credentials, handles, owners: [...owners.values()] };
  }

  async importBatch(
    clientId: string,
    handles: readonly ImportedUserHandle[],
    records: readonly CredentialRecord[],
    events: readonly OutboxMessage[] = [],
    maxPasskeysPerUser = Number.POSITIVE_INFINITY,
  ): Promise<ImportBatchResult> {
    // Checked first, so that a refused batch changes nothing (one transaction on the other backends).
    if (!handles.every((h) => this.#handles.fits(clientId, h)))
      throw new Error('a user handle is kept for another user');
    for (const handle of handles) this.#handles.add(clientId, handle);
    let written = 0;
    const overLimit: string[] = [];
    for (const record of records) {
      const inserted = this.#insert({ ...record, clientId }, maxPasskeysPerUser, []);
      if (typeof inserted === 'number') written++;
      else if (inserted === 'limit') overLimit.push(record.credentialId);
    }
    if (written > 0) this.#outbox.add(events);
    return { written, overLimit };
  }

  async listByApplication(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    const limit = Math.max(0, Math.min(MAX_ADMIN_PAGE, Math.floor(page.limit)));
    const after = page.after;
    return [...this.#byId.values()]
      .filter((r) => r.clientId === clientId && (after === undefined || r.credentialId > after))
      .sort(byId)
      .slice(0, limit)
      .map(copyCredential);
  }

  async delete(clientId: string, credentialId: string, events: readonly OutboxMessage[] = []): Promise<boolean> {
    const removed = this.#remove(clientId, credentialId);
    if (removed) this.#outbox.add(events);
    return removed;
  }

  async deleteUser(
    clientId: string,
    userHandle: string,
    events: (deleted: readonly CredentialRecord[]) => readonly OutboxMessage[],
  ): Promise<CredentialRecord[]> {
    const ids = [...(this.#byUser.get(pairKey(clientId, userHandle)) ?? [])];
    const deleted = ids
      .map((id) => this.#byId.get(pairKey(clientId, id)))
      .filter((r): r is CredentialRecord => r !== undefined)
      .sort(byCreation);
    for (const record of deleted) this.#remove(clientId, record.credentialId);
    this.#handles.deleteHandle(clientId, userHandle);
    if (deleted.length > 0) this.#outbox.add(events(deleted.map(copyCredential)));
    return deleted.map(copyCredential);
  }

  async markAuthenticatorStatus(
    request: MarkRequest,
    events: (marked: readonly CredentialRecord[]) => readonly OutboxMessage[],
  ): Promise<CredentialRecord[]> {
    const marked: CredentialRecord[] = [];
    for (const [key, record] of this.#byId) {
      if (record.clientId !== request.clientId || record.aaguid !== request.aaguid) continue;
      if (record.authenticatorStatus === request.status) continue;
      const next = { ...record, authenticatorStatus: request.status, authenticatorStatusAt: request.at };
      this.#byId.set(key, next);
      marked.push(copyCredential(next));
    }
    marked.sort(byId);
    if (marked.length > 0) this.#outbox.add(events(marked));
    return marked;
  }

  async listMarked(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    const limit = Math.max(0, Math.min(MAX_ADMIN_PAGE, Math.floor(page.limit)));
    const after = page.after;
    return [...this.#byId.values()]
      .filter(
        (r) =>
          r.clientId === clientId && r.authenticatorStatus != null && (after === undefined || r.credentialId > after),
      )
      .sort(byId)
      .slice(0, limit)
      .map(copyCredential);
  }

  #remove(clientId: string, credentialId: string): boolean {
    const key = pairKey(clientId, credentialId);
    const record = this.#byId.get(key);
    if (record === undefined) return false;
    this.#byId.delete(key);
    this.#byUser.get(pairKey(clientId, record.userHandle))?.delete(credentialId);
    return true;
  }

  async rename(
    clientId: string,
    credentialId: string,
    nickname: string | null,
    events: readonly OutboxMessage[] = [],
  ): Promise<boolean> {
    const key = pairKey(clientId, credentialId);
    const record = this.#byId.get(key);
    if (record === undefined) return false;
    this.#byId.set(key, { ...record, nickname });
    this.#outbox.add(events);
    return true;
  }

  async countByAlgorithms(clientId: string, algorithms: readonly number[]): Promise<AlgorithmUsage> {
    const users = new Set<string>();
    let credentials = 0;
    for (const r of this.#byId.values()) {
      if (r.clientId !== clientId || !algorithms.includes(r.algorithm)) continue;
      users.add(r.userHandle);
      credentials++;
    }
    return { users: users.size, credentials };
  }

  async deleteByApplication(clientId: string): Promise<number> {
    const ids = [...this.#byId.values()].filter((r) => r.clientId === clientId).map((r) => r.credentialId);
    for (const id of ids) this.#remove(clientId, id);
    this.#handles.deleteApplication(clientId);
    return ids.length;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#byId.clear();
    this.#byUser.clear();
    this.#handles.clear();
    this.#outbox.clear();
    this.webhooks.clear();
  }
}

/** Admin listing pages are bounded whatever the caller asks (the same bound on every backend). */
export const MAX_ADMIN_PAGE = 1000;

const byId = (a: CredentialRecord, b: CredentialRecord): number =>
  a.credentialId < b.credentialId ? -1 : a.credentialId > b.credentialId ? 1 : 0;

/** A copy in the shape every backend returns: the optional names are absent when null ("absent or null = none"). */
function copyCredential(record: CredentialRecord): CredentialRecord {
  const { nickname, authenticatorName, displayName, authenticatorStatus, authenticatorStatusAt, ...rest } = record;
  return {
    ...rest,
    publicKey: Uint8Array.from(record.publicKey),
    transports: [...record.transports],
    ...(nickname == null ? {} : { nickname }),
    ...(authenticatorName == null ? {} : { authenticatorName }),
    ...(displayName == null ? {} : { displayName }),
    ...(authenticatorStatus == null ? {} : { authenticatorStatus, authenticatorStatusAt: authenticatorStatusAt ?? 0 }),
  };
}
