// Numbered migrations for PostgreSQL: applied by `migratePostgres` (the CLI's `migrate` command), and checked
// by every store at start, which refuses a database that is unmigrated, behind, or ahead of this build.

import type pg from 'pg';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from './migrations/index.js';
import { createPool, guarded, schemaIdentifier, splitSchema, withClient, type PostgresOptions } from './connection.js';

export interface MigrationReport {
  /** The schema version before and after. */
  readonly from: number;
  readonly to: number;
  readonly applied: readonly { readonly version: number; readonly name: string }[];
}

/** Raised at start when the database schema does not match this build; the message says what to do. */
export class SchemaVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaVersionError';
  }
}

/** Reads the applied version with an open client: 0 when the migrations table does not exist. */
async function appliedVersion(client: pg.ClientBase, schema: string): Promise<number> {
  const exists = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
    `${schema}.schema_migrations`,
  ]);
  if (!exists.rows[0]?.present) return 0;
  const result = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${schema}.schema_migrations`,
  );
  return result.rows[0]?.version ?? 0;
}

/** A connection of its own: migrations may take longer than a request, still bounded so a stuck lock cannot hang. */
const withMigrationClient = <T>(
  url: string,
  options: PostgresOptions,
  what: string,
  work: (client: pg.Client) => Promise<T>,
) =>
  withClient(
    url,
    {
      ...options,
      queryTimeoutMs: Math.max(options.queryTimeoutMs ?? 5000, 60_000),
      applicationName: 'passkey-server migrate',
    },
    what,
    work,
  );

/**
 * Applies every pending migration (up to `toVersion`; default all) in one transaction, under an advisory
 * lock so that several instances (or operators) running it at once apply each migration exactly once.
 * Idempotent.
 */
export async function migratePostgres(
  url: string,
  options: PostgresOptions & { readonly toVersion?: number } = {},
): Promise<MigrationReport> {
  const schema = schemaIdentifier(options.schema);
  const target = options.toVersion ?? POSTGRES_SCHEMA_VERSION;
  if (!Number.isInteger(target) || target < 0 || target > POSTGRES_SCHEMA_VERSION) {
    throw new Error(`toVersion must be an integer from 0 to ${POSTGRES_SCHEMA_VERSION}`);
  }
  return withMigrationClient(url, options, 'migrate', async (client) => {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`passkey-server migrate ${schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
        version    integer     PRIMARY KEY,
        name       text        NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const from = await appliedVersion(client, schema);
      if (from > POSTGRES_SCHEMA_VERSION) throw newerSchema(schema, from);
      const pending = POSTGRES_MIGRATIONS.filter((m) => m.version > from && m.version <= target);
      for (const migration of pending) {
        for (const statement of migration.statements(schema)) await client.query(statement);
        await client.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
          migration.version,
          migration.name,
        ]);
      }
      await client.query('COMMIT');
      return { from, to: Math.max(from, target), applied: pending.map(({ version, name }) => ({ version, name })) };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/** Throws SchemaVersionError unless the schema is exactly at this build's version. */
export async function checkPostgresSchema(pool: pg.Pool, schemaOption: string | undefined): Promise<void> {
  const schema = schemaIdentifier(schemaOption);
  const version = await guarded('schema check', async () => {
    const client = await pool.connect();
    try {
      return await appliedVersion(client, schema);
    } finally {
      client.release();
    }
  });
  if (version === POSTGRES_SCHEMA_VERSION) return;
  if (version > POSTGRES_SCHEMA_VERSION) throw newerSchema(schema, version);
  throw new SchemaVersionError(
    version === 0
      ? `PostgreSQL schema ${schema} is not migrated. Run \`passkey-server migrate --config <file>\` once before starting the service.`
      : `PostgreSQL schema ${schema} is at version ${version}, this build needs ${POSTGRES_SCHEMA_VERSION}. Run \`passkey-server migrate --config <file>\` before starting the service.`,
  );
}

function newerSchema(schema: string, version: number): SchemaVersionError {
  return new SchemaVersionError(
    `PostgreSQL schema ${schema} is at version ${version}, newer than this build understands (${POSTGRES_SCHEMA_VERSION}). Upgrade the service, or point it at another database.`,
  );
}

/**
 * A bounded pool on the URL's schema, for a store of any folder (credentials, applications, audit): it
 * refuses a schema that `passkey-server migrate` has not brought to exactly this build's version.
 */
export async function openMigratedPool(
  givenUrl: string,
  givenOptions: PostgresOptions = {},
): Promise<{ pool: pg.Pool; schema: string }> {
  const { url, options } = splitSchema(givenUrl, givenOptions);
  const schema = schemaIdentifier(options.schema);
  const pool = createPool(url, options);
  try {
    await checkPostgresSchema(pool, options.schema);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return { pool, schema };
}
