// The relay secrets the admin API and CLI create for an application (docs/admin.md "Relay secrets"), kept
// as their SHA-256 only, and when each of an application's secrets (the config file's too) was last used.
// One backend per database (memory/, sqlite/, postgres/ relay-secrets.ts); test/stores/relay-secrets.test.ts
// runs the same suite against each.

/** A relay secret the admin API or CLI created. */
export interface StoredRelaySecret {
  /** `rs_…` (random). */
  readonly id: string;
  readonly clientId: string;
  /** `sha256:<64 lowercase hex>` of the secret's UTF-8 bytes: what the relay secret check compares. */
  readonly hash: string;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** A secret's use, as the usage recorder flushes it (applications/relay-secret-usage.ts). */
export interface RelaySecretUse {
  readonly clientId: string;
  /** `sha256:<hex>`: the config file's secrets have no id, so uses are kept by hash. */
  readonly hash: string;
  /** Epoch ms. */
  readonly at: number;
}

export interface RelaySecretStore {
  create(secret: StoredRelaySecret): Promise<void>;
  /** The application's created secrets, oldest first (createdAt, then id). */
  list(clientId: string): Promise<StoredRelaySecret[]>;
  /** Removes one (and its last use); false if the application has no secret with this id. */
  delete(clientId: string, id: string): Promise<boolean>;
  /** Removes every secret and use of an application (application deletion); resolves to how many secrets. */
  deleteByApplication(clientId: string): Promise<number>;
  /** Records uses; a stored last use only moves forward (two instances may flush in any order). */
  recordUses(uses: readonly RelaySecretUse[]): Promise<void>;
  /** The last use of each of the application's secrets that has one, by hash. */
  lastUses(clientId: string): Promise<Map<string, number>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
