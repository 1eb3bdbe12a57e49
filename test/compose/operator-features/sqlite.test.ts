// The whole admin path on the default deployment's real stores: SQLite credentials (src/stores/sqlite/credentials.ts),
// SQLite applications and audit log, the HTTP app and the admin listener; then a restart on the same file.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../../src/http/app.js';
import { startOperatorFeatures, type OperatorFeatures } from '../../../src/compose/operator-features.js';
import { defaultOpsOptions } from '../../../src/config/ops.js';
import { SqliteApplicationStore } from '../../../src/stores/sqlite/applications.js';
import { SqliteAuditStore } from '../../../src/stores/sqlite/audit.js';
import { MemoryAdminTokenStore } from '../../../src/admin/tokens.js';
import { openSqliteCredentialStore } from '../../../src/stores/sqlite/credentials.js';
import { MemoryChallengeStore } from '../../../src/stores/memory/challenges.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import {
  CLIENT_ID,
  Flow,
  type Harness,
  ORIGIN,
  VENDOR,
  applicationConfig,
  serviceConfig,
  username,
} from '../../support/harness.js';
import { captureLog, testRuntime } from '../../support/admin-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'ops-sqlite-e2e-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'fido2.db');
const secrets = { userHandleKey: Buffer.alloc(32, 7), localBlobKeys: [{ id: 'k1', key: Buffer.alloc(32, 9) }] };

async function boot(runtime: ReturnType<typeof testRuntime>) {
  const log = captureLog();
  const config = serviceConfig([applicationConfig()], { database: { kind: 'sqlite', path: file } });
  const tokens = new MemoryAdminTokenStore(runtime);
  const token = (await tokens.create('e2e')).token;
  const base = defaultOpsOptions(dir);
  const ops: OperatorFeatures = await startOperatorFeatures({
    config,
    runtime,
    log,
    tokens,
    secrets,
    options: { ...base, admin: { ...base.admin, port: 0 } },
    credentials: await openSqliteCredentialStore(file),
    challenges: new MemoryChallengeStore({ clock: runtime.now }),
    applicationStore: new SqliteApplicationStore(file),
    auditStore: new SqliteAuditStore(file),
    buildTrust: (policy) => createTrustEvaluator({ anchors: [], requireTrusted: policy.requireTrusted }),
  });
  const app = buildApp({
    config,
    applications: ops.applications,
    credentials: ops.credentials,
    challenges: ops.challenges,
    secrets,
    runtime,
    log,
    hooks: ops.hooks,
  });
  const post = (path: string, body: unknown, o: { origin?: string | null } = {}) =>
    app.inject({
      method: 'POST',
      url: path,
      body: JSON.stringify(body),
      headers: {
        'content-type': 'application/json',
        'user-agent': `${VENDOR} AppID: ${CLIENT_ID}`,
        ...(o.origin === null ? {} : { origin: o.origin ?? ORIGIN }),
      },
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
  return { ops, post, admin, flow: (user: string) => new Flow({ post } as unknown as Harness, username(user)) };
}

describe('admin on the SQLite stores, across a restart', () => {
  it('lists, renames and deletes real credentials; keeps admin changes and the audit log across a restart', async () => {
    const runtime = testRuntime();
    const first = await boot(runtime);
    try {
      for (const user of ['ann', 'ann', 'ben']) assert.equal((await first.flow(user).register()).res.status, 200);
      const all = await first.admin('GET', `/admin/applications/${CLIENT_ID}/credentials?limit=2`);
      assert.equal(all.status, 200, JSON.stringify(all.json));
      assert.equal(all.json.credentials.length, 2);
      assert.ok(all.json.next);
      const rest = await first.admin(
        'GET',
        `/admin/applications/${CLIENT_ID}/credentials?limit=2&after=${all.json.next}`,
      );
      assert.equal(rest.json.credentials.length, 1);
      assert.equal(rest.json.next, null);
      const ann = await first.admin(
        'GET',
        `/admin/applications/${CLIENT_ID}/credentials?username=${encodeURIComponent(username('ann'))}`,
      );
      assert.equal(ann.json.credentials.length, 2);
      const id = ann.json.credentials[0].credentialId as string;
      assert.equal(
        (await first.admin('PATCH', `/admin/applications/${CLIENT_ID}/credentials/${id}`, { nickname: 'Laptop' })).json
          .nickname,
        'Laptop',
      );
      assert.equal(
        (await first.admin('DELETE', `/admin/applications/${CLIENT_ID}/credentials/${id}`)).json.deleted,
        true,
      );
      assert.equal(
        (await first.admin('PATCH', `/admin/applications/${CLIENT_ID}`, { name: 'Renamed by admin' })).status,
        200,
      );
      const ready = await fetch(`${first.ops.admin!.url}/ready`);
      assert.equal(ready.status, 200);
    } finally {
      await first.ops.shutdown([]);
    }

    runtime.advance(60_000);
    const second = await boot(runtime);
    try {
      assert.deepEqual(second.ops.seed, { created: [], updated: [], kept: [CLIENT_ID] });
      assert.equal((await second.admin('GET', `/admin/applications/${CLIENT_ID}`)).json.name, 'Renamed by admin');
      const left = await second.admin('GET', `/admin/applications/${CLIENT_ID}/credentials`);
      assert.equal(left.json.credentials.length, 2);
      const audit = await second.admin('GET', '/admin/audit?limit=100');
      assert.deepEqual(
        audit.json.events.map((e: { action: string }) => e.action),
        [
          'ceremony.registration',
          'ceremony.registration',
          'ceremony.registration',
          'credential.rename',
          'credential.delete',
          'application.update',
        ],
      );
      const deleted = await second.admin('DELETE', `/admin/applications/${CLIENT_ID}`);
      assert.deepEqual(deleted.json, { clientId: CLIENT_ID, deletedCredentials: 2 });
      assert.equal((await second.post('/api/assertion/options', { username: username('ben') })).status, 403);
    } finally {
      await second.ops.shutdown([]);
    }
  });
});
