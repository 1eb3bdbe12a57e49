// PostgreSQL backends: credentials, and ceremonies for `challenges: "database"`. Each store opens its own
// bounded pool and refuses to start unless the schema is migrated to exactly this build's version.
// Imported dynamically by src/stores/open.ts, so `pg` loads only where PostgreSQL is configured.

import type { ChallengeStore, CredentialStore } from '../types.js';
import { splitSchema, type PostgresOptions } from './connection.js';
import { migratePostgres as migrate, openMigratedPool, type MigrationReport } from './migrate.js';
import { PostgresCredentialStore } from './credentials.js';
import { PostgresChallengeStore, type SweepOptions } from './challenges.js';

export type { PostgresOptions } from './connection.js';
export { SchemaVersionError, type MigrationReport } from './migrate.js';
export { POSTGRES_SCHEMA_VERSION } from './migrations/index.js';
export { checkSharedSecrets, SecretsMismatchError, type SharedSecrets } from './secrets.js';

/**
 * Applies the pending numbered migrations (src/stores/postgres/migrations/) to the schema named by
 * `options.schema`, else the URL's `?schema=`, else `public`. What the CLI's `migrate` command runs.
 */
export async function migratePostgres(
  url: string,
  options: PostgresOptions & { readonly toVersion?: number } = {},
): Promise<MigrationReport> {
  const split = splitSchema(url, options);
  return migrate(split.url, split.options);
}

export async function openPostgresCredentialStore(
  url: string,
  options: PostgresOptions = {},
): Promise<CredentialStore> {
  const { pool, schema } = await openMigratedPool(url, options);
  return new PostgresCredentialStore(pool, schema);
}

export async function openPostgresChallengeStore(
  url: string,
  options: PostgresOptions & SweepOptions = {},
): Promise<ChallengeStore> {
  const { pool, schema } = await openMigratedPool(url, options);
  return new PostgresChallengeStore(pool, schema, options);
}
