// A memory CredentialStore WITH the optional administration methods of src/stores/types.ts
// (listByApplication, delete, rename, deleteByApplication, ping). src/stores/memory.ts keeps its maps
// private, so the methods cannot be bolted on from outside; until its owner adds them there, this class is
// the memory reference for them (and what the admin tests run on). Same semantics as the memory store for
// the four base operations.
import type { CredentialRecord, CredentialStore, CredentialUse } from '../stores/types.js';

const pairKey = (clientId: string, id: string): string => `${clientId}\u0000${id}`;

function copy(record: CredentialRecord): CredentialRecord {
  return { ...record, publicKey: new Uint8Array(record.publicKey), transports: [...record.transports] };
}

export class AdministrableMemoryCredentialStore implements CredentialStore {
  readonly #byId = new Map<string, CredentialRecord>();

  async create(record: CredentialRecord): Promise<'created' | 'duplicate'> {
    const key = pairKey(record.clientId, record.credentialId);
    if (this.#byId.has(key)) return 'duplicate';
    this.#byId.set(key, copy(record));
    return 'created';
  }

  async find(clientId: string, credentialId: string): Promise<CredentialRecord | undefined> {
    const record = this.#byId.get(pairKey(clientId, credentialId));
    return record && copy(record);
  }

  async listByUser(clientId: string, userHandle: string): Promise<CredentialRecord[]> {
    return [...this.#byId.values()]
      .filter((r) => r.clientId === clientId && r.userHandle === userHandle)
      .sort((a, b) => a.createdAt - b.createdAt || (a.credentialId < b.credentialId ? -1 : 1))
      .map(copy);
  }

  async recordUse(clientId: string, credentialId: string, use: CredentialUse): Promise<boolean> {
    const key = pairKey(clientId, credentialId);
    const record = this.#byId.get(key);
    if (!record || record.signCount !== use.expectedSignCount) return false;
    this.#byId.set(key, {
      ...record, signCount: use.signCount, backupState: use.backupState, userVerified: use.userVerified,
      cloneWarning: record.cloneWarning || use.cloneWarning, lastUsedAt: use.usedAt,
    });
    return true;
  }

  async listByApplication(clientId: string, page: { readonly limit: number; readonly after?: string }): Promise<CredentialRecord[]> {
    return [...this.#byId.values()]
      .filter((r) => r.clientId === clientId && (page.after === undefined || r.credentialId > page.after))
      .sort((a, b) => (a.credentialId < b.credentialId ? -1 : a.credentialId > b.credentialId ? 1 : 0))
      .slice(0, page.limit)
      .map(copy);
  }

  async delete(clientId: string, credentialId: string): Promise<boolean> {
    return this.#byId.delete(pairKey(clientId, credentialId));
  }

  async rename(clientId: string, credentialId: string, nickname: string | null): Promise<boolean> {
    const key = pairKey(clientId, credentialId);
    const record = this.#byId.get(key);
    if (!record) return false;
    this.#byId.set(key, { ...record, nickname });
    return true;
  }

  async deleteByApplication(clientId: string): Promise<number> {
    let removed = 0;
    for (const [key, record] of this.#byId) {
      if (record.clientId === clientId) {
        this.#byId.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#byId.clear();
  }
}
