// A user's data, deleted: DELETE /admin/applications/{clientId}/credentials?username=… over a real socket
// and `admin credential delete <clientId> --username …`, each deleting every credential of that user and
// no one else's, audited with how many.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { seedApplications } from '../../src/applications/directory.js';
import { runAdminCli } from '../../src/admin/cli.js';
import { AdminActions } from '../../src/admin/actions.js';
import { Readiness } from '../../src/runtime/readiness.js';
import { startAdminServer, type AdminServer } from '../../src/admin/server.js';
import { MemoryAdminTokenStore } from '../../src/admin/tokens.js';
import { deriveUserHandle } from '../../src/ceremonies/user-handle.js';
import { MetricsRegistry } from '../../src/metrics/index.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { RelaySecretAdmin } from '../../src/admin/relay-secret-admin.js';
import { MemoryRelaySecretStore } from '../../src/stores/memory/relay-secrets.js';
import { applicationConfig } from '../support/harness.js';
import { captureLog, credential, testRuntime } from '../support/admin-fixtures.js';
import { POST_QUANTUM_ALGORITHMS } from '../../src/webauthn/cose.js';

const KEY = Buffer.alloc(32, 7);
const APP = 'demo-client';
const handleOf = (username: string) => deriveUserHandle(KEY, APP, username);

describe('deleting every credential of a user', () => {
  const runtime = testRuntime();
  const credentials = new MemoryCredentialStore();
  const auditStore = new MemoryAuditStore();
  const audit = new AuditLog(auditStore, runtime, captureLog());
  const tokens = new MemoryAdminTokenStore(runtime);
  const applications = new MemoryApplicationStore();
  const actions = new AdminActions({
    applications,
    credentials,
    audit,
    runtime,
    userHandleKey: KEY,
    postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
  });
  let server: AdminServer;
  let token = '';
  const add = async (username: string, count: number) => {
    for (let i = 0; i < count; i += 1)
      await credentials.create(credential({ username, userHandle: handleOf(username) }));
  };
  const call = async (method: string, path: string) => {
    const response = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, json: (await response.json()) as any };
  };

  before(async () => {
    await seedApplications(applications, [applicationConfig({ clientId: APP })], runtime.now());
    await add('alice#idp.example.test', 3);
    await add('bob#idp.example.test', 2);
    await add('carol#idp.example.test', 1);
    token = (await tokens.create('erasure')).token;
    server = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      actions,
      audit,
      tokens,
      readiness: new Readiness([], 500),
      registry: new MetricsRegistry(),
      runtime,
      log: captureLog(),
      openapi: () => ({}),
    });
  });
  after(async () => server.close());

  it("the admin API deletes all of one user's credentials, answers how many, and audits it; other users keep theirs", async () => {
    const answer = await call(
      'DELETE',
      `/admin/applications/${APP}/credentials?username=${encodeURIComponent('alice#idp.example.test')}`,
    );
    assert.deepEqual(answer, { status: 200, json: { clientId: APP, username: 'alice#idp.example.test', deleted: 3 } });
    assert.equal((await credentials.listByUser(APP, handleOf('alice#idp.example.test'))).length, 0);
    assert.equal((await credentials.listByUser(APP, handleOf('bob#idp.example.test'))).length, 2);
    const [event] = await audit.query({ action: 'credential.delete-user', limit: 10 });
    assert.equal(event?.actor, 'admin:erasure');
    assert.equal(event?.subject, 'alice#idp.example.test');
    assert.equal(event?.result, 'ok');
    assert.deepEqual(event?.details, { deleted: 3 });
  });

  it('a user without credentials (again) deletes 0; no user named is refused, never "everyone"', async () => {
    assert.deepEqual(
      (
        await call(
          'DELETE',
          `/admin/applications/${APP}/credentials?username=${encodeURIComponent('alice#idp.example.test')}`,
        )
      ).json.deleted,
      0,
    );
    const refused = await call('DELETE', `/admin/applications/${APP}/credentials`);
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, 'INVALID_REQUEST');
    assert.equal((await credentials.listByUser(APP, handleOf('bob#idp.example.test'))).length, 2);
    assert.equal(
      (await call('DELETE', `/admin/applications/nope/credentials?username=x%23y`)).json.error,
      'APPLICATION_NOT_FOUND',
    );
  });

  it('the CLI does the same: admin credential delete <clientId> --username …, and by --user-handle', async () => {
    const run = async (...args: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runAdminCli(
        args,
        {
          stdout: {
            write: (t: string) => {
              stdout += t;
            },
          },
          stderr: {
            write: (t: string) => {
              stderr += t;
            },
          },
        },
        {
          tokens: async () => tokens as never,
          open: async () => ({
            actions,
            audit,
            relaySecrets: new RelaySecretAdmin({ applications, secrets: new MemoryRelaySecretStore(), audit, runtime }),
            close: async () => {},
          }),
          actor: 'cli:tester',
        },
      );
      return { code, stdout, stderr };
    };
    const byName = await run('credential', 'delete', APP, '--username', 'bob#idp.example.test');
    assert.equal(byName.code, 0, byName.stderr);
    assert.deepEqual(JSON.parse(byName.stdout), { clientId: APP, username: 'bob#idp.example.test', deleted: 2 });
    const byHandle = await run('credential', 'delete', APP, '--user-handle', handleOf('carol#idp.example.test'));
    assert.equal(byHandle.code, 0, byHandle.stderr);
    assert.deepEqual(JSON.parse(byHandle.stdout), { clientId: APP, username: 'carol#idp.example.test', deleted: 1 });
    const events = await audit.query({ action: 'credential.delete-user', limit: 10 });
    assert.ok(events.some((e) => e.actor === 'cli:tester' && e.subject === 'bob#idp.example.test'));
  });
});
