// Issue 23: a remembered credential id belongs to the user who registered it. Another user's registration of
// the same id is an entry of its own (unique per application, user and id) instead of taking the first
// user's over; and the bound is per application, so an index orders each application's entries.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 9,
  name: 'local variant: remembered ids per user, bound per application',
  statements: (schema) => [
    `ALTER TABLE ${schema}.local_credentials DROP CONSTRAINT local_credentials_client_id_credential_id_key`,
    `ALTER TABLE ${schema}.local_credentials ADD CONSTRAINT local_credentials_owner_key
       UNIQUE (client_id, user_handle, credential_id)`,
    `CREATE INDEX local_credentials_by_client ON ${schema}.local_credentials (client_id, seq)`,
  ],
};
