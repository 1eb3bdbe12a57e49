// SQLite stores on better-sqlite3: the default credential store here, and the ceremonies of
// `challenges: "database"` when the database is SQLite (sqlite-challenges.ts, re-exported here).
// Durability: WAL journal with synchronous=FULL, so a statement returns only after its commit reached the
// disk ("ok" means stored, also after a power cut). Several processes may open one file: every change is
// one statement or one IMMEDIATE transaction, and the busy timeout makes a writer wait for another.
// better-sqlite3 is synchronous: each call runs to completion before any other JavaScript, so within one
// process nothing interleaves; across processes SQLite's locks make each statement atomic.
// The service sends a credential's `create` and `recordUse` to the SQLite writer (sqlite/writer.ts: a
// thread, or inline on one core), which commits the writes that arrive together in one transaction (one
// fsync for many ceremonies); without a writer (CLI, tests) they are autocommit statements on this connection.

import type Database from 'better-sqlite3';
import type {
  AlgorithmUsage,
  CredentialRecord,
  CredentialStore,
  CredentialUse,
  MarkRequest,
  OutboxMessage,
} from '../types.js';
import { BEFORE_EVERY_ID, byCreation } from '../credential-order.js';
import { CREDENTIAL_COLUMNS, runWrite, SQLITE_WRITES } from './writes.js';
import { bit, fromRow, toRow, type CredentialValues } from './rows.js';
import { enqueueFollowUps, SqliteOutbox, SqliteWebhookStore } from './webhooks.js';
import { guarded, openSqliteDatabase, type SqliteOptions } from './open.js';
import type { SqliteWriter } from './writer.js';
import { SqliteImports } from './imports.js';

type Db = Database.Database;

export {
  openSqliteChallengeStore,
  SqliteChallengeStore,
  type SqliteChallengeOptions,
} from './challenges.js';

// ---------------------------------------------------------------------------------------------------
// Credentials

/** Admin listing pages are bounded whatever the caller asks (the same bound on every backend). */
const MAX_ADMIN_PAGE = 1000;

export interface SqliteCredentialStoreOptions {
  /**
   * Where `create` and `recordUse` commit: the SQLite writer (group commit, what the service uses), or,
   * without one, this connection (one autocommit statement each). Not closed by the store: its owner closes it.
   */
  readonly writer?: SqliteWriter;
}

export class SqliteCredentialStore implements CredentialStore {
  readonly #db: Db;
  readonly #writer: SqliteWriter | undefined;
  // Prepared once per connection, reused by every call.
  readonly #insert: Database.Statement;
  readonly #insertCounted: Database.Statement;
  readonly #find: Database.Statement;
  readonly #listByUser: Database.Statement;
  readonly #recordUse: Database.Statement;
  readonly #listByApplication: Database.Statement;
  readonly #delete: Database.Statement;
  readonly #rename: Database.Statement;
  readonly #deleteByApplication: Database.Statement;
  readonly #ping: Database.Statement;
  readonly #outbox: SqliteOutbox;
  readonly #imports: SqliteImports;
  readonly outbox: SqliteOutbox;
  readonly webhooks: SqliteWebhookStore;

  constructor(db: Db, options: SqliteCredentialStoreOptions = {}) {
    this.#db = db;
    this.#writer = options.writer;
    this.#outbox = new SqliteOutbox(db);
    this.outbox = this.#outbox;
    this.webhooks = new SqliteWebhookStore(db);
    this.#imports = new SqliteImports(db, this.#outbox);
    this.#insert = db.prepare(SQLITE_WRITES['credential.insert']);
    this.#insertCounted = db.prepare(SQLITE_WRITES['credential.insert-counted']);
    this.#find = db
      .prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE client_id = ? AND credential_id = ?`)
      .raw();
    this.#listByUser = db
      .prepare(
        // No ORDER BY: with it SQLite 3.54 (better-sqlite3 13) re-prepares the statement on every run, which
        // costs 4 times the read; the order (byCreation) is applied below.
        `SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE client_id = ? AND user_handle = ?`,
      )
      .raw();
    this.#recordUse = db.prepare(SQLITE_WRITES['credential.use']);
    this.#listByApplication = db
      .prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials
      WHERE client_id = @clientId AND credential_id > @after ORDER BY credential_id LIMIT @limit`)
      .raw();
    this.#delete = db.prepare('DELETE FROM credentials WHERE client_id = ? AND credential_id = ?');
    this.#rename = db.prepare('UPDATE credentials SET nickname = ? WHERE client_id = ? AND credential_id = ?');
    this.#deleteByApplication = db.prepare('DELETE FROM credentials WHERE client_id = ?');
    this.#ping = db.prepare('SELECT 1');
  }

  async create(record: CredentialRecord, events: readonly OutboxMessage[] = []): Promise<'created' | 'duplicate'> {
    // Either way the promise resolves after COMMIT, which synchronous=FULL made durable; the webhook
    // messages commit in the same transaction, only with a row inserted.
    const row = toRow(record);
    const changes = this.#writer
      ? await this.#writer.run('credential.insert', { ...row }, enqueueFollowUps(events))
      : this.#withEvents('credential create', () => this.#insert.run(row).changes, events);
    return changes === 1 ? 'created' : 'duplicate';
  }

  async createCounted(
    record: CredentialRecord,
    limit: number,
    events: readonly OutboxMessage[] = [],
  ): Promise<number | 'duplicate' | 'limit'> {
    // One statement checks the limit and counts the user's credentials with the insert, so no read of them
    // follows (writes.ts); only a refusal reads, to say which it was (a stored id is a duplicate first).
    const params = { ...toRow(record), limit };
    const count = this.#writer
      ? await this.#writer.run('credential.insert-counted', params, enqueueFollowUps(events))
      : this.#withEvents('credential create', () => runWrite(this.#insertCounted, params), events);
    if (count > 0) return count;
    return (await this.find(record.clientId, record.credentialId)) === undefined ? 'limit' : 'duplicate';
  }

  async find(clientId: string, credentialId: string): Promise<CredentialRecord | undefined> {
    const row = guarded('credential find', () => this.#find.get(clientId, credentialId)) as
      | CredentialValues
      | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  async listByUser(clientId: string, userHandle: string): Promise<CredentialRecord[]> {
    const rows = guarded('credential list', () => this.#listByUser.all(clientId, userHandle)) as CredentialValues[];
    return rows.map(fromRow).sort(byCreation);
  }

  async recordUse(
    clientId: string,
    credentialId: string,
    use: CredentialUse,
    events: readonly OutboxMessage[] = [],
  ): Promise<boolean> {
    const params = {
      clientId,
      credentialId,
      expectedSignCount: use.expectedSignCount,
      expectedAuthenticatorStatus: use.expectedAuthenticatorStatus,
      expectedCreatedAt: use.expectedCreatedAt,
      signCount: use.signCount,
      backupEligible: bit(use.backupEligible),
      backupState: bit(use.backupState),
      userVerified: bit(use.userVerified),
      cloneWarning: bit(use.cloneWarning),
      usedAt: use.usedAt,
    };
    const changes = this.#writer
      ? await this.#writer.run('credential.use', params, enqueueFollowUps(events))
      : this.#withEvents('credential use', () => this.#recordUse.run(params).changes, events);
    return changes === 1;
  }

  // Imports (issue 34): sqlite/imports.ts.
  importedUserHandle: CredentialStore['importedUserHandle'] = async (clientId, username) =>
    this.#imports.handleOf(clientId, username);
  importLookup: CredentialStore['importLookup'] = async (clientId, query) => this.#imports.lookup(clientId, query);
  importBatch: CredentialStore['importBatch'] = async (clientId, handles, records, events = [], maxPasskeysPerUser) =>
    this.#imports.write(clientId, handles, records, events, maxPasskeysPerUser);

  async listByApplication(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    const limit = Math.max(0, Math.min(MAX_ADMIN_PAGE, Math.floor(page.limit)));
    if (limit === 0) return [];
    const rows = guarded('credential admin list', () =>
      this.#listByApplication.all({ clientId, after: page.after ?? BEFORE_EVERY_ID, limit }),
    ) as CredentialValues[];
    return rows.map(fromRow);
  }

  async delete(clientId: string, credentialId: string, events: readonly OutboxMessage[] = []): Promise<boolean> {
    return this.#withEvents('credential delete', () => this.#delete.run(clientId, credentialId).changes, events) === 1;
  }

  async rename(
    clientId: string,
    credentialId: string,
    nickname: string | null,
    events: readonly OutboxMessage[] = [],
  ): Promise<boolean> {
    const rename = () => this.#rename.run(nickname, clientId, credentialId).changes;
    return this.#withEvents('credential rename', rename, events) === 1;
  }

  async deleteUser(
    clientId: string,
    userHandle: string,
    events: (deleted: readonly CredentialRecord[]) => readonly OutboxMessage[],
  ): Promise<CredentialRecord[]> {
    return guarded('credential delete user', () =>
      this.#db
        .transaction(() => {
          const deleted = (this.#listByUser.all(clientId, userHandle) as CredentialValues[]).map(fromRow);
          for (const record of deleted) this.#delete.run(clientId, record.credentialId);
          this.#imports.forgetUser(clientId, userHandle);
          if (deleted.length > 0) this.#outbox.insertNow(events(deleted));
          return deleted;
        })
        .immediate(),
    );
  }

  async markAuthenticatorStatus(
    request: MarkRequest,
    events: (marked: readonly CredentialRecord[]) => readonly OutboxMessage[],
  ): Promise<CredentialRecord[]> {
    const { clientId, aaguid, status, at } = request;
    return guarded('credential mark', () =>
      this.#db
        .transaction(() => {
          const rows = this.#db
            .prepare(`UPDATE credentials SET authenticator_status = ?, authenticator_status_at = ?
              WHERE client_id = ? AND aaguid = ? AND authenticator_status IS NOT ?
              RETURNING ${CREDENTIAL_COLUMNS}`)
            .raw()
            .all(status, at, clientId, aaguid, status) as CredentialValues[];
          const marked = rows.map(fromRow).sort((a, b) => (a.credentialId < b.credentialId ? -1 : 1));
          if (marked.length > 0) this.#outbox.insertNow(events(marked));
          return marked;
        })
        .immediate(),
    );
  }

  async listMarked(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    const limit = Math.max(0, Math.min(MAX_ADMIN_PAGE, Math.floor(page.limit)));
    if (limit === 0) return [];
    const rows = guarded('credential marked list', () =>
      this.#db
        .prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE client_id = ? AND authenticator_status IS NOT NULL
          AND credential_id > ? ORDER BY credential_id LIMIT ?`)
        .raw()
        .all(clientId, page.after ?? BEFORE_EVERY_ID, limit),
    ) as CredentialValues[];
    return rows.map(fromRow);
  }

  /** One change on this connection and, when it changed a row, its webhook messages: one transaction. */
  #withEvents(what: string, change: () => number, events: readonly OutboxMessage[]): number {
    if (events.length === 0) return guarded(what, change);
    return guarded(what, () =>
      this.#db
        .transaction(() => {
          const changes = change();
          if (changes > 0) this.#outbox.insertNow(events);
          return changes;
        })
        .immediate(),
    );
  }

  async countByAlgorithms(clientId: string, algorithms: readonly number[]): Promise<AlgorithmUsage> {
    const sql = `SELECT COUNT(DISTINCT user_handle) AS users, COUNT(*) AS credentials FROM credentials WHERE client_id = ? AND algorithm IN (SELECT value FROM json_each(?))`;
    return guarded('pq count', () => this.#db.prepare(sql).get(clientId, JSON.stringify(algorithms))) as AlgorithmUsage;
  }

  async deleteByApplication(clientId: string): Promise<number> {
    return guarded('credential delete by application', () =>
      this.#db
        .transaction(() => {
          this.#imports.forgetApplication(clientId);
          return this.#deleteByApplication.run(clientId).changes;
        })
        .immediate(),
    );
  }

  async ping(): Promise<void> {
    guarded('ping', () => this.#ping.get());
    await this.#writer?.ping();
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

export async function openSqliteCredentialStore(
  path: string,
  options: SqliteOptions & SqliteCredentialStoreOptions = {},
): Promise<SqliteCredentialStore> {
  return new SqliteCredentialStore(openSqliteDatabase(path, options), options);
}
