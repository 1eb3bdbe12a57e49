// Where the test PostgreSQL and Redis are, and throw-away namespaces on them (a schema, a key prefix) so
// that concurrent and repeated runs never see each other's data. Each namespace is dropped by its owner.

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createClient } from 'redis';
import { migratePostgres } from '../../../src/stores/postgres/open.js';

export const POSTGRES_URL = process.env.PASSKEY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.PASSKEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh, migrated PostgreSQL schema; `drop()` removes it and everything in it. */
export interface TestSchema {
  readonly schema: string;
  drop(): Promise<void>;
}

export async function freshSchema(label: string, options: { migrate?: boolean } = {}): Promise<TestSchema> {
  const schema = `t_${label}_${randomBytes(6).toString('hex')}`;
  if (options.migrate !== false) await migratePostgres(POSTGRES_URL, { schema });
  return {
    schema,
    drop: () => sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).then(() => undefined),
  };
}

/** Runs one statement on its own connection (test set-up and inspection). */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({
    connectionString: POSTGRES_URL,
    connectionTimeoutMillis: 5000,
    query_timeout: 30_000,
  });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A fresh Redis key prefix; `drop()` deletes every key under it. */
export interface TestPrefix {
  readonly prefix: string;
  keys(): Promise<string[]>;
  drop(): Promise<void>;
}

export function freshPrefix(label: string): TestPrefix {
  const prefix = `test:${label}:${randomBytes(6).toString('hex')}:`;
  const withClient = async <T>(work: (client: ReturnType<typeof createClient>) => Promise<T>): Promise<T> => {
    const client = createClient({ url: REDIS_URL, socket: { connectTimeout: 5000, reconnectStrategy: false } });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.close();
    }
  };
  const keys = () =>
    withClient(async (client) => {
      const found: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) found.push(...batch);
      return found;
    });
  return {
    prefix,
    keys,
    drop: async () => {
      const found = await keys();
      if (found.length > 0) await withClient((client) => client.del(found));
    },
  };
}
