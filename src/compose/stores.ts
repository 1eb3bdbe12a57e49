// Opens the application store and the audit store that go with the configured database: SQLite stores on
// the same file, or PostgreSQL stores in the same database and schema. (Memory stores are for tests.) With a
// secret box, the application store keeps its webhooks' literal secrets sealed (applications/sealed-store.ts).
import type { ServiceConfig } from '../service-config.js';
import { sealedApplicationStore } from '../applications/sealed-store.js';
import { storeWithDefaults } from '../applications/stored-defaults.js';
import type { WebhookSecretBox } from '../webhooks/secret-box.js';
import type { ApplicationStore, AuditStore } from '../stores/types.js';
import type { SqliteWriter } from '../stores/sqlite/writer.js';
import type { RelaySecretStore } from '../stores/relay-secret-types.js';

export interface OpsStores {
  readonly applications: ApplicationStore;
  readonly audit: AuditStore;
  /** The relay secrets the admin API and CLI create, in the same database. */
  readonly relaySecrets: RelaySecretStore;
  /** Seals the literal webhook secrets of the applications stored in clear or under an older key; how many. */
  sealSecrets(): Promise<number>;
  close(): Promise<void>;
}

export interface OpsStoresOptions {
  /** SQLite: the service's writer thread, so an audit event commits with its ceremony's write (src/stores/open.ts). */
  readonly sqliteWriter?: SqliteWriter;
  /** Seals the applications' literal webhook secrets (the service and the CLI always give one). */
  readonly secretBox?: WebhookSecretBox;
}

export async function openOpsStores(
  config: Pick<ServiceConfig, 'database'>,
  options: OpsStoresOptions = {},
): Promise<OpsStores> {
  const { database } = config;
  let applications: ApplicationStore;
  let audit: AuditStore;
  let relaySecrets: RelaySecretStore;
  if (database.kind === 'sqlite') {
    const [{ SqliteApplicationStore }, { SqliteAuditStore }, { SqliteRelaySecretStore }] = await Promise.all([
      import('../stores/sqlite/applications.js'),
      import('../stores/sqlite/audit.js'),
      import('../stores/sqlite/relay-secrets.js'),
    ]);
    applications = new SqliteApplicationStore(database.path);
    try {
      audit = new SqliteAuditStore(database.path, options.sqliteWriter ? { writer: options.sqliteWriter } : {});
    } catch (error) {
      await applications.close();
      throw error;
    }
    try {
      relaySecrets = new SqliteRelaySecretStore(database.path);
    } catch (error) {
      await Promise.allSettled([applications.close(), audit.close()]);
      throw error;
    }
  } else {
    const [{ PostgresApplicationStore }, { PostgresAuditStore }, { PostgresRelaySecretStore }] = await Promise.all([
      import('../stores/postgres/applications.js'),
      import('../stores/postgres/audit.js'),
      import('../stores/postgres/relay-secrets.js'),
    ]);
    applications = await PostgresApplicationStore.open(database.url);
    try {
      audit = await PostgresAuditStore.open(database.url);
    } catch (error) {
      await applications.close();
      throw error;
    }
    try {
      relaySecrets = await PostgresRelaySecretStore.open(database.url);
    } catch (error) {
      await Promise.allSettled([applications.close(), audit.close()]);
      throw error;
    }
  }
  // Read with the schema's defaults (an application stored before a key with a default existed).
  applications = storeWithDefaults(applications);
  const sealed = options.secretBox ? sealedApplicationStore(applications, options.secretBox) : undefined;
  return {
    applications: sealed ?? applications,
    audit,
    relaySecrets,
    sealSecrets: async () => (sealed ? sealed.sealAll() : 0),
    close: async () => {
      const results = await Promise.allSettled([applications.close(), audit.close(), relaySecrets.close()]);
      const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failure) throw failure.reason;
    },
  };
}
