// Two instances on the shared backends of a multi-instance deployment: PostgreSQL credentials (scale
// engineer's store), PostgreSQL applications and audit log, Redis rate limits. An admin change made on one
// instance reaches the other within applicationCacheMs; both write one audit log.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createClient } from 'redis';
import { buildApp } from '../../../src/http/app.js';
import { startOperatorFeatures } from '../../../src/compose/operator-features.js';
import { defaultOpsOptions } from '../../../src/config/ops.js';
import { openOpsStores } from '../../../src/compose/stores.js';
import { MemoryAdminTokenStore } from '../../../src/admin/tokens.js';
import { migratePostgres, openPostgresCredentialStore } from '../../../src/stores/postgres/open.js';
import { MemoryChallengeStore } from '../../../src/stores/memory/challenges.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import {
  CLIENT_ID,
  Flow,
  type Harness,
  ORIGIN,
  PATHS,
  VENDOR,
  applicationConfig,
  serviceConfig,
  username,
} from '../../support/harness.js';
import { captureLog, testRuntime } from '../../support/admin-fixtures.js';

const BASE_URL = process.env.PASSKEY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ops_e2e_${randomBytes(5).toString('hex')}`;
const url = `${BASE_URL}?schema=${schema}`;
const prefix = `test:ops-e2e:${randomBytes(5).toString('hex')}:`;
const secrets = { userHandleKey: Buffer.alloc(32, 7), localBlobKeys: [{ id: 'k1', key: Buffer.alloc(32, 9) }] };

after(async () => {
  const client = new pg.Client({ connectionString: BASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
  const redis = createClient({ url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(keys);
  await redis.quit();
});

async function instance(runtime: ReturnType<typeof testRuntime>) {
  const config = serviceConfig([applicationConfig()], { database: { kind: 'postgres', url } });
  const tokens = new MemoryAdminTokenStore(runtime);
  const token = (await tokens.create('ops')).token;
  const opsStores = await openOpsStores(config);
  const base = defaultOpsOptions('/nonexistent');
  const ops = await startOperatorFeatures({
    config,
    runtime,
    log: captureLog(),
    tokens,
    secrets,
    options: {
      ...base,
      admin: { ...base.admin, port: 0 },
      rateLimits: { ...base.rateLimits, store: 'redis://127.0.0.1:6379', keyPrefix: prefix },
    },
    credentials: await openPostgresCredentialStore(url),
    challenges: new MemoryChallengeStore({ clock: runtime.now }),
    applicationStore: opsStores.applications,
    auditStore: opsStores.audit,
    buildTrust: (policy) => createTrustEvaluator({ anchors: [], requireTrusted: policy.requireTrusted }),
  });
  const app = buildApp({
    config,
    applications: ops.applications,
    credentials: ops.credentials,
    challenges: ops.challenges,
    secrets,
    runtime,
    log: captureLog(),
    hooks: ops.hooks,
  });
  const post = (path: string, body: unknown) =>
    app.inject({
      method: 'POST',
      url: path,
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'user-agent': `${VENDOR} AppID: ${CLIENT_ID}`, origin: ORIGIN },
    });
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${ops.admin!.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as any };
  };
  return {
    ops,
    post,
    admin,
    runtime,
    flow: (user: string) => new Flow({ post } as unknown as Harness, username(user)),
  };
}

describe('two instances on PostgreSQL and Redis', () => {
  it('share applications, credentials administration and the audit log', async () => {
    await migratePostgres(BASE_URL, { schema });
    const clock = testRuntime(); // one clock: the instances of a deployment agree on the time (NTP)
    const a = await instance(clock);
    const b = await instance(clock);
    try {
      assert.equal((await a.flow('pat').register()).res.status, 200);
      clock.advance(1);
      const list = await b.admin(
        'GET',
        `/admin/applications/${CLIENT_ID}/credentials?username=${encodeURIComponent(username('pat'))}`,
      );
      assert.equal(list.json.credentials.length, 1);
      const id = list.json.credentials[0].credentialId as string;
      assert.equal(
        (await b.admin('PATCH', `/admin/applications/${CLIENT_ID}/credentials/${id}`, { nickname: 'Tablet' })).json
          .nickname,
        'Tablet',
      );
      clock.advance(1);
      assert.equal(
        (await a.admin('GET', `/admin/applications/${CLIENT_ID}/credentials/${id}`)).json.nickname,
        'Tablet',
      );

      // B has looked the application up (cached); A disables it; B sees it once its cache interval passed.
      assert.equal((await b.post(PATHS.assertionOptions, { username: username('pat') })).status, 200);
      assert.equal((await a.admin('POST', `/admin/applications/${CLIENT_ID}/disable`)).status, 200);
      assert.equal((await a.post(PATHS.assertionOptions, { username: username('pat') })).status, 403);
      clock.advance(5001);
      assert.equal((await b.post(PATHS.assertionOptions, { username: username('pat') })).status, 403);
      assert.equal((await b.admin('POST', `/admin/applications/${CLIENT_ID}/enable`)).status, 200);
      clock.advance(1); // audit ids order events by time; within one millisecond only per instance

      assert.equal((await a.admin('DELETE', `/admin/applications/${CLIENT_ID}/credentials/${id}`)).json.deleted, true);
      const events = (await b.admin('GET', '/admin/audit?limit=100')).json.events.map(
        (e: { action: string }) => e.action,
      );
      assert.deepEqual(events, [
        'ceremony.registration',
        'credential.rename',
        'application.disable',
        'application.enable',
        'credential.delete',
      ]);
      const ready = (await (await fetch(`${a.ops.admin!.url}/ready`)).json()) as { checks: Record<string, string> };
      assert.deepEqual(ready.checks, {
        credentials: 'ok',
        challenges: 'ok',
        applications: 'ok',
        audit: 'ok',
        'rate-limits': 'ok',
      });
    } finally {
      await a.ops.shutdown([]);
      await b.ops.shutdown([]);
    }
  });
});
