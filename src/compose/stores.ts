// Opens the application store and the audit store that go with the configured database: SQLite stores on
// the same file, or PostgreSQL stores in the same database and schema. (Memory stores are for tests.)
import type { ServiceConfig } from '../config.js';
import type { ApplicationStore, AuditStore } from '../stores/types.js';
import type { SqliteWriter } from '../stores/sqlite/writer.js';

export interface OpsStores {
  readonly applications: ApplicationStore;
  readonly audit: AuditStore;
  close(): Promise<void>;
}

export interface OpsStoresOptions {
  /** SQLite: the service's writer thread, so an audit event commits with its ceremony's write (src/stores/open.ts). */
  readonly sqliteWriter?: SqliteWriter;
}

export async function openOpsStores(
  config: Pick<ServiceConfig, 'database'>,
  options: OpsStoresOptions = {},
): Promise<OpsStores> {
  const { database } = config;
  let applications: ApplicationStore;
  let audit: AuditStore;
  if (database.kind === 'sqlite') {
    const [{ SqliteApplicationStore }, { SqliteAuditStore }] = await Promise.all([
      import('../stores/sqlite/applications.js'),
      import('../stores/sqlite/audit.js'),
    ]);
    applications = new SqliteApplicationStore(database.path);
    try {
      audit = new SqliteAuditStore(database.path, options.sqliteWriter ? { writer: options.sqliteWriter } : {});
    } catch (error) {
      await applications.close();
      throw error;
    }
  } else {
    const [{ PostgresApplicationStore }, { PostgresAuditStore }] = await Promise.all([
      import('../stores/postgres/applications.js'),
      import('../stores/postgres/audit.js'),
    ]);
    applications = await PostgresApplicationStore.open(database.url);
    try {
      audit = await PostgresAuditStore.open(database.url);
    } catch (error) {
      await applications.close();
      throw error;
    }
  }
  return {
    applications,
    audit,
    close: async () => {
      const results = await Promise.allSettled([applications.close(), audit.close()]);
      const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failure) throw failure.reason;
    },
  };
}
