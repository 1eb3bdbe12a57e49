// The audit log in the SQLite database (the default deployment), on the service's file: the store opens
// its own connection with the service's durability settings (src/stores/sqlite/open.ts), which also
// applies the numbered migrations (migration 2 holds the table). Appends go through the service's writer
// thread when there is one, so an event commits with its ceremony's write.
import type Database from 'better-sqlite3';
import { guarded, openSqliteDatabase, type SqliteOptions } from './open.js';
import type { SqliteWriter } from './writer.js';
import { SQLITE_WRITES } from './writes.js';
import type { AuditEvent } from '../../schemas/admin.js';
import type { AuditQuery, AuditStore } from '../types.js';

type Db = Database.Database;

export interface SqliteAuditStoreOptions extends SqliteOptions {
  /**
   * The service's writer thread (src/stores/sqlite/writer.ts): an event then commits in the same group as
   * the credential write of its ceremony, one flush for both. Without one, each append is its own commit.
   */
  readonly writer?: SqliteWriter;
}

export class SqliteAuditStore implements AuditStore {
  readonly #db: Db;
  readonly #insert: Database.Statement<[Record<string, unknown>]>;
  readonly #writer: SqliteWriter | undefined;

  constructor(path: string, options: SqliteAuditStoreOptions = {}) {
    this.#db = openSqliteDatabase(path, options);
    this.#insert = this.#db.prepare(SQLITE_WRITES['audit.insert']);
    this.#writer = options.writer;
  }

  async append(event: AuditEvent): Promise<void> {
    const row = {
      id: event.id,
      at: Date.parse(event.time),
      client_id: event.clientId,
      action: event.action,
      actor: event.actor,
      result: event.result,
      event: JSON.stringify(event),
    };
    if (this.#writer) await this.#writer.run('audit.insert', row);
    else guarded('audit append', () => this.#insert.run(row));
  }

  async query(query: AuditQuery): Promise<AuditEvent[]> {
    const where: string[] = [];
    const params: Record<string, unknown> = { limit: query.limit };
    if (query.since !== undefined) {
      where.push('at >= @since');
      params.since = query.since;
    }
    if (query.until !== undefined) {
      where.push('at < @until');
      params.until = query.until;
    }
    if (query.clientId !== undefined) {
      where.push('client_id = @clientId');
      params.clientId = query.clientId;
    }
    if (query.actor !== undefined) {
      where.push('actor = @actor');
      params.actor = query.actor;
    }
    if (query.result !== undefined) {
      where.push('result = @result');
      params.result = query.result;
    }
    if (query.after !== undefined) {
      where.push('id > @after');
      params.after = query.after;
    }
    if (query.action !== undefined) {
      if (query.action.endsWith('.')) {
        // A prefix: compare ranges rather than LIKE, whose wildcards (_ %) could occur in the text.
        where.push('action >= @actionFrom AND action < @actionTo');
        params.actionFrom = query.action;
        params.actionTo = `${query.action.slice(0, -1)}/`; // '/' is the character after '.'
      } else {
        where.push('action = @action');
        params.action = query.action;
      }
    }
    const sql = `SELECT event FROM ops_audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT @limit`;
    const rows = guarded('audit query', () =>
      this.#db.prepare<[Record<string, unknown>], { event: string }>(sql).all(params),
    );
    return rows.map((row) => JSON.parse(row.event) as AuditEvent);
  }

  /** Deletes events older than `before` (epoch ms); resolves to how many (retention, run by an operator job). */
  async prune(before: number): Promise<number> {
    return guarded('audit prune', () => this.#db.prepare('DELETE FROM ops_audit_events WHERE at < ?').run(before))
      .changes;
  }

  async ping(): Promise<void> {
    guarded('ping', () => this.#db.prepare('SELECT 1').get());
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
