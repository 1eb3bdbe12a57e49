// What an import (issue 34) reads and writes on PostgreSQL: the kept user handles (migration 11) and a
// batch of credentials, one transaction per batch. Each read and write of a batch is one statement, whatever
// its size (arrays and a multi-row insert), so a batch costs a few round trips, not one per record.
import type pg from 'pg';
import type { CredentialRecord, ImportBatchResult, ImportedUserHandle, ImportLookup, OutboxMessage } from '../types.js';
import { guarded } from './connection.js';
import { COLUMNS, fromRow, rowValues, type CredentialRow } from './rows.js';
import { lockUsers } from './user-lock.js';
import { type LimitedBatch, withinLimit } from '../import-limit.js';
import { inTransaction, type PostgresOutbox, type Queryable } from './webhooks.js';

const COLUMN_COUNT = COLUMNS.split(',').length;

/**
 * An import ANALYZEs the tables it fills after this many rows, then after twice as many more, and so on:
 * with the statistics of a table a tenth of its size, the planner read every credential of the application
 * for each batch's lookup instead of seeking the ids (autovacuum re-reads them only about once a minute).
 */
const FIRST_ANALYZE = 5_000;

export class PostgresImports {
  readonly #pool: pg.Pool;
  readonly #outbox: PostgresOutbox;
  readonly #handles: string;
  readonly #credentials: string;
  /** Rows imported since PostgreSQL last re-read the tables' statistics, and how many call for the next time. */
  #sinceAnalyze = 0;
  #analyzeAfter = FIRST_ANALYZE;

  constructor(pool: pg.Pool, schema: string, outbox: PostgresOutbox) {
    this.#pool = pool;
    this.#outbox = outbox;
    this.#handles = `${schema}.user_handles`;
    this.#credentials = `${schema}.credentials`;
  }

  async handleOf(clientId: string, username: string): Promise<string | undefined> {
    const result = await guarded('user handle read', () =>
      this.#pool.query<{ user_handle: string }>(
        `SELECT user_handle FROM ${this.#handles} WHERE client_id = $1 AND username = $2`,
        [clientId, username],
      ),
    );
    return result.rows[0]?.user_handle;
  }

  async lookup(
    clientId: string,
    query: { credentialIds: readonly string[]; usernames: readonly string[]; userHandles: readonly string[] },
  ): Promise<ImportLookup> {
    const [credentials, handles, owners] = await guarded('import lookup', () =>
      Promise.all([
        this.#pool.query<CredentialRow>(
          `SELECT ${COLUMNS} FROM ${this.#credentials} WHERE client_id = $1 AND credential_id = ANY($2::text[])`,
          [clientId, [...query.credentialIds]],
        ),
        this.#pool.query<{ username: string; user_handle: string }>(
          // A UNION, not one OR of the two lists: each side seeks its own index (the OR read the whole table).
          `SELECT username, user_handle FROM ${this.#handles} WHERE client_id = $1 AND username = ANY($2::text[])
           UNION SELECT username, user_handle FROM ${this.#handles} WHERE client_id = $1 AND user_handle = ANY($3::text[])`,
          [clientId, [...query.usernames], [...query.userHandles]],
        ),
        this.#pool.query<{ username: string; user_handle: string; passkeys: number }>(
          `SELECT username, user_handle, count(*)::int AS passkeys FROM ${this.#credentials}
           WHERE client_id = $1 AND user_handle = ANY($2::text[]) GROUP BY username, user_handle`,
          [clientId, [...query.userHandles]],
        ),
      ]),
    );
    const pair = (row: { username: string; user_handle: string }): ImportedUserHandle => ({
      username: row.username,
      userHandle: row.user_handle,
    });
    return {
      credentials: credentials.rows.map(fromRow),
      handles: handles.rows.map(pair),
      owners: owners.rows.map((row) => ({ ...pair(row), passkeys: row.passkeys })),
    };
  }

  write(
    clientId: string,
    handles: readonly ImportedUserHandle[],
    records: readonly CredentialRecord[],
    events: readonly OutboxMessage[],
    maxPasskeysPerUser?: number,
  ): Promise<ImportBatchResult> {
    return inTransaction(this.#pool, 'import batch', async (db) => {
      if (handles.length > 0) {
        // A handle kept for another name fails on the unique index (the batch rolls back); a name kept with
        // another handle is checked below: its credentials must not go in under a handle it lacks.
        const pairs = [clientId, handles.map((h) => h.username), handles.map((h) => h.userHandle)];
        const inserted = await db.query(
          `INSERT INTO ${this.#handles} (client_id, username, user_handle)
           SELECT $1, * FROM unnest($2::text[], $3::text[]) ON CONFLICT (client_id, username) DO NOTHING`,
          pairs,
        );
        // Every pair new, as the lookup found them: nothing to check. Otherwise, the names kept before.
        if (inserted.rowCount !== handles.length) await this.#checkKept(db, pairs, handles.length);
      }
      const { within, overLimit } =
        maxPasskeysPerUser === undefined
          ? { within: records, overLimit: [] }
          : await this.#withinLimit(db, clientId, records, maxPasskeysPerUser);
      if (within.length === 0) return { written: 0, overLimit };
      const values: unknown[] = [];
      const rows = within.map((record, i) => {
        values.push(...rowValues({ ...record, clientId }));
        const first = i * COLUMN_COUNT;
        return `(${Array.from({ length: COLUMN_COUNT }, (_, c) => `$${first + c + 1}`).join(', ')})`;
      });
      // Named, so PostgreSQL parses the statement of a full batch once per connection, not once per batch.
      const result = await db.query({
        name: `import-credentials-${within.length}`,
        text: `INSERT INTO ${this.#credentials} (${COLUMNS}) VALUES ${rows.join(', ')}
         ON CONFLICT (client_id, credential_id) DO NOTHING`,
        values,
      });
      const written = result.rowCount ?? 0;
      if (written > 0) await this.#outbox.insertWith(db, events);
      return { written, overLimit };
    }).then(async (result) => {
      await this.#analyzeWhenGrown(result.written);
      return result;
    });
  }

  /**
   * The batch split at the limit (import-limit.ts). The users' locks first (user-lock.ts), as a registration
   * takes them: the counts then include every registration committed since the batch was read, and none
   * commits before this transaction ends.
   */
  async #withinLimit(
    db: Queryable,
    clientId: string,
    records: readonly CredentialRecord[],
    max: number,
  ): Promise<LimitedBatch> {
    const userHandles = [...new Set(records.map((r) => r.userHandle))];
    await lockUsers(db, clientId, userHandles);
    const [counts, stored] = await Promise.all([
      db.query<{ user_handle: string; n: number }>(
        `SELECT user_handle, count(*)::int AS n FROM ${this.#credentials}
         WHERE client_id = $1 AND user_handle = ANY($2::text[]) GROUP BY user_handle`,
        [clientId, userHandles],
      ),
      db.query<{ credential_id: string }>(
        `SELECT credential_id FROM ${this.#credentials} WHERE client_id = $1 AND credential_id = ANY($2::text[])`,
        [clientId, records.map((r) => r.credentialId)],
      ),
    ]);
    return withinLimit(
      records,
      max,
      new Map(counts.rows.map((row) => [row.user_handle, row.n])),
      new Set(stored.rows.map((row) => row.credential_id)),
    );
  }

  /** Throws unless every (name, handle) pair of the batch is kept as it is: a name may keep another handle. */
  async #checkKept(db: Queryable, pairs: readonly unknown[], count: number): Promise<void> {
    const kept = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.#handles} h JOIN unnest($2::text[], $3::text[]) AS w(username, user_handle)
         ON h.username = w.username AND h.user_handle = w.user_handle WHERE h.client_id = $1`,
      [...pairs],
    );
    if (kept.rows[0]!.n !== count) throw new Error('a user of this batch keeps another user handle');
  }

  async #analyzeWhenGrown(written: number): Promise<void> {
    this.#sinceAnalyze += written;
    if (this.#sinceAnalyze < this.#analyzeAfter) return;
    this.#sinceAnalyze = 0;
    this.#analyzeAfter *= 2;
    await guarded('import statistics', () => this.#pool.query(`ANALYZE ${this.#credentials}, ${this.#handles}`));
  }

  /** Inside deleteUser's transaction: the user goes, with the handle an import kept for it. */
  async forgetUser(db: Queryable, clientId: string, userHandle: string): Promise<void> {
    await db.query(`DELETE FROM ${this.#handles} WHERE client_id = $1 AND user_handle = $2`, [clientId, userHandle]);
  }

  async forgetApplication(db: Queryable, clientId: string): Promise<void> {
    await db.query(`DELETE FROM ${this.#handles} WHERE client_id = $1`, [clientId]);
  }
}
