// Issue 34: the user handle an import brought for a user (the authenticators hold it), kept instead of the
// derived one. Unique both ways per application: one handle per user name, one user name per handle.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 11,
  name: 'imported user handles',
  statements: (schema) => [
    `CREATE TABLE ${schema}.user_handles (
       client_id   text NOT NULL,
       username    text NOT NULL,
       user_handle text NOT NULL,
       PRIMARY KEY (client_id, username)
     )`,
    `CREATE UNIQUE INDEX user_handles_by_handle ON ${schema}.user_handles (client_id, user_handle)`,
  ],
};
