// The application and audit stores on the machine's PostgreSQL (127.0.0.1:5432, database `test`), in a
// schema of this run's own, dropped at the end. Two stores on one schema stand for two instances.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresApplicationStore } from '../../../src/stores/postgres/applications.js';
import { PostgresAuditStore } from '../../../src/stores/postgres/audit.js';
import { seedApplications } from '../../../src/applications/directory.js';
import { AuditLog } from '../../../src/audit/index.js';
import { StoreUnavailableError } from '../../../src/errors/catalogue.js';
import { migratePostgres } from '../../../src/stores/postgres/open.js';
import { T0, testRuntime } from '../../support/admin-fixtures.js';
import { applicationContract, auditContract, record } from '../applications-audit-contract.js';

const URL = process.env.PASSKEY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ops_test_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: URL });
let connected: Promise<void> | undefined;
const ensureSchema = async () => {
  connected ??= admin.connect().then(async () => {
    await admin.query(`CREATE SCHEMA ${schema}`);
    await migratePostgres(URL, { schema });
  });
  await connected;
};
after(async () => {
  if (connected) {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
});

applicationContract('postgres', async () => {
  await ensureSchema();
  // Opened together: the DDL is serialised by the advisory lock.
  const [store, other] = await Promise.all([
    PostgresApplicationStore.open(URL, { schema }),
    PostgresApplicationStore.open(URL, { schema }),
  ]);
  return {
    store,
    other,
    close: async () => {
      await store.close();
      await other.close();
    },
  };
});

auditContract('postgres', async () => {
  await ensureSchema();
  const store = await PostgresAuditStore.open(`${URL}?schema=${schema}`);
  const other = await PostgresAuditStore.open(URL, { schema });
  return {
    store,
    other,
    close: async () => {
      await store.close();
      await other.close();
    },
  };
});

describe('postgres ops stores: seeding, pruning, unreachable database', () => {
  it('seeding compares configurations whatever the key order, prunes audit events, and reports an unreachable server as unavailable', async () => {
    await ensureSchema();
    const apps = await PostgresApplicationStore.open(URL, { schema });
    try {
      const seeded = record('seeded');
      assert.deepEqual(await seedApplications(apps, [seeded.config], T0), {
        created: ['seeded'],
        updated: [],
        kept: [],
      });
      assert.deepEqual(await seedApplications(apps, [seeded.config], T0 + 1), { created: [], updated: [], kept: [] });
    } finally {
      await apps.close();
    }
    const auditStore = await PostgresAuditStore.open(URL, { schema });
    try {
      const start = T0 + 1_000_000_000; // after every event the contract wrote
      const runtime = testRuntime(start);
      const audit = new AuditLog(auditStore, runtime);
      await audit.record({ actor: 'system', action: 'prune.old', result: 'ok' });
      runtime.advance(10_000);
      await audit.record({ actor: 'system', action: 'prune.new', result: 'ok' });
      assert.ok((await auditStore.prune(start + 5000)) >= 1);
      assert.equal((await auditStore.query({ limit: 100, until: start + 5000 })).length, 0);
      assert.deepEqual(
        (await auditStore.query({ limit: 10, action: 'prune.' })).map((e) => e.action),
        ['prune.new'],
      );
    } finally {
      await auditStore.close();
    }
    await assert.rejects(
      PostgresApplicationStore.open('postgres://postgres@127.0.0.1:1/test', { connectTimeoutMs: 500 }),
      StoreUnavailableError,
    );
  });
});
