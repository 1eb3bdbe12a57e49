// The operator features' tables (docs/admin.md): applications with their state, and the audit log.
// Before this migration the application and audit stores created them on first use (`SQLITE_OPS_SCHEMA` in
// the application and audit stores), so a database may already hold them: IF NOT EXISTS keeps those tables and
// their rows, and the definitions are the same. Not STRICT, for the same reason.
import type { SqliteMigration } from './migration.js';

export const migration: SqliteMigration = {
  version: 2,
  name: 'operations: applications and audit log',
  statements: [
    // `config` is the application's configuration as JSON (the config file's shape).
    `CREATE TABLE IF NOT EXISTS ops_applications (
       client_id  TEXT PRIMARY KEY,
       config     TEXT NOT NULL,
       approved   INTEGER NOT NULL,
       disabled   INTEGER NOT NULL,
       source     TEXT NOT NULL,
       created_at INTEGER NOT NULL,
       updated_at INTEGER NOT NULL
     )`,
    // `event` is the whole audit event as JSON; the other columns are what queries filter on.
    `CREATE TABLE IF NOT EXISTS ops_audit_events (
       id        TEXT PRIMARY KEY,
       at        INTEGER NOT NULL,
       client_id TEXT,
       action    TEXT NOT NULL,
       actor     TEXT NOT NULL,
       result    TEXT NOT NULL,
       event     TEXT NOT NULL
     )`,
    `CREATE INDEX IF NOT EXISTS ops_audit_events_at ON ops_audit_events (at)`,
    `CREATE INDEX IF NOT EXISTS ops_audit_events_client ON ops_audit_events (client_id, id)`,
  ],
};
