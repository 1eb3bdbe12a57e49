// Applications in the SQLite database (the default deployment), so that admin and CLI changes survive a
// restart and are seen by every process on the file. The store opens its own
// connection with the service's durability settings (src/stores/sqlite/open.ts: WAL, synchronous=FULL, busy
// timeout), which also applies the numbered migrations: migration 2 holds these tables. better-sqlite3 is
// synchronous: each call is one statement, atomic across processes.
import type Database from 'better-sqlite3';
import { guarded, openSqliteDatabase, type SqliteOptions } from './open.js';
import type { ApplicationRecord, ApplicationStore } from '../types.js';

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
    this.#insert =
      this.#db.prepare(`INSERT INTO ops_applications (client_id, config, approved, disabled, source, created_at, updated_at)
      VALUES (@client_id, @config, @approved, @disabled, @source, @created_at, @updated_at) ON CONFLICT (client_id) DO NOTHING`);
    this.#update =
      this.#db.prepare(`UPDATE ops_applications SET config = @config, approved = @approved, disabled = @disabled, source = @source,
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
