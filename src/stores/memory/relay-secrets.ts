// Relay secrets in process memory (RelaySecretStore, src/stores/relay-secret-types.ts): the reference the
// SQL backends (sqlite/relay-secrets.ts, postgres/relay-secrets.ts) match.
import type { RelaySecretStore, RelaySecretUse, StoredRelaySecret } from '../relay-secret-types.js';

export class MemoryRelaySecretStore implements RelaySecretStore {
  readonly #secrets = new Map<string, StoredRelaySecret>();
  /** Last use by `clientId\nhash`. */
  readonly #uses = new Map<string, number>();

  async create(secret: StoredRelaySecret): Promise<void> {
    if (this.#secrets.has(secret.id)) throw new Error(`duplicate relay secret id ${secret.id}`);
    this.#secrets.set(secret.id, { ...secret });
  }

  async list(clientId: string): Promise<StoredRelaySecret[]> {
    return [...this.#secrets.values()]
      .filter((s) => s.clientId === clientId)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((s) => ({ ...s }));
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    const secret = this.#secrets.get(id);
    if (secret === undefined || secret.clientId !== clientId) return false;
    this.#secrets.delete(id);
    this.#uses.delete(`${clientId}\n${secret.hash}`);
    return true;
  }

  async deleteByApplication(clientId: string): Promise<number> {
    let count = 0;
    for (const [id, secret] of this.#secrets) {
      if (secret.clientId !== clientId) continue;
      this.#secrets.delete(id);
      count += 1;
    }
    for (const key of this.#uses.keys()) if (key.startsWith(`${clientId}\n`)) this.#uses.delete(key);
    return count;
  }

  async recordUses(uses: readonly RelaySecretUse[]): Promise<void> {
    for (const use of uses) {
      const key = `${use.clientId}\n${use.hash}`;
      this.#uses.set(key, Math.max(this.#uses.get(key) ?? 0, use.at));
    }
  }

  async lastUses(clientId: string): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (const [key, at] of this.#uses) {
      const [id, hash] = key.split('\n') as [string, string];
      if (id === clientId) found.set(hash, at);
    }
    return found;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
