// What an import (issue 34) reads and writes on PostgreSQL: the kept user handles (migration 11) and a
// batch of credentials, one transaction per batch. Each read and write of a batch is one statement, whatever
// its size (arrays and a multi-row insert), so a batch costs a few round trips, not one per record.
import type pg from 'pg';
import type { CredentialRecord, ImportedUserHandle, ImportLookup, OutboxMessage } from '../types.js';
import { guarded } from './connection.js';
import { COLUMNS, fromRow, rowValues, type CredentialRow } from './rows.js';
import { inTransaction, type PostgresOutbox, type Queryable } from './webhooks.js';

const COLUMN_COUNT = COLUMNS.split(',').length;

export class PostgresImports {
  readonly #pool: pg.Pool;
  readonly #outbox: PostgresOutbox;
  readonly #handles: string;
  readonly #credentials: string;

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
          `SELECT username, user_handle FROM ${this.#handles}
           WHERE client_id = $1 AND (username = ANY($2::text[]) OR user_handle = ANY($3::text[]))`,
          [clientId, [...query.usernames], [...query.userHandles]],
        ),
        this.#pool.query<{ username: string; user_handle: string }>(
          `SELECT DISTINCT username, user_handle FROM ${this.#credentials}
           WHERE client_id = $1 AND user_handle = ANY($2::text[])`,
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
      owners: owners.rows.map(pair),
    };
  }

  write(
    clientId: string,
    handles: readonly ImportedUserHandle[],
    records: readonly CredentialRecord[],
    events: readonly OutboxMessage[],
  ): Promise<number> {
    return inTransaction(this.#pool, 'import batch', async (db) => {
      if (handles.length > 0) {
        // A handle kept for another name fails on the unique index (the batch rolls back); a name kept with
        // another handle is checked below: its credentials must not go in under a handle it lacks.
        await db.query(
          `INSERT INTO ${this.#handles} (client_id, username, user_handle)
           SELECT $1, * FROM unnest($2::text[], $3::text[]) ON CONFLICT (client_id, username) DO NOTHING`,
          [clientId, handles.map((h) => h.username), handles.map((h) => h.userHandle)],
        );
        const kept = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${this.#handles} h JOIN unnest($2::text[], $3::text[]) AS w(username, user_handle)
             ON h.username = w.username AND h.user_handle = w.user_handle WHERE h.client_id = $1`,
          [clientId, handles.map((h) => h.username), handles.map((h) => h.userHandle)],
        );
        if (kept.rows[0]!.n !== handles.length) throw new Error('a user of this batch keeps another user handle');
      }
      if (records.length === 0) return 0;
      const values: unknown[] = [];
      const rows = records.map((record, i) => {
        values.push(...rowValues({ ...record, clientId }));
        const first = i * COLUMN_COUNT;
        return `(${Array.from({ length: COLUMN_COUNT }, (_, c) => `$${first + c + 1}`).join(', ')})`;
      });
      const result = await db.query(
        `INSERT INTO ${this.#credentials} (${COLUMNS}) VALUES ${rows.join(', ')}
         ON CONFLICT (client_id, credential_id) DO NOTHING`,
        values,
      );
      const written = result.rowCount ?? 0;
      if (written > 0) await this.#outbox.insertWith(db, events);
      return written;
    });
  }

  /** Inside deleteUser's transaction: the user goes, with the handle an import kept for it. */
  async forgetUser(db: Queryable, clientId: string, userHandle: string): Promise<void> {
    await db.query(`DELETE FROM ${this.#handles} WHERE client_id = $1 AND user_handle = $2`, [clientId, userHandle]);
  }

  async forgetApplication(db: Queryable, clientId: string): Promise<void> {
    await db.query(`DELETE FROM ${this.#handles} WHERE client_id = $1`, [clientId]);
  }
}
