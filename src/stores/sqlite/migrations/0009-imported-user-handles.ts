// Issue 34: the user handle an import brought for a user (the authenticators hold it), kept instead of the
// derived one. Unique both ways per application: one handle per user name, one user name per handle.
import type { SqliteMigration } from './migration.js';

export const migration: SqliteMigration = {
  version: 9,
  name: 'imported user handles',
  statements: [
    `CREATE TABLE user_handles (
       client_id   TEXT NOT NULL,
       username    TEXT NOT NULL,
       user_handle TEXT NOT NULL,
       PRIMARY KEY (client_id, username)
     ) STRICT, WITHOUT ROWID`,
    'CREATE UNIQUE INDEX user_handles_by_handle ON user_handles (client_id, user_handle)',
  ],
};
