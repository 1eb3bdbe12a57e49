// Opening a SQLite database file for the stores: the durability settings (WAL journal, synchronous=FULL,
// busy timeout, foreign keys) and the numbered migrations, applied once under the write lock. Both the
// stores' connection (sqlite.ts) and the writer (writer.ts) open files through here.

import type BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { StoreUnavailableError } from '../../errors/catalogue.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './migrations/index.js';
import { SQLITE_UNAVAILABLE } from './writes.js';

/**
 * The SQLite driver for this runtime, the one place that loads it: better-sqlite3 13 (Node-API, one binary
 * for Node.js 22, 24 and 26) on a supported runtime; on Node.js 20, which 13 crashes, the 12 line under the
 * package alias `better-sqlite3-node20`, built from source at install. 12 itself cannot serve Node.js 24:
 * its statements' destructors trip that runtime's cleanup-hook assertion (docs/decisions.md "Runtimes").
 */
export const Database: typeof BetterSqlite3 = loadDriver();

function loadDriver(): typeof BetterSqlite3 {
  const load = createRequire(import.meta.url);
  if (Number(process.versions.node.split('.')[0]) >= 22) return load('better-sqlite3');
  try {
    return load('better-sqlite3-node20');
  } catch (error) {
    // The published package leaves it out (its install script builds from source; docs/deployment.md):
    // the commands that need no database still run, and opening one says what to add.
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    const missing = error;
    return function missingDriver(): never {
      throw new Error(
        'SQLite on Node.js 20 (past its end of life) needs better-sqlite3 12: ' +
          'npm install better-sqlite3-node20@npm:better-sqlite3@12.11.1 (and allow its install script), ' +
          'or run Node.js 22, 24 or 26',
        { cause: missing },
      );
    } as unknown as typeof BetterSqlite3;
  }
}
export type Db = BetterSqlite3.Database;

export interface SqliteOptions {
  /** How long a statement waits for another process's write lock, in ms. Default 5000. */
  readonly busyTimeoutMs?: number;
}

export interface MigrationReport {
  /** The schema version before and after. */
  readonly from: number;
  readonly to: number;
  readonly applied: readonly { readonly version: number; readonly name: string }[];
}

/** The file was migrated by a newer build: refusing is safer than writing rows it does not understand. */
export class SqliteSchemaVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqliteSchemaVersionError';
  }
}

/** Runs one SQLite call; outages become StoreUnavailableError (503), anything else is rethrown (a bug: 500). */
export function guarded<T>(what: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const closed = error instanceof TypeError && /database connection is not open/.test(error.message);
    if (closed || (typeof code === 'string' && SQLITE_UNAVAILABLE.test(code))) {
      throw new StoreUnavailableError(`SQLite unavailable during ${what}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** Opens (creating folder and file when absent) with the durability settings, then applies pending migrations. */
export function openSqliteDatabase(path: string, options: SqliteOptions = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = guarded(`open of ${path}`, () => new Database(path, { timeout: options.busyTimeoutMs ?? 5000 }));
  try {
    guarded(`open of ${path}`, () => {
      db.pragma(`busy_timeout = ${Math.floor(options.busyTimeoutMs ?? 5000)}`);
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (path !== ':memory:' && mode !== 'wal')
        throw new Error(`SQLite at ${path} refused WAL mode (got ${String(mode)})`);
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      applyMigrations(db);
    });
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Applies every pending migration (the CLI's `migrate`); idempotent. */
export function migrateSqlite(path: string, options: SqliteOptions = {}): MigrationReport {
  const db = openSqliteDatabase(path, options);
  try {
    return lastReport.get(db) ?? { from: SQLITE_SCHEMA_VERSION, to: SQLITE_SCHEMA_VERSION, applied: [] };
  } finally {
    db.close();
  }
}

/** What the migration at open did, per connection (read back by migrateSqlite). */
const lastReport = new WeakMap<Db, MigrationReport>();

function applyMigrations(db: Db): void {
  // IMMEDIATE takes the write lock first, so two processes opening a new file at once migrate it once.
  const run = db.transaction((): MigrationReport => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
               version    INTEGER PRIMARY KEY,
               name       TEXT    NOT NULL,
               applied_at INTEGER NOT NULL
             ) STRICT`);
    const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get() as { version: number | null };
    const from = row.version ?? 0;
    if (from > SQLITE_SCHEMA_VERSION) {
      throw new SqliteSchemaVersionError(
        `the SQLite database is at schema version ${from}, newer than this build's ${SQLITE_SCHEMA_VERSION}; run a newer passkey-server (or restore a backup)`,
      );
    }
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    const applied: { version: number; name: string }[] = [];
    for (const migration of SQLITE_MIGRATIONS.filter((m) => m.version > from)) {
      for (const statement of migration.statements) db.exec(statement);
      record.run(migration.version, migration.name, Date.now());
      applied.push({ version: migration.version, name: migration.name });
    }
    return { from, to: SQLITE_SCHEMA_VERSION, applied };
  });
  lastReport.set(db, run.immediate());
}

/** The schema version recorded in an open database (tests, `migrate`). */
export function sqliteSchemaVersion(db: Db): number {
  const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get() as { version: number | null };
  return row.version ?? 0;
}
