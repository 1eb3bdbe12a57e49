// Readiness against real backends that become unreachable: Redis (rate limits) and PostgreSQL (the
// application store) behind a proxy the test cuts, and a closed SQLite store. Liveness stays 200 throughout.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresApplicationStore } from '../../src/stores/postgres/applications.js';
import { Readiness, storeCheck } from '../../src/runtime/readiness.js';
import { SqliteApplicationStore } from '../../src/stores/sqlite/applications.js';
import { migratePostgres } from '../../src/stores/postgres/open.js';
import { createRateLimitHooks } from '../../src/ratelimit/index.js';
import { RedisBucketStore } from '../../src/stores/redis/buckets.js';
import { startProxy } from '../scale/support/proxy.js';
import { captureLog } from '../support/admin-fixtures.js';

const BASE_URL = process.env.PASSKEY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ops_ready_${randomBytes(5).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'ops-ready-'));
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: BASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

describe('readiness with real backends going away', () => {
  it('fails while Redis or PostgreSQL is unreachable or SQLite is closed, and recovers; rate limits fail open meanwhile', async () => {
    const redisProxy = await startProxy('127.0.0.1', 6379);
    const pgProxy = await startProxy('127.0.0.1', 5432);
    const setup = new pg.Client({ connectionString: BASE_URL });
    await setup.connect();
    await setup.query(`CREATE SCHEMA ${schema}`);
    await setup.end();
    await migratePostgres(BASE_URL, { schema });
    const buckets = await RedisBucketStore.open({
      url: redisProxy.url('redis://127.0.0.1:6379'),
      keyPrefix: `test:ready:${randomBytes(4).toString('hex')}:`,
    });
    const apps = await PostgresApplicationStore.open(pgProxy.url(BASE_URL), {
      schema,
      connectTimeoutMs: 500,
      queryTimeoutMs: 1000,
    });
    const sqlite = new SqliteApplicationStore(join(dir, 'ready.db'));
    const readiness = new Readiness(
      [
        { name: 'rate-limits', check: () => buckets.ping() },
        storeCheck('applications', apps),
        storeCheck('local-applications', sqlite),
      ],
      1500,
    );
    const log = captureLog();
    const hooks = createRateLimitHooks(
      { perApplication: { burst: 100, perSecond: 1 }, perAddress: null },
      { store: buckets, now: () => 0, log },
    );
    try {
      assert.deepEqual(await readiness.report(), {
        ready: true,
        status: 'ready',
        checks: { 'rate-limits': 'ok', applications: 'ok', 'local-applications': 'ok' },
      });

      redisProxy.cut();
      pgProxy.cut();
      const down = await readiness.report();
      assert.equal(down.ready, false);
      assert.equal(down.status, 'not ready');
      assert.match(down.checks['rate-limits']!, /^unavailable: /);
      assert.match(down.checks.applications!, /^unavailable: /);
      assert.equal(down.checks['local-applications'], 'ok');
      // Admission fails open (logged) while Redis is away.
      assert.deepEqual(await hooks.admit({ clientId: 'a', remoteAddress: null }), {
        allowed: true,
        retryAfterSeconds: 0,
      });
      assert.equal(log.lines.at(-1)?.fields.event, 'rate_limit_store_error');

      redisProxy.restore();
      pgProxy.restore();
      // Both clients reconnect by themselves (bounded wait).
      let report = await readiness.report();
      for (let i = 0; i < 30 && !report.ready; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        report = await readiness.report();
      }
      assert.equal(report.ready, true, JSON.stringify(report));

      await sqlite.close();
      const closed = await readiness.report();
      assert.match(closed.checks['local-applications']!, /^unavailable: SQLite unavailable/);
      readiness.drain();
      assert.equal((await readiness.report()).status, 'draining');
    } finally {
      await buckets.close();
      await apps.close();
      await redisProxy.close();
      await pgProxy.close();
    }
  });
});
