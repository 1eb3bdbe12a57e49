// Issue 23: the relay secrets the admin API and CLI create (only their SHA-256), and when each of an
// application's secrets, the config file's too, was last used (kept by hash, written in batches).
import type { SqliteMigration } from './migration.js';

export const migration: SqliteMigration = {
  version: 8,
  name: 'relay secrets',
  statements: [
    `CREATE TABLE relay_secrets (
       id         TEXT PRIMARY KEY,
       client_id  TEXT NOT NULL,
       hash       TEXT NOT NULL,
       created_at INTEGER NOT NULL
     ) STRICT`,
    'CREATE INDEX relay_secrets_by_application ON relay_secrets (client_id, created_at)',
    `CREATE TABLE relay_secret_uses (
       client_id    TEXT NOT NULL,
       hash         TEXT NOT NULL,
       last_used_at INTEGER NOT NULL,
       PRIMARY KEY (client_id, hash)
     ) STRICT`,
  ],
};
