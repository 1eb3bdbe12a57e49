// CredentialStore on PostgreSQL. Each operation is one statement, so each is atomic on its own:
// create relies on the primary key (ON CONFLICT DO NOTHING → duplicate), recordUse is a single
// conditional UPDATE (compare-and-set on sign_count, authenticator_status and created_at), so concurrent instances never move a counter back.
// A change with webhook messages runs in one transaction with their insert (postgres-webhooks.ts).

import type pg from 'pg';
import type {
  AlgorithmUsage,
  CredentialRecord,
  CredentialStore,
  CredentialUse,
  MarkRequest,
  OutboxMessage,
} from '../types.js';
import { inTransaction, PostgresOutbox, PostgresWebhookStore, type Queryable } from './webhooks.js';
import { guarded } from './connection.js';
import { BEFORE_EVERY_ID } from '../credential-order.js';
import { lockUser } from './user-lock.js';

import { COLUMNS, fromRow, rowValues, type CredentialRow } from './rows.js';
import { PostgresImports } from './imports.js';

/** Page sizes of the admin listing are bounded whatever the caller asks. */
const MAX_PAGE = 1000;

export class PostgresCredentialStore implements CredentialStore {
  readonly #pool: pg.Pool;
  readonly #table: string;
  readonly #outbox: PostgresOutbox;
  readonly #imports: PostgresImports;
  readonly outbox: PostgresOutbox;
  readonly webhooks: PostgresWebhookStore;
  #closed = false;
  readonly #sql: {
    readonly insert: string;
    readonly insertCounted: string;
    readonly find: string;
    readonly listByUser: string;
    readonly recordUse: string;
    readonly listByApplication: string;
    readonly delete: string;
    readonly rename: string;
    readonly deleteByApplication: string;
    readonly countByAlgorithms: string;
  };

  /** `schema` is the quoted identifier; the schema must already be migrated (see postgres-migrate.ts). */
  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    const table = `${schema}.credentials`;
    this.#table = table;
    this.#outbox = new PostgresOutbox(pool, schema);
    this.outbox = this.#outbox;
    this.webhooks = new PostgresWebhookStore(pool, schema);
    this.#imports = new PostgresImports(pool, schema, this.#outbox);
    this.#sql = {
      insert: `INSERT INTO ${table} (${COLUMNS})
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
                       $23, $24, $25)
               ON CONFLICT (client_id, credential_id) DO NOTHING`,
      // The insert of a registration, only while the user has fewer than $26 credentials: how many they had,
      // whether it inserted, and whether the id was stored already (a duplicate is said before the limit).
      insertCounted: `WITH had AS (SELECT count(*)::int AS n FROM ${table} WHERE client_id = $1 AND user_handle = $3),
               made AS (INSERT INTO ${table} (${COLUMNS})
                 SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
                        $23, $24, $25 WHERE (SELECT n FROM had) < $26
                 ON CONFLICT (client_id, credential_id) DO NOTHING RETURNING 1)
               SELECT (SELECT n FROM had) AS n, (SELECT count(*)::int FROM made) AS inserted,
                      EXISTS (SELECT 1 FROM ${table} WHERE client_id = $1 AND credential_id = $2) AS duplicate`,
      find: `SELECT ${COLUMNS} FROM ${table} WHERE client_id = $1 AND credential_id = $2`,
      // Same order as every backend: oldest first, ties by credential id in code-unit order (the column is COLLATE "C").
      listByUser: `SELECT ${COLUMNS} FROM ${table} WHERE client_id = $1 AND user_handle = $2
                   ORDER BY created_at, credential_id`,
      recordUse: `UPDATE ${table}
                  SET sign_count = $4, backup_state = $5, user_verified = $6,
                      clone_warning = clone_warning OR $7, last_used_at = $8, backup_eligible = $9
                  WHERE client_id = $1 AND credential_id = $2 AND sign_count = $3
                    AND authenticator_status IS NOT DISTINCT FROM $10::text AND created_at = $11`,
      // Keyset pagination on the primary key: stable under concurrent inserts, no OFFSET scans.
      listByApplication: `SELECT ${COLUMNS} FROM ${table} WHERE client_id = $1 AND credential_id > $2
                          ORDER BY credential_id LIMIT $3`,
      delete: `DELETE FROM ${table} WHERE client_id = $1 AND credential_id = $2`,
      rename: `UPDATE ${table} SET nickname = $3 WHERE client_id = $1 AND credential_id = $2`,
      deleteByApplication: `DELETE FROM ${table} WHERE client_id = $1`,
      countByAlgorithms: `SELECT COUNT(DISTINCT user_handle)::int AS users, COUNT(*)::int AS credentials
                          FROM ${table} WHERE client_id = $1 AND algorithm = ANY($2::int[])`,
    };
  }

  async create(record: CredentialRecord, events: readonly OutboxMessage[] = []): Promise<'created' | 'duplicate'> {
    const result = await this.#withEvents('credential create', events, (db) =>
      db.query(this.#sql.insert, rowValues(record)),
    );
    // The statement returned only after COMMIT (autocommit): with synchronous_commit on, the row is durable.
    return result.rowCount === 1 ? 'created' : 'duplicate';
  }

  async createCounted(
    record: CredentialRecord,
    limit: number,
    events: readonly OutboxMessage[] = [],
  ): Promise<number | 'duplicate' | 'limit'> {
    return inTransaction(this.#pool, 'credential create', async (db) => {
      // The user's writers take turns (docs/decisions.md "A user's passkey limit"): under READ COMMITTED two
      // registrations in flight would each count without the other's row, and both pass the limit. The
      // statement after the lock sees every row committed before it was granted.
      await lockUser(db, record.clientId, record.userHandle);
      const result = await db.query<{ n: number; inserted: number; duplicate: boolean }>(this.#sql.insertCounted, [
        ...rowValues(record),
        limit,
      ]);
      const { n, inserted, duplicate } = result.rows[0]!;
      // Not inserted under the limit: the id is stored (perhaps committed after this statement's snapshot).
      if (inserted === 0) return duplicate || n < limit ? 'duplicate' : 'limit';
      await this.#outbox.insertWith(db, events);
      return n + 1;
    });
  }

  async find(clientId: string, credentialId: string): Promise<CredentialRecord | undefined> {
    const result = await guarded('credential find', () =>
      this.#pool.query<CredentialRow>(this.#sql.find, [clientId, credentialId]),
    );
    const row = result.rows[0];
    return row === undefined ? undefined : fromRow(row);
  }

  async listByUser(clientId: string, userHandle: string): Promise<CredentialRecord[]> {
    const result = await guarded('credential list', () =>
      this.#pool.query<CredentialRow>(this.#sql.listByUser, [clientId, userHandle]),
    );
    return result.rows.map(fromRow);
  }

  async recordUse(
    clientId: string,
    credentialId: string,
    use: CredentialUse,
    events: readonly OutboxMessage[] = [],
  ): Promise<boolean> {
    const result = await this.#withEvents('credential use', events, (db) =>
      db.query(this.#sql.recordUse, [
        clientId,
        credentialId,
        use.expectedSignCount,
        use.signCount,
        use.backupState,
        use.userVerified,
        use.cloneWarning,
        use.usedAt,
        use.backupEligible,
        use.expectedAuthenticatorStatus,
        use.expectedCreatedAt,
      ]),
    );
    return result.rowCount === 1;
  }

  importedUserHandle(clientId: string, username: string): Promise<string | undefined> {
    return this.#imports.handleOf(clientId, username);
  }

  importLookup: CredentialStore['importLookup'] = (clientId, query) => this.#imports.lookup(clientId, query);

  importBatch: CredentialStore['importBatch'] = (clientId, handles, records, events = [], maxPasskeysPerUser) =>
    this.#imports.write(clientId, handles, records, events, maxPasskeysPerUser);

  async listByApplication(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    const limit = Math.max(0, Math.min(MAX_PAGE, Math.floor(page.limit)));
    if (limit === 0) return [];
    const result = await guarded('credential admin list', () =>
      this.#pool.query<CredentialRow>(this.#sql.listByApplication, [clientId, page.after ?? BEFORE_EVERY_ID, limit]),
    );
    return result.rows.map(fromRow);
  }

  async delete(clientId: string, credentialId: string, events: readonly OutboxMessage[] = []): Promise<boolean> {
    const result = await this.#withEvents('credential delete', events, (db) =>
      db.query(this.#sql.delete, [clientId, credentialId]),
    );
    return result.rowCount === 1;
  }

  async rename(
    clientId: string,
    credentialId: string,
    nickname: string | null,
    events: readonly OutboxMessage[] = [],
  ): Promise<boolean> {
    const result = await this.#withEvents('credential rename', events, (db) =>
      db.query(this.#sql.rename, [clientId, credentialId, nickname]),
    );
    return result.rowCount === 1;
  }

  deleteUser(
    clientId: string,
    userHandle: string,
    events: (deleted: readonly CredentialRecord[]) => readonly OutboxMessage[],
  ): Promise<CredentialRecord[]> {
    return inTransaction(this.#pool, 'credential delete user', async (db) => {
      const result = await db.query<CredentialRow>(
        `DELETE FROM ${this.#table} WHERE client_id = $1 AND user_handle = $2 RETURNING ${COLUMNS}`,
        [clientId, userHandle],
      );
      const deleted = result.rows.map(fromRow).sort((a, b) => a.createdAt - b.createdAt);
      await this.#imports.forgetUser(db, clientId, userHandle);
      if (deleted.length > 0) await this.#outbox.insertWith(db, events(deleted));
      return deleted;
    });
  }

  markAuthenticatorStatus(
    request: MarkRequest,
    events: (marked: readonly CredentialRecord[]) => readonly OutboxMessage[],
  ): Promise<CredentialRecord[]> {
    return inTransaction(this.#pool, 'credential mark', async (db) => {
      const result = await db.query<CredentialRow>(
        `UPDATE ${this.#table} SET authenticator_status = $3, authenticator_status_at = $4
         WHERE client_id = $1 AND aaguid = $2 AND authenticator_status IS DISTINCT FROM $3 RETURNING ${COLUMNS}`,
        [request.clientId, request.aaguid, request.status, request.at],
      );
      const marked = result.rows.map(fromRow).sort((a, b) => (a.credentialId < b.credentialId ? -1 : 1));
      if (marked.length > 0) await this.#outbox.insertWith(db, events(marked));
      return marked;
    });
  }

  async listMarked(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    const limit = Math.max(0, Math.min(MAX_PAGE, Math.floor(page.limit)));
    if (limit === 0) return [];
    const result = await guarded('credential marked list', () =>
      this.#pool.query<CredentialRow>(
        `SELECT ${COLUMNS} FROM ${this.#table} WHERE client_id = $1 AND authenticator_status IS NOT NULL
         AND credential_id > $2 ORDER BY credential_id LIMIT $3`,
        [clientId, page.after ?? BEFORE_EVERY_ID, limit],
      ),
    );
    return result.rows.map(fromRow);
  }

  /** One statement alone, or with its webhook messages in one transaction (inserted only if it changed a row). */
  #withEvents(
    what: string,
    events: readonly OutboxMessage[],
    change: (db: Queryable) => Promise<pg.QueryResult>,
  ): Promise<pg.QueryResult> {
    if (events.length === 0) return guarded(what, () => change(this.#pool));
    return inTransaction(this.#pool, what, async (db) => {
      const result = await change(db);
      if ((result.rowCount ?? 0) > 0) await this.#outbox.insertWith(db, events);
      return result;
    });
  }

  async countByAlgorithms(clientId: string, algorithms: readonly number[]): Promise<AlgorithmUsage> {
    const result = await guarded('credential count by algorithm', () =>
      this.#pool.query<AlgorithmUsage>(this.#sql.countByAlgorithms, [clientId, [...algorithms]]),
    );
    return result.rows[0]!;
  }

  async deleteByApplication(clientId: string): Promise<number> {
    const result = await inTransaction(this.#pool, 'credential delete by application', async (db) => {
      await this.#imports.forgetApplication(db, clientId);
      return db.query(this.#sql.deleteByApplication, [clientId]);
    });
    return result.rowCount ?? 0;
  }

  async ping(): Promise<void> {
    await guarded('ping', () => this.#pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
