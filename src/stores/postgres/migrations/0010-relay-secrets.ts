// Issue 23: the relay secrets the admin API and CLI create (only their SHA-256), and when each of an
// application's secrets, the config file's too, was last used (kept by hash, written in batches).
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 10,
  name: 'relay secrets',
  statements: (schema) => [
    `CREATE TABLE ${schema}.relay_secrets (
       id         text COLLATE "C" PRIMARY KEY,
       client_id  text NOT NULL,
       hash       text NOT NULL,
       created_at bigint NOT NULL
     )`,
    `CREATE INDEX relay_secrets_by_application ON ${schema}.relay_secrets (client_id, created_at)`,
    `CREATE TABLE ${schema}.relay_secret_uses (
       client_id    text NOT NULL,
       hash         text NOT NULL,
       last_used_at bigint NOT NULL,
       PRIMARY KEY (client_id, hash)
     )`,
  ],
};
