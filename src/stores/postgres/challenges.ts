// ChallengeStore on PostgreSQL (`challenges: "database"` with a postgres:// database). The take is ONE
// statement: it deletes the ceremony and writes its used-marker together (DELETE … RETURNING in a CTE),
// so of two instances taking one challenge at once, the row lock lets exactly one see the row; the other's
// DELETE finds nothing once the first commits, and its follow-up read sees the committed marker.

import type pg from 'pg';
import type {
  CeremonyRecord,
  ChallengeStore,
  LocalCredentialLimits,
  LocalCredentialRecord,
  TakeResult,
} from '../types.js';
import { PostgresRememberedIds } from './remembered-ids.js';
import { guarded, toNumber } from './connection.js';

export interface SweepOptions {
  /** Clock for sweeping expired rows (the composition root passes `runtime.now`). Default Date.now. */
  readonly clock?: () => number;
  /** At most one sweep per this many ms, started by a `put`. Default 60 000. */
  readonly sweepIntervalMs?: number;
  /** Bounds of the local variant's remembered credential ids (default LOCAL_CREDENTIAL_LIMITS). */
  readonly localLimits?: Partial<LocalCredentialLimits>;
}

export class PostgresChallengeStore implements ChallengeStore {
  readonly #pool: pg.Pool;
  #closed = false;
  readonly #clock: () => number;
  readonly #sweepIntervalMs: number;
  #lastSweep = Number.NEGATIVE_INFINITY;
  #sweeping: Promise<void> | undefined;
  readonly #sql: {
    readonly put: string;
    readonly take: string;
    readonly used: string;
    readonly sweep: readonly string[];
  };

  readonly #local: PostgresRememberedIds;

  constructor(pool: pg.Pool, schema: string, options: SweepOptions = {}) {
    this.#pool = pool;
    this.#local = new PostgresRememberedIds(pool, schema, options.localLimits);
    this.#clock = options.clock ?? Date.now;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    const pending = `${schema}.challenges`;
    const used = `${schema}.used_challenges`;
    this.#sql = {
      put: `INSERT INTO ${pending} (client_id, challenge, record, expires_at) VALUES ($1, $2, $3, $4)`,
      take: `WITH taken AS (
               DELETE FROM ${pending} WHERE client_id = $1 AND challenge = $2 RETURNING record, expires_at
             ), marked AS (
               INSERT INTO ${used} (client_id, challenge, expires_at) SELECT $1, $2, expires_at FROM taken
               ON CONFLICT (client_id, challenge) DO UPDATE SET expires_at = EXCLUDED.expires_at
             )
             SELECT record, expires_at FROM taken`,
      used: `SELECT expires_at FROM ${used} WHERE client_id = $1 AND challenge = $2`,
      sweep: [`DELETE FROM ${pending} WHERE expires_at < $1`, `DELETE FROM ${used} WHERE expires_at < $1`],
    };
  }

  async put(record: CeremonyRecord): Promise<void> {
    await guarded('challenge put', () =>
      this.#pool.query(this.#sql.put, [record.clientId, record.challenge, JSON.stringify(record), record.expiresAt]),
    );
    this.#maybeSweep();
  }

  async take(clientId: string, challenge: string, now: number): Promise<TakeResult> {
    const taken = await guarded('challenge take', () =>
      this.#pool.query<{ record: string; expires_at: string }>(this.#sql.take, [clientId, challenge]),
    );
    const row = taken.rows[0];
    if (row !== undefined) {
      return toNumber(row.expires_at) < now
        ? { state: 'missing' }
        : { state: 'taken', record: JSON.parse(row.record) as CeremonyRecord };
    }
    const marker = await guarded('challenge take', () =>
      this.#pool.query<{ expires_at: string }>(this.#sql.used, [clientId, challenge]),
    );
    const usedUntil = marker.rows[0]?.expires_at;
    return usedUntil !== undefined && toNumber(usedUntil) >= now ? { state: 'used' } : { state: 'missing' };
  }

  /** Deletes ceremonies and markers that expired before `now`. */
  async sweep(now: number): Promise<void> {
    for (const statement of this.#sql.sweep) await guarded('challenge sweep', () => this.#pool.query(statement, [now]));
  }

  rememberLocalCredential(record: LocalCredentialRecord, now: number): Promise<void> {
    return this.#local.remember(record, now);
  }

  listLocalCredentials(clientId: string, userHandle: string, now: number): Promise<LocalCredentialRecord[]> {
    return this.#local.list(clientId, userHandle, now);
  }

  async ping(): Promise<void> {
    await guarded('ping', () => this.#pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#sweeping;
    await this.#pool.end();
  }

  /** Sweeping is housekeeping: it never delays or fails a request, and at most one runs at a time. */
  #maybeSweep(): void {
    const now = this.#clock();
    if (this.#sweeping !== undefined || now - this.#lastSweep < this.#sweepIntervalMs) return;
    this.#lastSweep = now;
    this.#sweeping = this.sweep(now)
      .catch(() => undefined)
      .finally(() => {
        this.#sweeping = undefined;
      });
  }
}
