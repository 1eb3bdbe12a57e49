// Relay secrets on PostgreSQL (RelaySecretStore; migration 9), in the service's database and schema: every
// instance reads them when its application directory refreshes an application (`applications.cacheMs`),
// so a secret created or revoked on one instance holds on all of them within that interval.
import type pg from 'pg';
import { guarded, toNumber, type PostgresOptions } from './connection.js';
import { openMigratedPool } from './migrate.js';
import type { RelaySecretStore, RelaySecretUse, StoredRelaySecret } from '../relay-secret-types.js';

interface SecretRow {
  id: string;
  client_id: string;
  hash: string;
  created_at: string | number;
}

const toSecret = (row: SecretRow): StoredRelaySecret => ({
  id: row.id,
  clientId: row.client_id,
  hash: row.hash,
  createdAt: toNumber(row.created_at),
});

export class PostgresRelaySecretStore implements RelaySecretStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresRelaySecretStore> {
    const { pool, schema } = await openMigratedPool(url, { poolSize: 2, ...options });
    return new PostgresRelaySecretStore(pool, schema);
  }

  async create(secret: StoredRelaySecret): Promise<void> {
    await guarded('relay secret insert', () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.relay_secrets (id, client_id, hash, created_at) VALUES ($1, $2, $3, $4)`,
        [secret.id, secret.clientId, secret.hash, secret.createdAt],
      ),
    );
  }

  async list(clientId: string): Promise<StoredRelaySecret[]> {
    const { rows } = await guarded('relay secret list', () =>
      this.pool.query<SecretRow>(
        `SELECT * FROM ${this.schema}.relay_secrets WHERE client_id = $1 ORDER BY created_at, id`,
        [clientId],
      ),
    );
    return rows.map(toSecret);
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    // One statement: the secret and its last use go together.
    const { rows } = await guarded('relay secret delete', () =>
      this.pool.query<{ deleted: number }>(
        `WITH gone AS (DELETE FROM ${this.schema}.relay_secrets WHERE client_id = $1 AND id = $2 RETURNING hash),
              uses AS (DELETE FROM ${this.schema}.relay_secret_uses WHERE client_id = $1 AND hash IN (SELECT hash FROM gone))
         SELECT count(*)::int AS deleted FROM gone`,
        [clientId, id],
      ),
    );
    return rows[0]!.deleted === 1;
  }

  async deleteByApplication(clientId: string): Promise<number> {
    const { rows } = await guarded('relay secret delete', () =>
      this.pool.query<{ deleted: number }>(
        `WITH gone AS (DELETE FROM ${this.schema}.relay_secrets WHERE client_id = $1 RETURNING id),
              uses AS (DELETE FROM ${this.schema}.relay_secret_uses WHERE client_id = $1)
         SELECT count(*)::int AS deleted FROM gone`,
        [clientId],
      ),
    );
    return rows[0]!.deleted;
  }

  async recordUses(uses: readonly RelaySecretUse[]): Promise<void> {
    // One row per secret (a statement may not update a row twice), the latest use of each.
    const latest = new Map<string, RelaySecretUse>();
    for (const use of uses) {
      const key = `${use.clientId}\n${use.hash}`;
      if ((latest.get(key)?.at ?? -1) < use.at) latest.set(key, use);
    }
    if (latest.size === 0) return;
    const rows = [...latest.values()];
    // One statement for the batch; GREATEST keeps the latest when instances flush out of order.
    await guarded('relay secret use', () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.relay_secret_uses (client_id, hash, last_used_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
         ON CONFLICT (client_id, hash) DO UPDATE
           SET last_used_at = GREATEST(${this.schema}.relay_secret_uses.last_used_at, excluded.last_used_at)`,
        [rows.map((u) => u.clientId), rows.map((u) => u.hash), rows.map((u) => u.at)],
      ),
    );
  }

  async lastUses(clientId: string): Promise<Map<string, number>> {
    const { rows } = await guarded('relay secret uses', () =>
      this.pool.query<{ hash: string; last_used_at: string | number }>(
        `SELECT hash, last_used_at FROM ${this.schema}.relay_secret_uses WHERE client_id = $1`,
        [clientId],
      ),
    );
    return new Map(rows.map((row) => [row.hash, toNumber(row.last_used_at)]));
  }

  async ping(): Promise<void> {
    await guarded('ping', () => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
