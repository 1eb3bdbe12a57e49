// openStores: the stores each configuration names, opened and closed; migrateDatabase.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { migrateDatabase, openStores } from '../../src/stores/open.js';
import { MemoryChallengeStore } from '../../src/stores/memory/challenges.js';
import { SqliteChallengeStore, SqliteCredentialStore } from '../../src/stores/sqlite/credentials.js';
import { tempDir } from '../config/support.js';
import { ceremony, credential } from './contract.js';

const POSTGRES = process.env.PASSKEY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = process.env.PASSKEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const clock = () => Date.now();

describe('openStores', () => {
  it('SQLite + memory challenges (the default)', async () => {
    const path = join(tempDir(), 'data', 'fido2.db');
    const stores = await openStores({ database: { kind: 'sqlite', path }, challenges: { kind: 'memory' } }, { clock });
    assert.ok(stores.credentials instanceof SqliteCredentialStore);
    // No sqliteWriter: auto, which follows the cores this process may run on.
    assert.equal(stores.sqliteWriter?.mode, availableParallelism() >= 2 ? 'thread' : 'inline');
    assert.ok(stores.challenges instanceof MemoryChallengeStore);
    const record = credential();
    assert.equal(await stores.credentials.create(record), 'created');
    await stores.close();
    await stores.close();
  });

  for (const mode of ['thread', 'inline'] as const) {
    it(`SQLite with sqliteWriter "${mode}": credential writes go through the writer it hands out, and close commits them`, async () => {
      const path = join(tempDir(), 'fido2.db');
      const stores = await openStores(
        { database: { kind: 'sqlite', path }, sqliteWriter: mode, challenges: { kind: 'memory' } },
        { clock },
      );
      assert.ok(stores.sqliteWriter);
      assert.equal(stores.sqliteWriter.mode, mode);
      const records = [credential(), credential(), credential()];
      assert.deepEqual(await Promise.all(records.map((r) => stores.credentials.create(r))), [
        'created',
        'created',
        'created',
      ]);
      assert.equal(stores.sqliteWriter.stats().writes, 3);
      await stores.close();
      await assert.rejects(stores.sqliteWriter.ping());
      const again = await openStores({ database: { kind: 'sqlite', path }, challenges: { kind: 'memory' } }, { clock });
      for (const record of records) assert.ok(await again.credentials.find(record.clientId, record.credentialId));
      await again.close();
    });
  }

  it('SQLite + challenges "database": both on the one file', async () => {
    const path = join(tempDir(), 'fido2.db');
    const stores = await openStores(
      { database: { kind: 'sqlite', path }, challenges: { kind: 'database' } },
      { clock },
    );
    assert.ok(stores.challenges instanceof SqliteChallengeStore);
    const record = ceremony();
    await stores.challenges.put(record);
    await stores.close();
    const again = await openStores({ database: { kind: 'sqlite', path }, challenges: { kind: 'database' } }, { clock });
    assert.deepEqual(await again.challenges.take(record.clientId, record.challenge, Date.now()), {
      state: 'taken',
      record,
    });
    await again.close();
  });

  it('migrateDatabase on SQLite is idempotent', async () => {
    const path = join(tempDir(), 'fido2.db');
    const first = await migrateDatabase({ database: { kind: 'sqlite', path } });
    assert.ok(first.applied.length > 0);
    assert.deepEqual((await migrateDatabase({ database: { kind: 'sqlite', path } })).applied, []);
  });

  it('a credential store that opens is closed again when the challenge store cannot open', async () => {
    const path = join(tempDir(), 'fido2.db');
    await assert.rejects(
      openStores(
        { database: { kind: 'sqlite', path }, challenges: { kind: 'redis', url: 'redis://127.0.0.1:1' } },
        { clock },
      ),
    );
    // The file is not held: it can be opened and written again at once.
    const stores = await openStores({ database: { kind: 'sqlite', path }, challenges: { kind: 'memory' } }, { clock });
    assert.equal(await stores.credentials.create(credential()), 'created');
    await stores.close();
  });

  it('PostgreSQL (migrated first) + challenges "database", and Redis challenges', async () => {
    const schema = `open_test_${randomBytes(6).toString('hex')}`;
    const url = `${POSTGRES}?schema=${schema}`;
    const admin = new pg.Client({ connectionString: POSTGRES });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA ${schema}`);
      await migrateDatabase({ database: { kind: 'postgres', url } });
      const stores = await openStores(
        { database: { kind: 'postgres', url }, challenges: { kind: 'database' } },
        { clock },
      );
      const record = credential();
      assert.equal(await stores.credentials.create(record), 'created');
      assert.equal(
        (await stores.credentials.find(record.clientId, record.credentialId))?.userHandle,
        record.userHandle,
      );
      const c = ceremony();
      await stores.challenges.put(c);
      assert.equal((await stores.challenges.take(c.clientId, c.challenge, Date.now())).state, 'taken');
      await stores.close();

      const withRedis = await openStores(
        {
          database: { kind: 'postgres', url },
          challenges: { kind: 'redis', url: `${REDIS}?prefix=open-test-${schema}:` },
        },
        { clock },
      );
      const r = ceremony();
      await withRedis.challenges.put(r);
      assert.deepEqual(await withRedis.challenges.take(r.clientId, r.challenge, Date.now()), {
        state: 'taken',
        record: r,
      });
      await withRedis.close();
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});
