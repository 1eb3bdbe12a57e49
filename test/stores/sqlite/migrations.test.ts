// Migration 2 (the operations tables): a database left at schema version 1 by an earlier build upgrades at
// open, keeping its rows: without the tables, and with the tables the operations stores used to create on
// first use (and their rows). The operations stores then work on the migrated file.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Database } from '../../../src/stores/sqlite/open.js';
import { SqliteApplicationStore } from '../../../src/stores/sqlite/applications.js';
import { SqliteAuditStore } from '../../../src/stores/sqlite/audit.js';

/** The tables the operations stores of builds before migration 2 created on first use. */
const AD_HOC_OPS_TABLES = `
CREATE TABLE IF NOT EXISTS ops_applications (client_id TEXT PRIMARY KEY, config TEXT NOT NULL, approved INTEGER NOT NULL,
  disabled INTEGER NOT NULL, source TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS ops_audit_events (id TEXT PRIMARY KEY, at INTEGER NOT NULL, client_id TEXT, action TEXT NOT NULL,
  actor TEXT NOT NULL, result TEXT NOT NULL, event TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS ops_audit_events_at ON ops_audit_events (at);
CREATE INDEX IF NOT EXISTS ops_audit_events_client ON ops_audit_events (client_id, id);
`;
import { openSqliteCredentialStore } from '../../../src/stores/sqlite/credentials.js';
import { migrateSqlite } from '../../../src/stores/sqlite/open.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from '../../../src/stores/sqlite/migrations/index.js';
import { tempDir } from '../../config/support.js';
import { credential } from '../contract.js';

/** A database exactly as a build with only migration 1 left it (with one credential), optionally with the ad hoc ops tables. */
async function versionOneDatabase(options: {
  adHocOpsTables: boolean;
}): Promise<{ file: string; record: ReturnType<typeof credential> }> {
  const file = join(tempDir('passkey-sqlite-v1-'), 'fido2.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
  );
  const first = SQLITE_MIGRATIONS[0]!;
  for (const statement of first.statements) db.exec(statement);
  db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(1, first.name, 0);
  if (options.adHocOpsTables) {
    db.exec(AD_HOC_OPS_TABLES);
    db.prepare('INSERT INTO ops_applications VALUES (?, ?, 1, 0, ?, 1, 2)').run(
      'old-app',
      JSON.stringify({ clientId: 'old-app', name: 'Old' }),
      'admin',
    );
    db.prepare('INSERT INTO ops_audit_events VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      '0001',
      5,
      'old-app',
      'application.create',
      'cli:root',
      'ok',
      '{"id":"0001"}',
    );
  }
  db.close();
  const record = credential();
  // Written by hand: a store of this build would migrate the file when it opens it.
  const raw = new Database(file);
  raw
    .prepare(`INSERT INTO credentials (client_id, credential_id, user_handle, username, public_key, algorithm, sign_count, transports,
    aaguid, attestation_format, attestation_type, attestation_trusted, backup_eligible, backup_state, user_verified, resident_key,
    clone_warning, created_at, last_used_at, nickname, authenticator_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 1, NULL, 0, ?, NULL, NULL, NULL)`)
    .run(
      record.clientId,
      record.credentialId,
      record.userHandle,
      record.username,
      Buffer.from(record.publicKey),
      record.algorithm,
      record.signCount,
      JSON.stringify(record.transports),
      record.aaguid,
      record.attestationFormat,
      record.attestationType,
      record.createdAt,
    );
  raw.close();
  return { file, record };
}

function tables(file: string): string[] {
  const db = new Database(file, { readonly: true });
  const names = (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND name LIKE 'ops_%' ORDER BY name")
      .all() as { name: string }[]
  ).map((r) => r.name);
  db.close();
  return names;
}

describe('SQLite migration 2: the operations tables', () => {
  it('is migration 2 of this build (3 to 9 follow it)', () => {
    assert.equal(SQLITE_SCHEMA_VERSION, 9);
    assert.equal(SQLITE_MIGRATIONS[1]?.name, 'operations: applications and audit log');
    assert.equal(SQLITE_MIGRATIONS[2]?.name, 'local variant: remembered credential ids');
  });

  it('upgrades a version-1 database: tables created, credentials kept', async () => {
    const { file, record } = await versionOneDatabase({ adHocOpsTables: false });
    assert.deepEqual(tables(file), []);
    assert.deepEqual(migrateSqlite(file), {
      from: 1,
      to: 9,
      applied: [
        { version: 2, name: 'operations: applications and audit log' },
        { version: 3, name: 'local variant: remembered credential ids' },
        { version: 4, name: 'credential display name' },
        { version: 5, name: 'credential aaguid proven' },
        { version: 6, name: 'webhooks and authenticator status' },
        { version: 7, name: 'local variant: remembered ids per user, bound per application' },
        { version: 8, name: 'relay secrets' },
        { version: 9, name: 'imported user handles' },
      ],
    });
    assert.deepEqual(tables(file), [
      'ops_applications',
      'ops_audit_events',
      'ops_audit_events_at',
      'ops_audit_events_client',
    ]);
    const store = await openSqliteCredentialStore(file);
    const found = await store.find(record.clientId, record.credentialId);
    assert.equal(found?.username, record.username);
    await store.close();
  });

  it('upgrades a version-1 database whose operations tables were made on first use, keeping their rows', async () => {
    const { file } = await versionOneDatabase({ adHocOpsTables: true });
    assert.deepEqual(
      migrateSqlite(file).applied.map((m) => m.version),
      [2, 3, 4, 5, 6, 7, 8, 9],
    );
    const applications = new SqliteApplicationStore(file);
    const old = await applications.get('old-app');
    assert.equal(old?.source, 'admin');
    assert.equal(old?.config.name, 'Old');
    await applications.close();
    const audit = new SqliteAuditStore(file);
    const events = await audit.query({ limit: 10 });
    assert.deepEqual(
      events.map((e) => e.id),
      ['0001'],
    );
    await audit.close();
  });

  it('the operations stores work on a freshly migrated file', async () => {
    const file = join(tempDir('passkey-sqlite-v2-'), 'fido2.db');
    migrateSqlite(file);
    const applications = new SqliteApplicationStore(file);
    const config = { clientId: 'new-app', name: 'New' } as unknown as Parameters<
      SqliteApplicationStore['create']
    >[0]['config'];
    assert.equal(
      await applications.create({
        config,
        approved: false,
        disabled: false,
        source: 'config',
        createdAt: 1,
        updatedAt: 1,
      }),
      'created',
    );
    assert.equal((await applications.get('new-app'))?.config.name, 'New');
    await applications.close();
  });
});

describe('SQLite migration 4: the credential display name', () => {
  it('adds display_name to a version-1 database; its credentials read back without one, new ones keep theirs', async () => {
    const { file, record } = await versionOneDatabase({ adHocOpsTables: false });
    migrateSqlite(file);
    const store = await openSqliteCredentialStore(file);
    const old = await store.find(record.clientId, record.credentialId);
    assert.equal(old?.displayName, undefined);
    const fresh = credential({ displayName: 'Alice Example' });
    assert.equal(await store.create(fresh), 'created');
    assert.equal((await store.find(fresh.clientId, fresh.credentialId))?.displayName, 'Alice Example');
    await store.close();
  });
});
