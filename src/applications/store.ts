// Applications kept in a store rather than only in the config file, so that the admin API and the CLI can
// create, approve, disable and delete them while the service runs. The memory store is the reference;
// SQL backends implement the same interface (docs/admin.md gives the table).
import type { ApplicationConfig } from '../config.js';

export interface ApplicationRecord {
  /** The application as configured; `variants` is what it asks for (standard counts only once approved). */
  readonly config: ApplicationConfig;
  /** Whether the standard variant is approved for `config.domain` (the provider's domain approval). */
  readonly approved: boolean;
  /** A disabled application is unknown to the four operations (CLIENT_ID_UNKNOWN) but keeps its credentials. */
  readonly disabled: boolean;
  /** `config`: written from the config file at start (and refreshed from it); `admin`: changed by the admin API or CLI since. */
  readonly source: 'config' | 'admin';
  /** Epoch ms. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface ApplicationStore {
  get(clientId: string): Promise<ApplicationRecord | undefined>;
  /** Every application, ordered by Client ID. */
  list(): Promise<ApplicationRecord[]>;
  create(record: ApplicationRecord): Promise<'created' | 'duplicate'>;
  /** Replaces an existing record; false if there is none. */
  update(record: ApplicationRecord): Promise<boolean>;
  delete(clientId: string): Promise<boolean>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

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

/** The variants the four operations may use: `standard` only once approved. */
export function effectiveVariants(record: ApplicationRecord): ApplicationConfig['variants'] {
  return record.config.variants.filter((variant) => variant !== 'standard' || record.approved);
}
