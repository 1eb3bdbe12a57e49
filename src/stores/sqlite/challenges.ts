// The ceremonies of `challenges: "database"` when the database is SQLite: pending challenges, the markers of
// used ones, and the local variant's remembered credential ids (sqlite-local.ts). Taking a challenge is one
// IMMEDIATE transaction, so across processes exactly one taker gets it. Durability as in sqlite.ts.

import type Database from 'better-sqlite3';
import type {
  CeremonyRecord,
  ChallengeStore,
  LocalCredentialLimits,
  LocalCredentialRecord,
  TakeResult,
} from '../types.js';
import { guarded, openSqliteDatabase, type SqliteOptions } from './open.js';
import { SqliteRememberedIds } from './remembered-ids.js';

type Db = Database.Database;

export interface SqliteChallengeOptions extends SqliteOptions {
  /** Clock for sweeping expired rows at `put` (the composition root passes `runtime.now`). Default Date.now. */
  readonly clock?: () => number;
  /** Sweep after this many puts. Default 256. */
  readonly sweepEvery?: number;
  /** Bounds of the local variant's remembered credential ids (default LOCAL_CREDENTIAL_LIMITS). */
  readonly localLimits?: Partial<LocalCredentialLimits>;
}

export class SqliteChallengeStore implements ChallengeStore {
  readonly #db: Db;
  readonly #clock: () => number;
  readonly #sweepEvery: number;
  #putsSinceSweep = 0;
  readonly #insert: Database.Statement;
  readonly #takePending: Database.Statement;
  readonly #markUsed: Database.Statement;
  readonly #findUsed: Database.Statement;
  readonly #sweepPending: Database.Statement;
  readonly #sweepUsed: Database.Statement;
  readonly #ping: Database.Statement;
  readonly #take: (clientId: string, challenge: string, now: number) => TakeResult;
  readonly #local: SqliteRememberedIds;

  constructor(db: Db, options: SqliteChallengeOptions = {}) {
    this.#db = db;
    this.#local = new SqliteRememberedIds(db, options.localLimits);
    this.#clock = options.clock ?? Date.now;
    this.#sweepEvery = Math.max(1, options.sweepEvery ?? 256);
    this.#insert = db.prepare(
      'INSERT OR REPLACE INTO challenges (client_id, challenge, record, expires_at) VALUES (?, ?, ?, ?)',
    );
    this.#takePending = db.prepare(
      'DELETE FROM challenges WHERE client_id = ? AND challenge = ? RETURNING record, expires_at',
    );
    this.#markUsed = db.prepare(
      'INSERT OR REPLACE INTO used_challenges (client_id, challenge, expires_at) VALUES (?, ?, ?)',
    );
    this.#findUsed = db.prepare('SELECT expires_at FROM used_challenges WHERE client_id = ? AND challenge = ?');
    this.#sweepPending = db.prepare('DELETE FROM challenges WHERE expires_at < ?');
    this.#sweepUsed = db.prepare('DELETE FROM used_challenges WHERE expires_at < ?');
    this.#ping = db.prepare('SELECT 1');
    // The delete (one statement: exactly one taker gets the row) and the used-marker commit together;
    // IMMEDIATE so another process cannot slip between them.
    const take = db.transaction((clientId: string, challenge: string, now: number): TakeResult => {
      const row = this.#takePending.get(clientId, challenge) as { record: string; expires_at: number } | undefined;
      if (row !== undefined) {
        if (row.expires_at < now) return { state: 'missing' };
        this.#markUsed.run(clientId, challenge, row.expires_at);
        return { state: 'taken', record: JSON.parse(row.record) as CeremonyRecord };
      }
      const used = this.#findUsed.get(clientId, challenge) as { expires_at: number } | undefined;
      return used !== undefined && used.expires_at >= now ? { state: 'used' } : { state: 'missing' };
    });
    this.#take = (clientId, challenge, now) => take.immediate(clientId, challenge, now);
  }

  async put(record: CeremonyRecord): Promise<void> {
    guarded('challenge put', () =>
      this.#insert.run(record.clientId, record.challenge, JSON.stringify(record), record.expiresAt),
    );
    this.#putsSinceSweep += 1;
    if (this.#putsSinceSweep >= this.#sweepEvery) this.sweep(this.#clock());
  }

  async take(clientId: string, challenge: string, now: number): Promise<TakeResult> {
    return guarded('challenge take', () => this.#take(clientId, challenge, now));
  }

  /** Deletes ceremonies and used-markers that expired before `now`; returns how many rows went. */
  sweep(now: number): number {
    this.#putsSinceSweep = 0;
    return guarded('challenge sweep', () => this.#sweepPending.run(now).changes + this.#sweepUsed.run(now).changes);
  }

  async rememberLocalCredential(record: LocalCredentialRecord, now: number): Promise<void> {
    this.#local.remember(record, now);
  }

  async listLocalCredentials(clientId: string, userHandle: string, now: number): Promise<LocalCredentialRecord[]> {
    return this.#local.list(clientId, userHandle, now);
  }

  async ping(): Promise<void> {
    guarded('ping', () => this.#ping.get());
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

export async function openSqliteChallengeStore(
  path: string,
  options: SqliteChallengeOptions = {},
): Promise<SqliteChallengeStore> {
  return new SqliteChallengeStore(openSqliteDatabase(path, options), options);
}
