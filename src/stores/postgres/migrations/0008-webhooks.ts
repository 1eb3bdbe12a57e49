// Issue 27: the webhook outbox (an event is written in the transaction of the change it reports, then
// delivered off the request path and leased with FOR UPDATE SKIP LOCKED, so one instance delivers each:
// src/webhooks/dispatcher.ts), the webhooks the admin API adds, and the mark a credential gets when FIDO
// metadata reports its authenticator model compromised or revoked.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 8,
  name: 'webhooks and authenticator status',
  statements: (schema) => [
    `ALTER TABLE ${schema}.credentials ADD COLUMN authenticator_status text`,
    `ALTER TABLE ${schema}.credentials ADD COLUMN authenticator_status_at bigint`,
    `CREATE INDEX credentials_by_aaguid ON ${schema}.credentials (client_id, aaguid)`,
    `CREATE TABLE ${schema}.webhook_outbox (
       id              text COLLATE "C" PRIMARY KEY,
       client_id       text NOT NULL,
       webhook_id      text NOT NULL,
       type            text NOT NULL,
       body            text NOT NULL,
       created_at      bigint NOT NULL,
       attempts        integer NOT NULL DEFAULT 0,
       next_attempt_at bigint NOT NULL,
       last_error      text,
       dead_at         bigint,
       lease_owner     text,
       lease_until     bigint NOT NULL DEFAULT 0
     )`,
    `CREATE INDEX webhook_outbox_due ON ${schema}.webhook_outbox (next_attempt_at) WHERE dead_at IS NULL`,
    `CREATE TABLE ${schema}.webhooks (
       id         text PRIMARY KEY,
       client_id  text NOT NULL,
       url        text NOT NULL,
       secret     text NOT NULL,
       events     text[],
       created_at bigint NOT NULL
     )`,
    `CREATE INDEX webhooks_by_application ON ${schema}.webhooks (client_id, created_at)`,
  ],
};
