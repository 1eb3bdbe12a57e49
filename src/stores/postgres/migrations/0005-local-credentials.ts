// The local variant's remembered credential ids (ChallengeStore.rememberLocalCredential): no key, only
// which credential ids a user of an application registered, so that assertion options can list them.
// `seq` orders entries by when they were remembered (a replaced entry is deleted and inserted again): the
// oldest go first when a bound is reached.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 5,
  name: 'local variant: remembered credential ids',
  statements: (schema) => [
    `CREATE TABLE ${schema}.local_credentials (
       seq           bigserial PRIMARY KEY,
       client_id     text   COLLATE "C" NOT NULL,
       user_handle   text   NOT NULL,
       credential_id text   COLLATE "C" NOT NULL,
       transports    text[] NOT NULL,
       expires_at    bigint NOT NULL,
       UNIQUE (client_id, credential_id)
     )`,
    `CREATE INDEX local_credentials_by_user ON ${schema}.local_credentials (client_id, user_handle, seq)`,
    `CREATE INDEX local_credentials_expiry ON ${schema}.local_credentials (expires_at)`,
  ],
};
