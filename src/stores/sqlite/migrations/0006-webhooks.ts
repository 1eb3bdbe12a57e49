// Issue 27: the webhook outbox (an event is written in the transaction of the change it reports, then
// delivered off the request path: src/webhooks/dispatcher.ts), the webhooks the admin API adds, and the
// mark a credential gets when FIDO metadata reports its authenticator model compromised or revoked.
import type { SqliteMigration } from './migration.js';

export const migration: SqliteMigration = {
  version: 6,
  name: 'webhooks and authenticator status',
  statements: [
    'ALTER TABLE credentials ADD COLUMN authenticator_status TEXT',
    'ALTER TABLE credentials ADD COLUMN authenticator_status_at INTEGER',
    'CREATE INDEX credentials_by_aaguid ON credentials (client_id, aaguid)',
    `CREATE TABLE webhook_outbox (
       id              TEXT PRIMARY KEY,
       client_id       TEXT NOT NULL,
       webhook_id      TEXT NOT NULL,
       type            TEXT NOT NULL,
       body            TEXT NOT NULL,
       created_at      INTEGER NOT NULL,
       attempts        INTEGER NOT NULL DEFAULT 0,
       next_attempt_at INTEGER NOT NULL,
       last_error      TEXT,
       dead_at         INTEGER,
       lease_owner     TEXT,
       lease_until     INTEGER NOT NULL DEFAULT 0
     ) STRICT`,
    'CREATE INDEX webhook_outbox_due ON webhook_outbox (dead_at, next_attempt_at)',
    `CREATE TABLE webhooks (
       id         TEXT PRIMARY KEY,
       client_id  TEXT NOT NULL,
       url        TEXT NOT NULL,
       secret     TEXT NOT NULL,
       events     TEXT,
       created_at INTEGER NOT NULL
     ) STRICT`,
    'CREATE INDEX webhooks_by_application ON webhooks (client_id, created_at)',
  ],
};
