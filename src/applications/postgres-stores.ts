// Applications and the audit log in PostgreSQL, for deployments of several instances (every instance
// sees an admin change within `applicationCacheMs`). The pool, timeouts and the "unreachable → 503"
// decision are the PostgreSQL stores' own (src/stores/postgres-connection.ts). The tables come from the
// numbered migrations (docs/storage.md); JSON, not JSONB, so the text keeps its key order.
import type pg from 'pg';
import { createPool, guarded, schemaIdentifier, splitSchema, toNumber, type PostgresOptions } from '../stores/postgres-connection.js';
import { checkPostgresSchema } from '../stores/postgres-migrate.js';
import type { AuditEvent, AuditQuery, AuditStore } from '../audit/types.js';
import type { ApplicationRecord, ApplicationStore } from './store.js';

async function openPool(url: string, options: PostgresOptions): Promise<{ pool: pg.Pool; schema: string }> {
  const split = splitSchema(url, options);
  const schema = schemaIdentifier(split.options.schema);
  const pool = createPool(split.url, split.options);
  try {
    // The tables are migration 4's (src/stores/migrations/postgres/); like the credential store, these
    // stores refuse a schema that `passkey-server migrate` has not brought to this build's version.
    await checkPostgresSchema(pool, split.options.schema);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return { pool, schema };
}

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

const values = (r: ApplicationRecord) => [r.config.clientId, JSON.stringify(r.config), r.approved, r.disabled, r.source, r.createdAt, r.updatedAt];

export class PostgresApplicationStore implements ApplicationStore {
  private constructor(private readonly pool: pg.Pool, private readonly schema: string) {}

  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresApplicationStore> {
    const { pool, schema } = await openPool(url, options);
    return new PostgresApplicationStore(pool, schema);
  }

  async get(clientId: string): Promise<ApplicationRecord | undefined> {
    const { rows } = await guarded('application read', () => this.pool.query<ApplicationRow>(`SELECT * FROM ${this.schema}.ops_applications WHERE client_id = $1`, [clientId]));
    return rows[0] && toRecord(rows[0]);
  }

  async list(): Promise<ApplicationRecord[]> {
    // COLLATE "C": byte order, the same as the memory and SQLite stores.
    const { rows } = await guarded('application list', () => this.pool.query<ApplicationRow>(`SELECT * FROM ${this.schema}.ops_applications ORDER BY client_id COLLATE "C"`));
    return rows.map(toRecord);
  }

  async create(record: ApplicationRecord): Promise<'created' | 'duplicate'> {
    const result = await guarded('application insert', () => this.pool.query(
      `INSERT INTO ${this.schema}.ops_applications (client_id, config, approved, disabled, source, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (client_id) DO NOTHING`, values(record)));
    return result.rowCount === 1 ? 'created' : 'duplicate';
  }

  async update(record: ApplicationRecord): Promise<boolean> {
    const result = await guarded('application update', () => this.pool.query(
      `UPDATE ${this.schema}.ops_applications SET config = $2, approved = $3, disabled = $4, source = $5, created_at = $6, updated_at = $7
       WHERE client_id = $1`, values(record)));
    return result.rowCount === 1;
  }

  async delete(clientId: string): Promise<boolean> {
    const result = await guarded('application delete', () => this.pool.query(`DELETE FROM ${this.schema}.ops_applications WHERE client_id = $1`, [clientId]));
    return result.rowCount === 1;
  }

  async ping(): Promise<void> {
    await guarded('ping', () => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

export class PostgresAuditStore implements AuditStore {
  private constructor(private readonly pool: pg.Pool, private readonly schema: string) {}

  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresAuditStore> {
    const { pool, schema } = await openPool(url, options);
    return new PostgresAuditStore(pool, schema);
  }

  async append(event: AuditEvent): Promise<void> {
    await guarded('audit append', () => this.pool.query(
      `INSERT INTO ${this.schema}.ops_audit_events (id, at, client_id, action, actor, result, event) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [event.id, Date.parse(event.time), event.clientId, event.action, event.actor, event.result, JSON.stringify(event)]));
  }

  async query(query: AuditQuery): Promise<AuditEvent[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: (n: string) => string, value: unknown) => { params.push(value); where.push(sql(`$${params.length}`)); };
    if (query.since !== undefined) add((n) => `at >= ${n}`, query.since);
    if (query.until !== undefined) add((n) => `at < ${n}`, query.until);
    if (query.clientId !== undefined) add((n) => `client_id = ${n}`, query.clientId);
    if (query.actor !== undefined) add((n) => `actor = ${n}`, query.actor);
    if (query.result !== undefined) add((n) => `result = ${n}`, query.result);
    if (query.after !== undefined) add((n) => `id COLLATE "C" > ${n}`, query.after);
    if (query.action !== undefined) {
      if (query.action.endsWith('.')) add((n) => `left(action, length(${n})) = ${n}`, query.action);
      else add((n) => `action = ${n}`, query.action);
    }
    params.push(query.limit);
    const sql = `SELECT event FROM ${this.schema}.ops_audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY id COLLATE "C" LIMIT $${params.length}`;
    const { rows } = await guarded('audit query', () => this.pool.query<{ event: AuditEvent }>(sql, params));
    return rows.map((row) => row.event);
  }

  /** Deletes events older than `before` (epoch ms); resolves to how many. */
  async prune(before: number): Promise<number> {
    const result = await guarded('audit prune', () => this.pool.query(`DELETE FROM ${this.schema}.ops_audit_events WHERE at < $1`, [before]));
    return result.rowCount ?? 0;
  }

  async ping(): Promise<void> {
    await guarded('ping', () => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
