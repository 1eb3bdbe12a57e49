// The application store in process memory (ApplicationStore, src/stores/types.ts): the reference the SQL
// backends (sqlite/applications.ts, postgres/applications.ts) match; docs/admin.md gives the table.
import type { ApplicationRecord, ApplicationStore } from '../types.js';

export class MemoryApplicationStore implements ApplicationStore {
  readonly #records = new Map<string, ApplicationRecord>();

  async get(clientId: string): Promise<ApplicationRecord | undefined> {
    const record = this.#records.get(clientId);
    return record === undefined ? undefined : structuredClone(record);
  }

  async list(): Promise<ApplicationRecord[]> {
    return [...this.#records.keys()].sort().map((id) => structuredClone(this.#records.get(id)!));
  }

  async create(record: ApplicationRecord): Promise<'created' | 'duplicate'> {
    if (this.#records.has(record.config.clientId)) return 'duplicate';
    this.#records.set(record.config.clientId, structuredClone(record));
    return 'created';
  }

  async update(record: ApplicationRecord): Promise<boolean> {
    if (!this.#records.has(record.config.clientId)) return false;
    this.#records.set(record.config.clientId, structuredClone(record));
    return true;
  }

  async delete(clientId: string): Promise<boolean> {
    return this.#records.delete(clientId);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
