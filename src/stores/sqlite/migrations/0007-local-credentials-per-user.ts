// Issue 23: a remembered credential id belongs to the user who registered it. Another user's registration of
// the same id is an entry of its own (unique per application, user and id) instead of taking the first
// user's over; and the bound is per application, so an index orders each application's entries. SQLite
// cannot drop a table's UNIQUE constraint: the table is rebuilt, keeping every row and its seq.
import type { SqliteMigration } from './migration.js';

export const migration: SqliteMigration = {
  version: 7,
  name: 'local variant: remembered ids per user, bound per application',
  statements: [
    `CREATE TABLE local_credentials_v2 (
       seq           INTEGER PRIMARY KEY AUTOINCREMENT,
       client_id     TEXT NOT NULL,
       user_handle   TEXT NOT NULL,
       credential_id TEXT NOT NULL,
       transports    TEXT NOT NULL,
       expires_at    INTEGER NOT NULL,
       UNIQUE (client_id, user_handle, credential_id)
     ) STRICT`,
    `INSERT INTO local_credentials_v2 (seq, client_id, user_handle, credential_id, transports, expires_at)
       SELECT seq, client_id, user_handle, credential_id, transports, expires_at FROM local_credentials`,
    'DROP TABLE local_credentials',
    'ALTER TABLE local_credentials_v2 RENAME TO local_credentials',
    'CREATE INDEX local_credentials_by_user ON local_credentials (client_id, user_handle, seq)',
    'CREATE INDEX local_credentials_by_client ON local_credentials (client_id, seq)',
    'CREATE INDEX local_credentials_expiry ON local_credentials (expires_at)',
  ],
};
