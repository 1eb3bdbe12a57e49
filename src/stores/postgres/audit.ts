// The audit log in PostgreSQL, in the same database and schema as the service's other stores. The pool,
// timeouts and the "unreachable → 503" decision are the PostgreSQL stores' own
// (src/stores/postgres/connection.ts); the table comes from the numbered migrations (docs/storage.md).
import type pg from 'pg';
import { guarded, type PostgresOptions } from './connection.js';
import { openMigratedPool } from './migrate.js';
import type { AuditEvent } from '../../schemas/admin.js';
import type { AuditQuery, AuditStore } from '../types.js';

export class PostgresAuditStore implements AuditStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresAuditStore> {
    const { pool, schema } = await openMigratedPool(url, options);
    return new PostgresAuditStore(pool, schema);
  }

  async append(event: AuditEvent): Promise<void> {
    await guarded('audit append', () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.ops_audit_events (id, at, client_id, action, actor, result, event) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          event.id,
          Date.parse(event.time),
          event.clientId,
          event.action,
          event.actor,
          event.result,
          JSON.stringify(event),
        ],
      ),
    );
  }

  async query(query: AuditQuery): Promise<AuditEvent[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
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
    const result = await guarded('audit prune', () =>
      this.pool.query(`DELETE FROM ${this.schema}.ops_audit_events WHERE at < $1`, [before]),
    );
    return result.rowCount ?? 0;
  }

  async ping(): Promise<void> {
    await guarded('ping', () => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
