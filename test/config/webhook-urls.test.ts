// The webhook URL rule, wherever a webhook URL is written: `https://` to a public address; `http://` only to
// a loopback host (127.0.0.1, [::1], localhost) and only when the top-level `webhookDelivery.allowLoopbackHttp`
// is true; a host that is a non-public address (or a localhost name) only with
// `webhookDelivery.allowPrivateAddresses`; never a control character. The config file (loadConfig) and an
// application body of the admin API (which follows the config file's rule, and resolves the host it sets)
// are checked both ways here; the admin API's own webhook paths in test/admin/http/webhooks.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/load.js';
import { redactedUrl, webhookUrlProblem } from '../../src/config/webhook-urls.js';
import { fakeResolver } from '../support/resolver.js';
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

const OPEN = { allowLoopbackHttp: true, allowPrivateAddresses: true };
const STRICT = { allowLoopbackHttp: false, allowPrivateAddresses: false };

function load(url: string, allowLoopbackHttp?: boolean, allowPrivateAddresses = allowLoopbackHttp) {
  const dir = tempDir();
  const file = writeFile(dir, 'config.json', {
    ...(allowLoopbackHttp === undefined ? {} : { webhookDelivery: { allowLoopbackHttp, allowPrivateAddresses } }),
    applications: [minimalApp({ webhooks: [{ url, secret: SECRET }] })],
  });
  return () => loadConfig({ file, env: {}, cwd: dir });
}

describe('the webhook URL rule', () => {
  it('webhookUrlProblem: https always; http to a loopback host only when allowed; nothing else', () => {
    assert.equal(webhookUrlProblem('https://hooks.example/x', STRICT), undefined);
    assert.equal(webhookUrlProblem('https://127.0.0.1/x', OPEN), undefined);
    for (const url of LOOPBACK) {
      assert.equal(webhookUrlProblem(url, OPEN), undefined, url);
      assert.match(webhookUrlProblem(url, STRICT) ?? '', /allowLoopbackHttp/, url);
      // http:// to loopback allowed, private addresses not: still refused, and the message says which switch.
      const noPrivate = { allowLoopbackHttp: true, allowPrivateAddresses: false };
      assert.match(webhookUrlProblem(url, noPrivate) ?? '', /loopback .*allowPrivateAddresses/, url);
    }
    for (const url of NEVER) {
      assert.notEqual(webhookUrlProblem(url, OPEN), undefined, url);
      assert.notEqual(webhookUrlProblem(url, STRICT), undefined, url);
    }
  });

  it('a host that is a non-public address, however spelt, needs allowPrivateAddresses', () => {
    const https = { allowLoopbackHttp: false, allowPrivateAddresses: false };
    const refused: [string, RegExp][] = [
      ['https://127.0.0.1/x', /is a loopback address/],
      ['https://127.1/x', /is a loopback address/],
      ['https://0x7f.0.0.1/x', /is a loopback address/],
      ['https://2130706433/x', /is a loopback address/],
      ['https://017700000001/x', /is a loopback address/],
      ['https://0/x', /is an unspecified address/],
      ['https://[::1]/x', /is a loopback address/],
      ['https://[::]/x', /is an unspecified address/],
      ['https://[::ffff:127.0.0.1]/x', /is a loopback address/],
      ['https://[::ffff:7f00:1]/x', /is a loopback address/],
      ['https://[0:0:0:0:0:ffff:10.1.2.3]/x', /is a private address/],
      ['https://[64:ff9b::a9fe:a9fe]/x', /is a link-local address/],
      ['https://[2002:c0a8:0101::1]/x', /is a private address/],
      ['https://10.0.0.1/x', /is a private address/],
      ['https://172.31.255.255/x', /is a private address/],
      ['https://192.168.1.1/x', /is a private address/],
      ['https://100.64.0.1/x', /is a private address/],
      ['https://169.254.169.254/latest/meta-data', /is a link-local address/],
      ['https://[fe80::1]/x', /is a link-local address/],
      ['https://[fd00:ec2::254]/x', /is a unique-local address/],
      ['https://[fc00::1]/x', /is a unique-local address/],
      ['https://224.0.0.1/x', /is a multicast address/],
      ['https://[ff02::1]/x', /is a multicast address/],
      ['https://255.255.255.255/x', /is a reserved address/],
      ['https://192.0.2.1/x', /is a reserved address/],
      ['https://[2001:db8::1]/x', /is a reserved address/],
      ['https://[::127.0.0.1]/x', /is a reserved address/],
      ['https://localhost/x', /loopback name/],
      ['https://api.localhost./x', /loopback name/],
    ];
    for (const [url, why] of refused) {
      const problem = webhookUrlProblem(url, https) ?? '';
      assert.match(problem, why, url);
      assert.match(problem, /allowPrivateAddresses/, url);
      assert.equal(webhookUrlProblem(url, { ...https, allowPrivateAddresses: true }), undefined, url);
    }
    for (const url of ['https://93.184.215.14/x', 'https://[2606:4700::6810:84e5]/x', 'https://[::ffff:8.8.8.8]/x'])
      assert.equal(webhookUrlProblem(url, https), undefined, url);
  });

  it('a control character anywhere in the URL is refused, under every rule', () => {
    for (const url of [
      'https://hooks.example/a\u0000b',
      'https://hooks.example/\u0007',
      'https://hooks.example/x\u007f',
      'https://hooks.example/?a=\u0085',
      '\u0000https://hooks.example/',
    ])
      for (const rules of [OPEN, STRICT])
        assert.equal(webhookUrlProblem(url, rules), 'must not contain control characters', JSON.stringify(url));
  });

  it('shown: the query redacted; the redacted form is refused as a URL', () => {
    assert.equal(redactedUrl('https://hooks.example/in?token=s3cret&x=1'), 'https://hooks.example/in?…');
    assert.equal(redactedUrl('https://hooks.example/in'), 'https://hooks.example/in');
    assert.match(webhookUrlProblem('https://hooks.example/in?…', STRICT) ?? '', /redacted/);
  });

  it('the config file: http:// to a loopback host needs webhookDelivery.allowLoopbackHttp: true', () => {
    assert.equal(load('https://hooks.example/x')().applications[0]?.webhooks?.[0]?.url, 'https://hooks.example/x');
    for (const url of LOOPBACK) {
      assert.equal(load(url, true)().applications[0]?.webhooks?.length, 1, url);
      assertProblem(problemsOf(load(url)), 'applications[0].webhooks[0].url', 'allowLoopbackHttp');
      assertProblem(problemsOf(load(url, false)), 'applications[0].webhooks[0].url', 'allowLoopbackHttp');
      assertProblem(problemsOf(load(url, true, false)), 'applications[0].webhooks[0].url', 'allowPrivateAddresses');
    }
    assertProblem(problemsOf(load('https://10.1.2.3/x')), 'applications[0].webhooks[0].url', 'private address');
    assertProblem(problemsOf(load('https://a/\u0000')), 'applications[0].webhooks[0].url', 'control characters');
    for (const url of NEVER) assertProblem(problemsOf(load(url, true)), 'applications[0].webhooks[0].url');
  });

  it('an application body of the admin API follows the same rule, with the service’s allowLoopbackHttp', async () => {
    const runtime = testRuntime();
    const resolver = fakeResolver({ 'hooks.example': ['93.184.215.14'], 'inside.example': ['10.9.8.7'] });
    const actionsWith = async (allow: boolean) => {
      const applications = new MemoryApplicationStore();
      await seedApplications(applications, [load('https://hooks.example/x')().applications[0]!], runtime.now());
      return new AdminActions({
        applications,
        credentials: new MemoryCredentialStore(),
        audit: new AuditLog(new MemoryAuditStore(), runtime, captureLog()),
        runtime,
        webhookRules: { allowLoopbackHttp: allow, allowPrivateAddresses: allow },
        resolveHost: resolver.resolve,
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

    // A host name is resolved when an application body sets it: one that leads inside is refused, nothing stored.
    const inside = webhooks('https://inside.example/x');
    await assert.rejects(refusing.updateApplication(actor, 'app-1', inside), (error: unknown) => {
      assert.ok(error instanceof AdminError && error.code === 'INVALID_REQUEST');
      assert.match(error.problems?.join('\n') ?? '', /webhooks\[0\]\.url: the host resolves to a private address/);
      assert.doesNotMatch(error.problems?.join('\n') ?? '', /10\.9\.8\.7/, 'the address is not repeated');
      return true;
    });
    assert.equal((await refusing.getApplication('app-1')).webhooks?.[0]?.url, 'https://hooks.example/x');
    await assert.rejects(
      refusing.createApplication(actor, { name: 'In', domain: 'in.example', ...inside }),
      AdminError,
    );
    assert.equal(
      (await allowing.updateApplication(actor, 'app-1', inside)).webhooks?.[0]?.url,
      'https://inside.example/x',
    );
    // Lists show a URL without its query.
    const withQuery = await refusing.updateApplication(actor, 'app-1', webhooks('https://hooks.example/x?token=t0k'));
    assert.equal(withQuery.webhooks?.[0]?.url, 'https://hooks.example/x?…');
  });
});
