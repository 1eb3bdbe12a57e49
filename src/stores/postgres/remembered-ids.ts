// The local variant's remembered credential ids on PostgreSQL (table local_credentials, migrations 5 and 9),
// for the PostgreSQL challenge store. A remember is one transaction under a lock of the table against other
// writers, so that two instances remembering at once cannot both miss a bound: forget what expired, insert
// (replacing the same user's entry of that credential id; another user's stays: docs/decisions.md "Local
// variant"), then trim the user's list and the application's entries, oldest first.
// Only registrations of the local variant (development) take that lock; the listing reads without it.

import type pg from 'pg';
import { guarded, toNumber } from './connection.js';
import { LOCAL_CREDENTIAL_LIMITS, type LocalCredentialLimits, type LocalCredentialRecord } from '../types.js';

export class PostgresRememberedIds {
  readonly #pool: pg.Pool;
  readonly #perUser: number;
  readonly #total: number;
  readonly #sql: {
    readonly lock: string;
    readonly expired: string;
    readonly insert: string;
    readonly trimUser: string;
    readonly trimTotal: string;
    readonly list: string;
  };

  constructor(pool: pg.Pool, schema: string, limits: Partial<LocalCredentialLimits> = {}) {
    this.#pool = pool;
    this.#perUser = limits.perUser ?? LOCAL_CREDENTIAL_LIMITS.perUser;
    this.#total = limits.total ?? LOCAL_CREDENTIAL_LIMITS.total;
    const table = `${schema}.local_credentials`;
    this.#sql = {
      lock: `LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`,
      // A replaced entry is deleted and inserted again, so that it takes a new (the newest) seq.
      expired: `DELETE FROM ${table} WHERE expires_at < $1
                  OR (client_id = $2 AND user_handle = $3 AND credential_id = $4)`,
      insert: `INSERT INTO ${table} (client_id, user_handle, credential_id, transports, expires_at) VALUES ($1, $2, $3, $4, $5)`,
      trimUser: `DELETE FROM ${table} WHERE client_id = $1 AND user_handle = $2 AND seq NOT IN
                   (SELECT seq FROM ${table} WHERE client_id = $1 AND user_handle = $2 ORDER BY seq DESC LIMIT $3)`,
      trimTotal: `DELETE FROM ${table} WHERE seq IN
                    (SELECT seq FROM ${table} WHERE client_id = $1 ORDER BY seq
                     LIMIT GREATEST(0, (SELECT count(*) FROM ${table} WHERE client_id = $1) - $2))`,
      list: `SELECT credential_id, transports, expires_at FROM ${table}
             WHERE client_id = $1 AND user_handle = $2 AND expires_at >= $3 ORDER BY seq`,
    };
  }

  async remember(record: LocalCredentialRecord, now: number): Promise<void> {
    const sql = this.#sql;
    await guarded('local credential remember', async () => {
      const client = await this.#pool.connect();
      try {
        await client.query('BEGIN');
        try {
          await client.query(sql.lock);
          await client.query(sql.expired, [now, record.clientId, record.userHandle, record.credentialId]);
          await client.query(sql.insert, [
            record.clientId,
            record.userHandle,
            record.credentialId,
            [...record.transports],
            record.expiresAt,
          ]);
          await client.query(sql.trimUser, [record.clientId, record.userHandle, this.#perUser]);
          await client.query(sql.trimTotal, [record.clientId, this.#total]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      } finally {
        client.release();
      }
    });
  }

  async list(clientId: string, userHandle: string, now: number): Promise<LocalCredentialRecord[]> {
    const result = await guarded('local credential list', () =>
      this.#pool.query<{ credential_id: string; transports: string[]; expires_at: string }>(this.#sql.list, [
        clientId,
        userHandle,
        now,
      ]),
    );
    return result.rows.map((row) => ({
      clientId,
      userHandle,
      credentialId: row.credential_id,
      transports: row.transports,
      expiresAt: toNumber(row.expires_at),
    }));
  }
}
