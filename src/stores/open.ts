// Opens the stores the configuration names. PostgreSQL and Redis are imported lazily, so a SQLite
// deployment never loads `pg` or `redis`.

import type { ServiceConfig } from '../service-config.js';
import { MemoryChallengeStore } from './memory/challenges.js';
import { openSqliteChallengeStore, openSqliteCredentialStore } from './sqlite/credentials.js';
import { migrateSqlite } from './sqlite/open.js';
import type { MigrationReport } from './sqlite/open.js';
import { openSqliteWriter, resolveWriterMode, type SqliteWriter } from './sqlite/writer.js';
import type { ChallengeStore, CredentialStore } from './types.js';

export interface OpenedStores {
  readonly credentials: CredentialStore;
  readonly challenges: ChallengeStore;
  /** On SQLite: the writer thread the credential store commits through, for the audit store to share. */
  readonly sqliteWriter?: SqliteWriter;
  /** Closes both (each once), even if one of them fails to close, then the writer (committing what it holds). */
  close(): Promise<void>;
}

export interface OpenStoresOptions {
  /** The service clock (`runtime.now`), used by stores that sweep expired ceremonies. */
  readonly clock: () => number;
}

type StoreConfig = Pick<ServiceConfig, 'database' | 'challenges' | 'sqliteWriter'>;

export async function openStores(config: StoreConfig, options: OpenStoresOptions): Promise<OpenedStores> {
  // On SQLite the service's hot-path writes go through one writer (group commit): a thread, or inline on one core.
  const sqliteWriter =
    config.database.kind === 'sqlite'
      ? await openSqliteWriter(config.database.path, { mode: resolveWriterMode(config.sqliteWriter) })
      : undefined;
  let credentials: CredentialStore;
  let challenges: ChallengeStore;
  try {
    credentials = await openCredentialStore(config, sqliteWriter);
  } catch (error) {
    await sqliteWriter?.close().catch(() => undefined);
    throw error;
  }
  try {
    challenges = await openChallengeStore(config, options);
  } catch (error) {
    await credentials.close().catch(() => undefined);
    await sqliteWriter?.close().catch(() => undefined);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    credentials,
    challenges,
    ...(sqliteWriter ? { sqliteWriter } : {}),
    close: () => {
      closing ??= Promise.allSettled([credentials.close(), challenges.close()])
        .then(async (results) => [...results, ...(await Promise.allSettled([sqliteWriter?.close()]))])
        .then((results) => {
          const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
          if (failure) throw failure.reason;
        });
      return closing;
    },
  };
}

/** The configured credential store; on SQLite committing through `writer` when one is given. */
export async function openCredentialStore(config: StoreConfig, writer?: SqliteWriter): Promise<CredentialStore> {
  const { database } = config;
  if (database.kind === 'sqlite') return openSqliteCredentialStore(database.path, writer ? { writer } : {});
  const postgres = await import('./postgres/open.js');
  return postgres.openPostgresCredentialStore(database.url);
}

export async function openChallengeStore(config: StoreConfig, options: OpenStoresOptions): Promise<ChallengeStore> {
  const { challenges, database } = config;
  switch (challenges.kind) {
    case 'memory':
      return new MemoryChallengeStore({ clock: options.clock });
    case 'database':
      if (database.kind === 'sqlite') return openSqliteChallengeStore(database.path, { clock: options.clock });
      return (await import('./postgres/open.js')).openPostgresChallengeStore(database.url, { clock: options.clock });
    case 'redis':
      return (await import('./redis/challenges.js')).openRedisChallengeStore(challenges.url, { clock: options.clock });
  }
}

/** Applies pending migrations to the configured database (the CLI's `migrate`). */
export async function migrateDatabase(config: Pick<ServiceConfig, 'database'>): Promise<MigrationReport> {
  const { database } = config;
  if (database.kind === 'sqlite') return migrateSqlite(database.path);
  return (await import('./postgres/open.js')).migratePostgres(database.url);
}
