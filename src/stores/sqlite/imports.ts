// What an import (issue 34) reads and writes on SQLite: the kept user handles (migration 9) and a batch
// of credentials, one IMMEDIATE transaction per batch on the store's own connection (never through the
// group-commit writer: a batch is already one commit for many rows).
import type Database from 'better-sqlite3';
import type {
  CredentialRecord,
  ImportBatchResult,
  ImportedUserHandle,
  ImportLookup,
  ImportOwner,
  OutboxMessage,
} from '../types.js';
import { CREDENTIAL_COLUMNS, SQLITE_WRITES } from './writes.js';
import { type LimitedBatch, withinLimit } from '../import-limit.js';
import { fromRow, toRow, type CredentialValues } from './rows.js';
import { guarded } from './open.js';
import type { SqliteOutbox } from './webhooks.js';

/** One bound list: the values of a JSON array. */
const EACH = '(SELECT value FROM json_each(?))';

export class SqliteImports {
  readonly #db: Database.Database;
  readonly #outbox: SqliteOutbox;
  readonly #handleOf: Database.Statement;
  readonly #find: Database.Statement;
  readonly #handlesOfNames: Database.Statement;
  readonly #namesOfHandles: Database.Statement;
  readonly #owners: Database.Statement;
  readonly #keep: Database.Statement;
  readonly #insert: Database.Statement;
  readonly #counts: Database.Statement;
  readonly #storedIds: Database.Statement;

  constructor(db: Database.Database, outbox: SqliteOutbox) {
    this.#db = db;
    this.#outbox = outbox;
    this.#handleOf = db.prepare('SELECT user_handle FROM user_handles WHERE client_id = ? AND username = ?').pluck();
    // A batch is read with one statement a question, each list bound as one JSON array: an IN over json_each
    // seeks the index once a value, in the index's order, with no statement per record.
    this.#find = db
      .prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE client_id = ? AND credential_id IN ${EACH}`)
      .raw();
    // Two statements, not one UNION: for the UNION SQLite scanned the application's every kept handle.
    const kept = 'SELECT username, user_handle AS userHandle FROM user_handles WHERE client_id = ? AND';
    this.#handlesOfNames = db.prepare(`${kept} username IN ${EACH}`);
    this.#namesOfHandles = db.prepare(`${kept} user_handle IN ${EACH}`);
    this.#owners = db.prepare(
      `SELECT user_handle AS userHandle, username, count(*) AS passkeys FROM credentials
       WHERE client_id = ? AND user_handle IN ${EACH} GROUP BY user_handle, username`,
    );
    this.#keep = db.prepare(
      'INSERT INTO user_handles (client_id, username, user_handle) VALUES (?, ?, ?) ON CONFLICT (client_id, username) DO NOTHING',
    );
    this.#insert = db.prepare(SQLITE_WRITES['credential.insert']);
    this.#counts = db
      .prepare(
        `SELECT user_handle, count(*) FROM credentials WHERE client_id = ? AND user_handle IN ${EACH} GROUP BY user_handle`,
      )
      .raw();
    this.#storedIds = db
      .prepare(`SELECT credential_id FROM credentials WHERE client_id = ? AND credential_id IN ${EACH}`)
      .pluck();
  }

  /** Inside deleteUser's transaction: the user goes, with the handle an import kept for it. */
  forgetUser(clientId: string, userHandle: string): void {
    this.#db.prepare('DELETE FROM user_handles WHERE client_id = ? AND user_handle = ?').run(clientId, userHandle);
  }

  forgetApplication(clientId: string): void {
    this.#db.prepare('DELETE FROM user_handles WHERE client_id = ?').run(clientId);
  }

  handleOf(clientId: string, username: string): string | undefined {
    return guarded('user handle read', () => this.#handleOf.get(clientId, username)) as string | undefined;
  }

  lookup(
    clientId: string,
    query: { credentialIds: readonly string[]; usernames: readonly string[]; userHandles: readonly string[] },
  ): ImportLookup {
    return guarded('import lookup', () => {
      const userHandles = JSON.stringify(query.userHandles);
      const kept = [
        ...(this.#handlesOfNames.all(clientId, JSON.stringify(query.usernames)) as ImportedUserHandle[]),
        ...(this.#namesOfHandles.all(clientId, userHandles) as ImportedUserHandle[]),
      ];
      // A kept pair found both ways is listed once.
      const handles = new Map(kept.map(({ username, userHandle }) => [username, userHandle]));
      return {
        credentials: (this.#find.all(clientId, JSON.stringify(query.credentialIds)) as CredentialValues[]).map(fromRow),
        handles: [...handles].map(([username, userHandle]) => ({ username, userHandle })),
        owners: this.#owners.all(clientId, userHandles) as ImportOwner[],
      };
    });
  }

  write(
    clientId: string,
    handles: readonly ImportedUserHandle[],
    records: readonly CredentialRecord[],
    events: readonly OutboxMessage[],
    maxPasskeysPerUser?: number,
  ): ImportBatchResult {
    return guarded('import batch', () =>
      this.#db
        .transaction(() => {
          for (const { username, userHandle } of handles) {
            // A handle kept for another name fails on the unique index (the batch rolls back); a name kept
            // with another handle is checked here: its credentials must not go in under a handle it lacks.
            this.#keep.run(clientId, username, userHandle);
            if (this.#handleOf.get(clientId, username) !== userHandle)
              throw new Error(`user ${JSON.stringify(username)} keeps another user handle`);
          }
          // Under the write lock, the counts include every registration committed since the batch was read.
          const { within, overLimit } =
            maxPasskeysPerUser === undefined
              ? { within: records, overLimit: [] }
              : this.#withinLimit(clientId, records, maxPasskeysPerUser);
          let written = 0;
          for (const record of within) written += this.#insert.run(toRow({ ...record, clientId })).changes;
          if (written > 0) this.#outbox.insertNow(events);
          return { written, overLimit };
        })
        .immediate(),
    );
  }

  /** The batch split at the limit (import-limit.ts), from two reads of the batch's users and ids. */
  #withinLimit(clientId: string, records: readonly CredentialRecord[], max: number): LimitedBatch {
    const userHandles = JSON.stringify([...new Set(records.map((r) => r.userHandle))]);
    const counts = this.#counts.all(clientId, userHandles) as [string, number][];
    const stored = this.#storedIds.all(clientId, JSON.stringify(records.map((r) => r.credentialId))) as string[];
    return withinLimit(records, max, new Map(counts), new Set(stored));
  }
}
