// The operator features' tables (docs/admin.md): applications with their state, and the audit log.
// Before this migration the application and audit stores created them on first use (`postgresOpsSchema` in
// the application and audit stores), so a database may already hold them: IF NOT EXISTS keeps those tables and
// their rows, and the definitions are the same (JSON, not JSONB: the text keeps its key order).
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 4,
  name: 'operations: applications and audit log',
  statements: (schema) => [
    `CREATE TABLE IF NOT EXISTS ${schema}.ops_applications (
       client_id  TEXT PRIMARY KEY,
       config     JSON NOT NULL,
       approved   BOOLEAN NOT NULL,
       disabled   BOOLEAN NOT NULL,
       source     TEXT NOT NULL,
       created_at BIGINT NOT NULL,
       updated_at BIGINT NOT NULL
     )`,
    `CREATE TABLE IF NOT EXISTS ${schema}.ops_audit_events (
       id        TEXT PRIMARY KEY,
       at        BIGINT NOT NULL,
       client_id TEXT,
       action    TEXT NOT NULL,
       actor     TEXT NOT NULL,
       result    TEXT NOT NULL,
       event     JSON NOT NULL
     )`,
    `CREATE INDEX IF NOT EXISTS ops_audit_events_at ON ${schema}.ops_audit_events (at)`,
    `CREATE INDEX IF NOT EXISTS ops_audit_events_client ON ${schema}.ops_audit_events (client_id, id)`,
  ],
};
