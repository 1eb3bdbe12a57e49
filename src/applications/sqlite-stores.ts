// Applications and the audit log in the SQLite database (the default deployment), so that admin and CLI
// changes survive a restart and are seen by every process on the file. Each store opens its own
// connection with the service's durability settings (src/stores/sqlite-open.ts: WAL, synchronous=FULL, busy
// timeout), which also applies the numbered migrations: migration 2 holds these tables. better-sqlite3 is
// synchronous: each call is one statement, atomic across processes.
import type Database from 'better-sqlite3';
import { openSqliteDatabase } from '../stores/sqlite-open.js';
import { guarded } from '../stores/sqlite-open.js';
import type { SqliteOptions } from '../stores/sqlite-open.js';
import type { SqliteWriter } from '../stores/sqlite-writer.js';
import { SQLITE_WRITES } from '../stores/sqlite-writes.js';
import type { AuditEvent, AuditQuery, AuditStore } from '../audit/types.js';
import type { ApplicationRecord, ApplicationStore } from './store.js';

type Db = Database.Database;

interface ApplicationRow {
  client_id: string;
  config: string;
  approved: number;
  disabled: number;
  source: string;
  created_at: number;
  updated_at: number;
}

const toRecord = (row: ApplicationRow): ApplicationRecord => ({
  config: JSON.parse(row.config) as ApplicationRecord['config'],
  approved: row.approved === 1,
  disabled: row.disabled === 1,
  source: row.source === 'admin' ? 'admin' : 'config',
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRow = (record: ApplicationRecord): ApplicationRow => ({
  client_id: record.config.clientId,
  config: JSON.stringify(record.config),
  approved: record.approved ? 1 : 0,
  disabled: record.disabled ? 1 : 0,
  source: record.source,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
});

export class SqliteApplicationStore implements ApplicationStore {
  readonly #db: Db;
  readonly #get: Database.Statement<[string], ApplicationRow>;
  readonly #list: Database.Statement<[], ApplicationRow>;
  readonly #insert: Database.Statement<[ApplicationRow]>;
  readonly #update: Database.Statement<[ApplicationRow]>;
  readonly #delete: Database.Statement<[string]>;

  constructor(path: string, options: SqliteOptions = {}) {
    this.#db = openSqliteDatabase(path, options);
    this.#get = this.#db.prepare('SELECT * FROM ops_applications WHERE client_id = ?');
    this.#list = this.#db.prepare('SELECT * FROM ops_applications ORDER BY client_id');
    this.#insert = this.#db.prepare(`INSERT INTO ops_applications (client_id, config, approved, disabled, source, created_at, updated_at)
      VALUES (@client_id, @config, @approved, @disabled, @source, @created_at, @updated_at) ON CONFLICT (client_id) DO NOTHING`);
    this.#update = this.#db.prepare(`UPDATE ops_applications SET config = @config, approved = @approved, disabled = @disabled, source = @source,
      created_at = @created_at, updated_at = @updated_at WHERE client_id = @client_id`);
    this.#delete = this.#db.prepare('DELETE FROM ops_applications WHERE client_id = ?');
  }

  async get(clientId: string): Promise<ApplicationRecord | undefined> {
    const row = guarded('application read', () => this.#get.get(clientId));
    return row && toRecord(row);
  }

  async list(): Promise<ApplicationRecord[]> {
    return guarded('application list', () => this.#list.all()).map(toRecord);
  }

  async create(record: ApplicationRecord): Promise<'created' | 'duplicate'> {
    return guarded('application insert', () => this.#insert.run(toRow(record))).changes === 1 ? 'created' : 'duplicate';
  }

  async update(record: ApplicationRecord): Promise<boolean> {
    return guarded('application update', () => this.#update.run(toRow(record))).changes === 1;
  }

  async delete(clientId: string): Promise<boolean> {
    return guarded('application delete', () => this.#delete.run(clientId)).changes === 1;
  }

  async ping(): Promise<void> {
    guarded('ping', () => this.#db.prepare('SELECT 1').get());
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

export interface SqliteAuditStoreOptions extends SqliteOptions {
  /**
   * The service's writer thread (src/stores/sqlite-writer.ts): an event then commits in the same group as
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
      id: event.id, at: Date.parse(event.time), client_id: event.clientId, action: event.action, actor: event.actor,
      result: event.result, event: JSON.stringify(event),
    };
    if (this.#writer) await this.#writer.run('audit.insert', row);
    else guarded('audit append', () => this.#insert.run(row));
  }

  async query(query: AuditQuery): Promise<AuditEvent[]> {
    const where: string[] = [];
    const params: Record<string, unknown> = { limit: query.limit };
    if (query.since !== undefined) { where.push('at >= @since'); params.since = query.since; }
    if (query.until !== undefined) { where.push('at < @until'); params.until = query.until; }
    if (query.clientId !== undefined) { where.push('client_id = @clientId'); params.clientId = query.clientId; }
    if (query.actor !== undefined) { where.push('actor = @actor'); params.actor = query.actor; }
    if (query.result !== undefined) { where.push('result = @result'); params.result = query.result; }
    if (query.after !== undefined) { where.push('id > @after'); params.after = query.after; }
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
    const rows = guarded('audit query', () => this.#db.prepare<[Record<string, unknown>], { event: string }>(sql).all(params));
    return rows.map((row) => JSON.parse(row.event) as AuditEvent);
  }

  /** Deletes events older than `before` (epoch ms); resolves to how many (retention, run by an operator job). */
  async prune(before: number): Promise<number> {
    return guarded('audit prune', () => this.#db.prepare('DELETE FROM ops_audit_events WHERE at < ?').run(before)).changes;
  }

  async ping(): Promise<void> {
    guarded('ping', () => this.#db.prepare('SELECT 1').get());
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
