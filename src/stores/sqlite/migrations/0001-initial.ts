// Credentials, pending ceremonies and used-challenge markers (for `challenges: "database"`).
import type { SqliteMigration } from './migration.js';

export const migration: SqliteMigration = {
  version: 1,
  name: 'credentials and challenges',
  statements: [
    // STRICT: SQLite refuses a value of the wrong type instead of storing it quietly.
    `CREATE TABLE credentials (
       client_id           TEXT    NOT NULL,
       credential_id       TEXT    NOT NULL,
       user_handle         TEXT    NOT NULL,
       username            TEXT    NOT NULL,
       public_key          BLOB    NOT NULL,
       algorithm           INTEGER NOT NULL,
       sign_count          INTEGER NOT NULL CHECK (sign_count >= 0),
       transports          TEXT    NOT NULL,
       aaguid              TEXT    NOT NULL,
       attestation_format  TEXT    NOT NULL,
       attestation_type    TEXT    NOT NULL,
       attestation_trusted INTEGER NOT NULL CHECK (attestation_trusted IN (0, 1)),
       backup_eligible     INTEGER NOT NULL CHECK (backup_eligible IN (0, 1)),
       backup_state        INTEGER NOT NULL CHECK (backup_state IN (0, 1)),
       user_verified       INTEGER NOT NULL CHECK (user_verified IN (0, 1)),
       resident_key        INTEGER CHECK (resident_key IN (0, 1)),
       clone_warning       INTEGER NOT NULL CHECK (clone_warning IN (0, 1)),
       created_at          INTEGER NOT NULL,
       last_used_at        INTEGER,
       nickname            TEXT,
       authenticator_name  TEXT
     ) STRICT`,
    `CREATE UNIQUE INDEX credentials_by_id ON credentials (client_id, credential_id)`,
    // listByUser's order (oldest first, ties by id) comes straight from this index.
    `CREATE INDEX credentials_by_user ON credentials (client_id, user_handle, created_at, credential_id)`,
    // A pending ceremony; the whole CeremonyRecord as JSON (it is only ever read back whole).
    `CREATE TABLE challenges (
       client_id  TEXT    NOT NULL,
       challenge  TEXT    NOT NULL,
       record     TEXT    NOT NULL,
       expires_at INTEGER NOT NULL,
       PRIMARY KEY (client_id, challenge)
     ) STRICT, WITHOUT ROWID`,
    `CREATE INDEX challenges_by_expiry ON challenges (expires_at)`,
    // Written in the transaction that deletes the ceremony, so a replay answers "used" until expiry.
    `CREATE TABLE used_challenges (
       client_id  TEXT    NOT NULL,
       challenge  TEXT    NOT NULL,
       expires_at INTEGER NOT NULL,
       PRIMARY KEY (client_id, challenge)
     ) STRICT, WITHOUT ROWID`,
    `CREATE INDEX used_challenges_by_expiry ON used_challenges (expires_at)`,
  ],
};
