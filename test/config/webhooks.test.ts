// The webhook URL rule, wherever a webhook URL is written: `https://` anywhere; `http://` only to a loopback
// host (127.0.0.1, [::1], localhost) and only when the top-level `webhookDelivery.allowLoopbackHttp` is
// true. The config file (loadConfig) and an application body of the admin API (which follows the config
// file's rule) are checked both ways here; the admin API's own webhook paths in test/admin/http/webhooks.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/load.js';
import { webhookUrlProblem } from '../../src/config/webhooks.js';
import { AdminActions } from '../../src/admin/actions.js';
import { AdminError } from '../../src/admin/errors.js';
import { AuditLog } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { seedApplications } from '../../src/applications/directory.js';
import { assertProblem, minimalApp, problemsOf, tempDir, writeFile } from './support.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { POST_QUANTUM_ALGORITHMS } from '../../src/webauthn/cose.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const LOOPBACK = ['http://127.0.0.1:9/hooks', 'http://[::1]:9/hooks', 'http://localhost:9/hooks', 'http://LOCALHOST/'];
const NEVER = [
  'http://hooks.example/x',
  'http://127.0.0.2/x',
  'http://10.0.0.1/x',
  'http://localhost.hooks.example/x',
  'ws://127.0.0.1/x',
  'file:///etc/passwd',
  'https://user:pw@hooks.example/x',
  'https://hooks.example/x#part',
  'hooks.example/x',
];

function load(url: string, allowLoopbackHttp?: boolean) {
  const dir = tempDir();
  const file = writeFile(dir, 'config.json', {
    ...(allowLoopbackHttp === undefined ? {} : { webhookDelivery: { allowLoopbackHttp } }),
    applications: [minimalApp({ webhooks: [{ url, secret: SECRET }] })],
  });
  return () => loadConfig({ file, env: {}, cwd: dir });
}

describe('the webhook URL rule', () => {
  it('webhookUrlProblem: https always; http to a loopback host only when allowed; nothing else', () => {
    assert.equal(webhookUrlProblem('https://hooks.example/x', false), undefined);
    assert.equal(webhookUrlProblem('https://127.0.0.1/x', false), undefined);
    for (const url of LOOPBACK) {
      assert.equal(webhookUrlProblem(url, true), undefined, url);
      assert.match(webhookUrlProblem(url, false) ?? '', /allowLoopbackHttp/, url);
    }
    for (const url of NEVER) {
      assert.notEqual(webhookUrlProblem(url, true), undefined, url);
      assert.notEqual(webhookUrlProblem(url, false), undefined, url);
    }
  });

  it('the config file: http:// to a loopback host needs webhookDelivery.allowLoopbackHttp: true', () => {
    assert.equal(load('https://hooks.example/x')().applications[0]?.webhooks?.[0]?.url, 'https://hooks.example/x');
    for (const url of LOOPBACK) {
      assert.equal(load(url, true)().applications[0]?.webhooks?.length, 1, url);
      assertProblem(problemsOf(load(url)), 'applications[0].webhooks[0].url', 'allowLoopbackHttp');
      assertProblem(problemsOf(load(url, false)), 'applications[0].webhooks[0].url', 'allowLoopbackHttp');
    }
    for (const url of NEVER) assertProblem(problemsOf(load(url, true)), 'applications[0].webhooks[0].url');
  });

  it('an application body of the admin API follows the same rule, with the service’s allowLoopbackHttp', async () => {
    const runtime = testRuntime();
    const actionsWith = async (allowLoopbackHttp: boolean) => {
      const applications = new MemoryApplicationStore();
      await seedApplications(applications, [load('https://hooks.example/x')().applications[0]!], runtime.now());
      return new AdminActions({
        applications,
        credentials: new MemoryCredentialStore(),
        audit: new AuditLog(new MemoryAuditStore(), runtime, captureLog()),
        runtime,
        allowLoopbackHttp,
        postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
      });
    };
    const actor = { name: 'test' } as never;
    const webhooks = (url: string) => ({ webhooks: [{ url, secret: SECRET }] });
    const allowing = await actionsWith(true);
    const refusing = await actionsWith(false);
    for (const url of LOOPBACK) {
      const updated = await allowing.updateApplication(actor, 'app-1', webhooks(url));
      assert.equal(updated.webhooks?.[0]?.url, url);
      await assert.rejects(refusing.updateApplication(actor, 'app-1', webhooks(url)), (error: unknown) => {
        assert.ok(error instanceof AdminError && error.code === 'INVALID_REQUEST');
        assert.match(error.problems?.join('\n') ?? '', /webhooks\[0\]\.url: .*allowLoopbackHttp/);
        return true;
      });
    }
    for (const url of NEVER)
      await assert.rejects(allowing.updateApplication(actor, 'app-1', webhooks(url)), AdminError, url);
  });
});
