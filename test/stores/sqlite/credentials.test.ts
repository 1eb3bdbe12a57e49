// SQLite stores: the shared contract on a real file (and across two connections to it), durability across
// close and reopen, the durability settings, numbered migrations (idempotent, recorded, newer refused),
// sweeping of expired ceremonies, and unavailability mapped to StoreUnavailableError.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Database } from '../../../src/stores/sqlite/open.js';
import {
  openSqliteChallengeStore,
  openSqliteCredentialStore,
  SqliteChallengeStore,
  SqliteCredentialStore,
} from '../../../src/stores/sqlite/credentials.js';
import { sqliteSchemaVersion } from '../../../src/stores/sqlite/open.js';
import { migrateSqlite } from '../../../src/stores/sqlite/open.js';
import { openSqliteDatabase } from '../../../src/stores/sqlite/open.js';
import { SqliteSchemaVersionError } from '../../../src/stores/sqlite/open.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from '../../../src/stores/sqlite/migrations/index.js';
import { StoreUnavailableError } from '../../../src/errors/catalogue.js';
import { tempDir } from '../../config/support.js';
import { ceremony, challengeStoreContract, credential, credentialStoreContract } from '../contract.js';
import { localCredentialContract } from '../local-contract.js';

/** Which file each store was opened on, so `reopen` can open a second connection to it. */
const files = new WeakMap<object, string>();
const newFile = () => join(tempDir('passkey-sqlite-'), 'nested', 'fido2.db');

credentialStoreContract(
  'sqlite',
  async () => {
    const file = newFile();
    const store = await openSqliteCredentialStore(file);
    files.set(store, file);
    return store;
  },
  { reopen: (store) => openSqliteCredentialStore(files.get(store)!) },
);

challengeStoreContract(
  'sqlite (challenges: "database")',
  async () => {
    const file = newFile();
    const store = await openSqliteChallengeStore(file);
    files.set(store, file);
    return store;
  },
  { reopen: (store) => openSqliteChallengeStore(files.get(store)!) },
);

localCredentialContract(
  'sqlite (challenges: "database")',
  async (localLimits = {}) => {
    const file = newFile();
    const store = await openSqliteChallengeStore(file, { localLimits });
    files.set(store, file);
    return store;
  },
  { reopen: (store, localLimits) => openSqliteChallengeStore(files.get(store)!, { localLimits }) },
);

describe('SQLite: durability', () => {
  it('everything written is there after close and reopen', async () => {
    const file = newFile();
    const records = [credential(), credential({ nickname: 'Key', authenticatorName: 'Model', signCount: 9 })];
    const ceremonies = [ceremony(), ceremony({ allowCredentials: ['AAAA'] })];
    const credentials = await openSqliteCredentialStore(file);
    const challenges = await openSqliteChallengeStore(file);
    for (const record of records) await credentials.create(record);
    assert.equal(
      await credentials.recordUse(records[0]!.clientId, records[0]!.credentialId, {
        expectedSignCount: 0,
        expectedAuthenticatorStatus: null,
        expectedCreatedAt: 1_700_000_000_000,
        signCount: 5,
        backupEligible: true,
        backupState: true,
        userVerified: true,
        cloneWarning: false,
        usedAt: 42,
      }),
      true,
    );
    for (const record of ceremonies) await challenges.put(record);
    await challenges.take(ceremonies[0]!.clientId, ceremonies[0]!.challenge, Date.now());
    await credentials.close();
    await challenges.close();

    const again = await openSqliteCredentialStore(file);
    const found = await again.find(records[0]!.clientId, records[0]!.credentialId);
    assert.equal(found?.signCount, 5);
    assert.equal(found?.lastUsedAt, 42);
    assert.equal((await again.find(records[1]!.clientId, records[1]!.credentialId))?.nickname, 'Key');
    await again.close();
    const challengesAgain = await openSqliteChallengeStore(file);
    assert.deepEqual(await challengesAgain.take(ceremonies[0]!.clientId, ceremonies[0]!.challenge, Date.now()), {
      state: 'used',
    });
    assert.deepEqual(await challengesAgain.take(ceremonies[1]!.clientId, ceremonies[1]!.challenge, Date.now()), {
      state: 'taken',
      record: ceremonies[1],
    });
    await challengesAgain.close();
  });

  it('opens in WAL mode with synchronous=FULL and a busy timeout', () => {
    const db = openSqliteDatabase(newFile());
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL');
    assert.equal(db.pragma('busy_timeout', { simple: true }), 5000);
    db.close();
  });

  it('has the unique (client_id, credential_id) and the (client_id, user_handle) indexes', () => {
    const db = openSqliteDatabase(newFile());
    const indexes = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'credentials'")
      .all() as { name: string; sql: string }[];
    assert.ok(
      indexes.some((i) => /UNIQUE INDEX credentials_by_id ON credentials \(client_id, credential_id\)/.test(i.sql)),
    );
    assert.ok(indexes.some((i) => /INDEX credentials_by_user ON credentials \(client_id, user_handle/.test(i.sql)));
    const plan = db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT * FROM credentials WHERE client_id = ? AND user_handle = ? ORDER BY created_at, credential_id',
      )
      .all('a', 'b') as { detail: string }[];
    assert.ok(
      plan.some((p) => /credentials_by_user/.test(p.detail)),
      JSON.stringify(plan),
    );
    db.close();
  });
});

describe('SQLite: migrations', () => {
  it('are applied at open and recorded, once', () => {
    const file = newFile();
    const first = migrateSqlite(file);
    assert.deepEqual(first, {
      from: 0,
      to: SQLITE_SCHEMA_VERSION,
      applied: SQLITE_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    });
    const second = migrateSqlite(file);
    assert.deepEqual(second, { from: SQLITE_SCHEMA_VERSION, to: SQLITE_SCHEMA_VERSION, applied: [] });
    const db = openSqliteDatabase(file);
    assert.equal(sqliteSchemaVersion(db), SQLITE_SCHEMA_VERSION);
    const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    assert.deepEqual(
      rows,
      SQLITE_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    );
    db.close();
  });

  it('versions are numbered 1, 2, 3 … without gaps', () => {
    assert.deepEqual(
      SQLITE_MIGRATIONS.map((m) => m.version),
      SQLITE_MIGRATIONS.map((_, i) => i + 1),
    );
  });

  it('opening keeps the data of an already migrated file', async () => {
    const file = newFile();
    const store = await openSqliteCredentialStore(file);
    const record = credential();
    await store.create(record);
    await store.close();
    migrateSqlite(file);
    const again = await openSqliteCredentialStore(file);
    assert.ok(await again.find(record.clientId, record.credentialId));
    await again.close();
  });

  it('a file from a newer build is refused with a clear message, and left unchanged', () => {
    const file = newFile();
    migrateSqlite(file);
    const raw = new Database(file);
    raw
      .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
      .run(SQLITE_SCHEMA_VERSION + 1, 'future', 0);
    raw.close();
    assert.throws(
      () => openSqliteDatabase(file),
      (error: unknown) => error instanceof SqliteSchemaVersionError && /newer than this build/.test(error.message),
    );
    const check = new Database(file, { readonly: true });
    assert.equal(
      (check.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number }).v,
      SQLITE_SCHEMA_VERSION + 1,
    );
    check.close();
  });
});

describe('SQLite: challenges sweep', () => {
  it('expired ceremonies and used-markers are deleted as new ones arrive', async () => {
    let now = 1_700_000_000_000;
    const db = openSqliteDatabase(newFile());
    const store = new SqliteChallengeStore(db, { clock: () => now, sweepEvery: 10 });
    const count = () =>
      (
        db.prepare('SELECT (SELECT count(*) FROM challenges) + (SELECT count(*) FROM used_challenges) AS n').get() as {
          n: number;
        }
      ).n;
    const old = Array.from({ length: 9 }, () => ceremony({ clientId: 'c', expiresAt: now + 1000 }));
    for (const record of old) await store.put(record);
    await store.take('c', old[0]!.challenge, now);
    assert.equal(count(), 9);
    now += 5000;
    await store.put(ceremony({ clientId: 'c', expiresAt: now + 1000 }));
    assert.equal(count(), 1);
    await store.close();
  });

  it('sweep keeps live rows', async () => {
    const store = await openSqliteChallengeStore(newFile());
    const live = ceremony({ expiresAt: Date.now() + 60_000 });
    await store.put(live);
    assert.equal(store.sweep(Date.now()), 0);
    assert.equal((await store.take(live.clientId, live.challenge, Date.now())).state, 'taken');
    await store.close();
  });
});

describe('SQLite: unavailability', () => {
  it('a closed store answers StoreUnavailableError (503), not a crash', async () => {
    const db = openSqliteDatabase(newFile());
    const credentials = new SqliteCredentialStore(db);
    const challenges = new SqliteChallengeStore(db);
    db.close();
    await assert.rejects(credentials.find('a', 'b'), StoreUnavailableError);
    await assert.rejects(challenges.take('a', 'b', 0), StoreUnavailableError);
    await assert.rejects(credentials.ping(), StoreUnavailableError);
  });

  it('a write lock held by another connection past the busy timeout answers StoreUnavailableError', async () => {
    const file = newFile();
    const store = await openSqliteCredentialStore(file, { busyTimeoutMs: 50 });
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      await assert.rejects(store.create(credential()), StoreUnavailableError);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    assert.equal(await store.create(credential()), 'created');
    await store.close();
  });

  it('a path that cannot be a database fails at open with the path in the message', () => {
    const dir = tempDir();
    assert.throws(
      () => openSqliteDatabase(dir),
      (error: unknown) => error instanceof StoreUnavailableError && error.message.includes(dir),
    );
  });
});
