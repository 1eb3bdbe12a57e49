// Relay secrets on SQLite (RelaySecretStore; migration 7), on a connection of their own to the service's
// file, like the application store: changes are rare (the admin API, the CLI, a flush of last uses every
// few seconds), so they do not go through the hot path's writer. Each call is one statement or one
// transaction, atomic across the processes sharing the file.
import type Database from 'better-sqlite3';
import { guarded, openSqliteDatabase, type SqliteOptions } from './open.js';
import type { RelaySecretStore, RelaySecretUse, StoredRelaySecret } from '../relay-secret-types.js';

interface SecretRow {
  id: string;
  client_id: string;
  hash: string;
  created_at: number;
}

const toSecret = (row: SecretRow): StoredRelaySecret => ({
  id: row.id,
  clientId: row.client_id,
  hash: row.hash,
  createdAt: row.created_at,
});

export class SqliteRelaySecretStore implements RelaySecretStore {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[SecretRow]>;
  readonly #list: Database.Statement<[string], SecretRow>;
  readonly #find: Database.Statement<[string, string], SecretRow>;
  readonly #delete: Database.Statement<[string, string]>;
  readonly #deleteUse: Database.Statement<[string, string]>;
  readonly #deleteAll: Database.Statement<[string]>;
  readonly #deleteAllUses: Database.Statement<[string]>;
  readonly #use: Database.Statement<[string, string, number]>;
  readonly #uses: Database.Statement<[string], { hash: string; last_used_at: number }>;

  constructor(path: string, options: SqliteOptions = {}) {
    const db = openSqliteDatabase(path, options);
    this.#db = db;
    this.#insert = db.prepare(
      'INSERT INTO relay_secrets (id, client_id, hash, created_at) VALUES (@id, @client_id, @hash, @created_at)',
    );
    this.#list = db.prepare('SELECT * FROM relay_secrets WHERE client_id = ? ORDER BY created_at, id');
    this.#find = db.prepare('SELECT * FROM relay_secrets WHERE client_id = ? AND id = ?');
    this.#delete = db.prepare('DELETE FROM relay_secrets WHERE client_id = ? AND id = ?');
    this.#deleteUse = db.prepare('DELETE FROM relay_secret_uses WHERE client_id = ? AND hash = ?');
    this.#deleteAll = db.prepare('DELETE FROM relay_secrets WHERE client_id = ?');
    this.#deleteAllUses = db.prepare('DELETE FROM relay_secret_uses WHERE client_id = ?');
    this.#use = db.prepare(`INSERT INTO relay_secret_uses (client_id, hash, last_used_at) VALUES (?, ?, ?)
      ON CONFLICT (client_id, hash) DO UPDATE SET last_used_at = max(last_used_at, excluded.last_used_at)`);
    this.#uses = db.prepare('SELECT hash, last_used_at FROM relay_secret_uses WHERE client_id = ?');
  }

  async create(secret: StoredRelaySecret): Promise<void> {
    const row = { id: secret.id, client_id: secret.clientId, hash: secret.hash, created_at: secret.createdAt };
    guarded('relay secret insert', () => this.#insert.run(row));
  }

  async list(clientId: string): Promise<StoredRelaySecret[]> {
    return guarded('relay secret list', () => this.#list.all(clientId)).map(toSecret);
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    return guarded('relay secret delete', () =>
      this.#db
        .transaction(() => {
          const row = this.#find.get(clientId, id);
          if (row === undefined) return false;
          this.#delete.run(clientId, id);
          this.#deleteUse.run(clientId, row.hash);
          return true;
        })
        .immediate(),
    );
  }

  async deleteByApplication(clientId: string): Promise<number> {
    return guarded('relay secret delete', () =>
      this.#db
        .transaction(() => {
          this.#deleteAllUses.run(clientId);
          return this.#deleteAll.run(clientId).changes;
        })
        .immediate(),
    );
  }

  async recordUses(uses: readonly RelaySecretUse[]): Promise<void> {
    if (uses.length === 0) return;
    guarded('relay secret use', () =>
      this.#db
        .transaction(() => {
          for (const use of uses) this.#use.run(use.clientId, use.hash, use.at);
        })
        .immediate(),
    );
  }

  async lastUses(clientId: string): Promise<Map<string, number>> {
    const rows = guarded('relay secret uses', () => this.#uses.all(clientId));
    return new Map(rows.map((row) => [row.hash, row.last_used_at]));
  }

  async ping(): Promise<void> {
    guarded('ping', () => this.#db.prepare('SELECT 1').get());
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
