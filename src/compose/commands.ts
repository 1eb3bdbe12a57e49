// What the commands other than `serve` and `admin` build from a configuration: the metadata BLOBs verified
// as `serve` verifies them at start (`check-config`), the migration of the configured database
// (`migrate`) and its credential store (`metadata check`). The commands (src/cli/) reach the stores and
// the application directory only through here, so each is opened one way for every command.
import { prepareTrust, type PreparedTrust } from '../applications/config-directory.js';
import type { ServiceConfig } from '../service-config.js';
import { migrateDatabase, openCredentialStore } from '../stores/open.js';
import type { MigrationReport } from '../stores/sqlite/open.js';
import type { CredentialStore } from '../stores/types.js';

/** Reads and verifies every configured metadata BLOB (a BLOB that does not verify throws, as at start). */
export function configuredTrust(config: ServiceConfig, source: string, now: Date): PreparedTrust {
  return prepareTrust(config.applications, now, source);
}

/** Applies the pending migrations to the configured database. */
export function migrateConfiguredDatabase(config: ServiceConfig): Promise<MigrationReport> {
  return migrateDatabase(config);
}

/** The configured credential store (close it when done). */
export function openConfiguredCredentials(config: ServiceConfig): Promise<CredentialStore> {
  return openCredentialStore(config);
}
