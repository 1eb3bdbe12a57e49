// Applications in PostgreSQL, for deployments of several instances (every instance sees an admin change
// within `applicationCacheMs`). The pool, timeouts and the "unreachable → 503"
// decision are the PostgreSQL stores' own (src/stores/postgres/connection.ts). The tables come from the
// numbered migrations (docs/storage.md); JSON, not JSONB, so the text keeps its key order.
import type pg from 'pg';
import { guarded, toNumber, type PostgresOptions } from './connection.js';
import { openMigratedPool } from './migrate.js';
import type { ApplicationRecord, ApplicationStore } from '../types.js';

interface ApplicationRow {
  config: ApplicationRecord['config'];
  approved: boolean;
  disabled: boolean;
  source: string;
  created_at: string | number;
  updated_at: string | number;
}

const toRecord = (row: ApplicationRow): ApplicationRecord => ({
  config: row.config,
  approved: row.approved,
  disabled: row.disabled,
  source: row.source === 'admin' ? 'admin' : 'config',
  createdAt: toNumber(row.created_at),
  updatedAt: toNumber(row.updated_at),
});

const values = (r: ApplicationRecord) => [
  r.config.clientId,
  JSON.stringify(r.config),
  r.approved,
  r.disabled,
  r.source,
  r.createdAt,
  r.updatedAt,
];

export class PostgresApplicationStore implements ApplicationStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresApplicationStore> {
    const { pool, schema } = await openMigratedPool(url, options);
    return new PostgresApplicationStore(pool, schema);
  }

  async get(clientId: string): Promise<ApplicationRecord | undefined> {
    const { rows } = await guarded('application read', () =>
      this.pool.query<ApplicationRow>(`SELECT * FROM ${this.schema}.ops_applications WHERE client_id = $1`, [clientId]),
    );
    return rows[0] && toRecord(rows[0]);
  }

  async list(): Promise<ApplicationRecord[]> {
    // COLLATE "C": byte order, the same as the memory and SQLite stores.
    const { rows } = await guarded('application list', () =>
      this.pool.query<ApplicationRow>(`SELECT * FROM ${this.schema}.ops_applications ORDER BY client_id COLLATE "C"`),
    );
    return rows.map(toRecord);
  }

  async create(record: ApplicationRecord): Promise<'created' | 'duplicate'> {
    const result = await guarded('application insert', () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.ops_applications (client_id, config, approved, disabled, source, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (client_id) DO NOTHING`,
        values(record),
      ),
    );
    return result.rowCount === 1 ? 'created' : 'duplicate';
  }

  async update(record: ApplicationRecord): Promise<boolean> {
    const result = await guarded('application update', () =>
      this.pool.query(
        `UPDATE ${this.schema}.ops_applications SET config = $2, approved = $3, disabled = $4, source = $5, created_at = $6, updated_at = $7
       WHERE client_id = $1`,
        values(record),
      ),
    );
    return result.rowCount === 1;
  }

  async delete(clientId: string): Promise<boolean> {
    const result = await guarded('application delete', () =>
      this.pool.query(`DELETE FROM ${this.schema}.ops_applications WHERE client_id = $1`, [clientId]),
    );
    return result.rowCount === 1;
  }

  async ping(): Promise<void> {
    await guarded('ping', () => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
