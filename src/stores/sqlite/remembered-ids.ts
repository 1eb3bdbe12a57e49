// The local variant's remembered credential ids on SQLite (table local_credentials, migrations 3 and 7), for
// the SQLite challenge store. A remember is one IMMEDIATE transaction: forget what expired, insert (replacing
// the same user's entry of that credential id; another user's stays: docs/decisions.md "Local variant"),
// then trim the user's list and the application's entries to their bounds, oldest first.

import type Database from 'better-sqlite3';
import { guarded } from './open.js';
import { LOCAL_CREDENTIAL_LIMITS, type LocalCredentialLimits, type LocalCredentialRecord } from '../types.js';

interface LocalRow {
  credential_id: string;
  transports: string;
  expires_at: number;
}

export class SqliteRememberedIds {
  readonly #remember: (record: LocalCredentialRecord, now: number) => void;
  readonly #list: Database.Statement;

  constructor(db: Database.Database, limits: Partial<LocalCredentialLimits> = {}) {
    const perUser = limits.perUser ?? LOCAL_CREDENTIAL_LIMITS.perUser;
    const total = limits.total ?? LOCAL_CREDENTIAL_LIMITS.total;
    const expired = db.prepare('DELETE FROM local_credentials WHERE expires_at < ?');
    const insert =
      db.prepare(`INSERT OR REPLACE INTO local_credentials (client_id, user_handle, credential_id, transports, expires_at)
      VALUES (?, ?, ?, ?, ?)`);
    const trimUser = db.prepare(`DELETE FROM local_credentials WHERE client_id = ? AND user_handle = ? AND seq NOT IN
      (SELECT seq FROM local_credentials WHERE client_id = ? AND user_handle = ? ORDER BY seq DESC LIMIT ?)`);
    const trimTotal = db.prepare(`DELETE FROM local_credentials WHERE seq IN
      (SELECT seq FROM local_credentials WHERE client_id = ? ORDER BY seq
       LIMIT max(0, (SELECT count(*) FROM local_credentials WHERE client_id = ?) - ?))`);
    const remember = db.transaction((record: LocalCredentialRecord, now: number) => {
      expired.run(now);
      insert.run(
        record.clientId,
        record.userHandle,
        record.credentialId,
        JSON.stringify(record.transports),
        record.expiresAt,
      );
      trimUser.run(record.clientId, record.userHandle, record.clientId, record.userHandle, perUser);
      trimTotal.run(record.clientId, record.clientId, total);
    });
    this.#remember = (record, now) => remember.immediate(record, now);
    this.#list = db.prepare(`SELECT credential_id, transports, expires_at FROM local_credentials
      WHERE client_id = ? AND user_handle = ? AND expires_at >= ? ORDER BY seq`);
  }

  remember(record: LocalCredentialRecord, now: number): void {
    guarded('local credential remember', () => this.#remember(record, now));
  }

  list(clientId: string, userHandle: string, now: number): LocalCredentialRecord[] {
    const rows = guarded('local credential list', () => this.#list.all(clientId, userHandle, now)) as LocalRow[];
    return rows.map((row) => ({
      clientId,
      userHandle,
      credentialId: row.credential_id,
      transports: JSON.parse(row.transports) as string[],
      expiresAt: row.expires_at,
    }));
  }
}
