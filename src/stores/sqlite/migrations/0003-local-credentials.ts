// The local variant's remembered credential ids (ChallengeStore.rememberLocalCredential): no key, only
// which credential ids a user of an application registered, so that assertion options can list them.
// `seq` orders entries by when they were remembered (a replaced entry gets a new one): the oldest go first
// when a bound is reached.
import type { SqliteMigration } from './migration.js';

export const migration: SqliteMigration = {
  version: 3,
  name: 'local variant: remembered credential ids',
  statements: [
    `CREATE TABLE local_credentials (
       seq           INTEGER PRIMARY KEY AUTOINCREMENT,
       client_id     TEXT NOT NULL,
       user_handle   TEXT NOT NULL,
       credential_id TEXT NOT NULL,
       transports    TEXT NOT NULL,
       expires_at    INTEGER NOT NULL,
       UNIQUE (client_id, credential_id)
     ) STRICT`,
    `CREATE INDEX local_credentials_by_user ON local_credentials (client_id, user_handle, seq)`,
    `CREATE INDEX local_credentials_expiry ON local_credentials (expires_at)`,
  ],
};
