// The one file that imports `pg` for its values: one PostgreSQL connection pool per store (and the single
// connection of the shared secrets' check), with every wait bounded, and the one place that decides
// which failures mean "the database is unreachable" (StoreUnavailableError → 503) rather than a bug (500).

import pg from 'pg';
import { StoreUnavailableError } from '../../errors/catalogue.js';

export interface PostgresOptions {
  /** The schema holding the tables (created by `migratePostgres`). Default `public`. */
  readonly schema?: string;
  /** Connections per store. Default 10. */
  readonly poolSize?: number;
  /** Bound on opening a connection, in ms. Default 3000. */
  readonly connectTimeoutMs?: number;
  /** Bound on one statement (client side, and `statement_timeout` on the server), in ms. Default 5000. */
  readonly queryTimeoutMs?: number;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The schema name as a quoted SQL identifier; only plain names are accepted, so no quoting tricks. */
export function schemaIdentifier(schema: string | undefined): string {
  const name = schema ?? 'public';
  if (!SCHEMA_NAME.test(name)) {
    throw new Error(
      `PostgreSQL schema name "${name}" must be letters, digits and _ (not starting with a digit), at most 63 characters`,
    );
  }
  return `"${name}"`;
}

/**
 * Takes our own `schema` parameter out of a postgres:// URL (`postgres://host/db?schema=passkey`), so that a
 * deployment chooses its schema in the one `database` setting. An explicit `options.schema` wins.
 */
export function splitSchema(url: string, options: PostgresOptions): { url: string; options: PostgresOptions } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, options };
  }
  const fromUrl = parsed.searchParams.get('schema');
  if (fromUrl === null) return { url, options };
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), options: { ...options, schema: options.schema ?? fromUrl } };
}

/**
 * `work` on a connection of its own (migrations, the shared secrets' check), closed after it, every wait
 * bounded; a failure to reach the database is StoreUnavailableError (`what` names the step).
 */
export async function withClient<T>(
  url: string,
  options: PostgresOptions & { readonly applicationName?: string },
  what: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  return guarded(what, async () => {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
      query_timeout: options.queryTimeoutMs ?? 5000,
      application_name: options.applicationName ?? 'passkey-server',
    });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  });
}

export function createPool(url: string, options: PostgresOptions = {}): pg.Pool {
  const queryTimeoutMs = options.queryTimeoutMs ?? 5000;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
    query_timeout: queryTimeoutMs,
    statement_timeout: queryTimeoutMs,
    idleTimeoutMillis: 30_000,
    // Notice a peer that vanished without closing the socket (a cut network), not only a refused connect.
    keepAlive: true,
    application_name: 'passkey-server',
  });
  // An idle connection that breaks (server restart) emits here; without a listener Node would crash.
  // The pool drops that connection by itself; the next query opens a new one.
  pool.on('error', () => undefined);
  return pool;
}

/** SQLSTATE classes and codes that mean the server is gone, restarting, or refusing work for now. */
const UNAVAILABLE_SQLSTATE = [/^08/, /^53/, /^57P0[1-4]$/, /^57014$/];
const UNAVAILABLE_SYSCALL = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|connection terminated|query read timeout|connection error|not queryable|connection timeout|server closed the connection/i;

export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SYSCALL.has(code) || UNAVAILABLE_SQLSTATE.some((p) => p.test(code))))
    return true;
  return UNAVAILABLE_MESSAGE.test(error.message);
}

/** Runs `work`, turning "cannot reach the database" into StoreUnavailableError; anything else is rethrown. */
export async function guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUnavailable(error)) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new StoreUnavailableError(`PostgreSQL unavailable during ${what}: ${reason}`, { cause: error });
    }
    throw error;
  }
}

/** pg returns int8 as a string (it may exceed 2^53); our int8 columns hold epoch ms and uint32 counters. */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}
