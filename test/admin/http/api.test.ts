import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog } from '../../../src/audit/index.js';
import { MemoryAuditStore } from '../../../src/stores/memory/audit.js';
import { MemoryApplicationStore } from '../../../src/stores/memory/applications.js';
import { StoredApplicationDirectory, seedApplications } from '../../../src/applications/directory.js';
import { AdminActions } from '../../../src/admin/actions.js';
import { Readiness } from '../../../src/runtime/readiness.js';
import { startAdminServer, type AdminServer } from '../../../src/admin/server.js';
import { MemoryAdminTokenStore } from '../../../src/admin/tokens.js';
import { MetricsRegistry } from '../../../src/metrics/index.js';
import { deriveUserHandle } from '../../../src/ceremonies/user-handle.js';
import type { ApplicationConfig } from '../../../src/service-config.js';
import { MemoryCredentialStore } from '../../../src/stores/memory/credentials.js';
import { captureLog, credential, testRuntime } from '../../support/admin-fixtures.js';
import { POST_QUANTUM_ALGORITHMS } from '../../../src/webauthn/cose.js';

const demo: ApplicationConfig = {
  clientId: 'demo-client',
  name: 'Demo IdP',
  icon: '',
  domain: 'demo.localhost',
  origins: ['https://demo.localhost:8443'],
  variants: ['standard', 'local'],
  localOrigins: ['https://localhost:8443'],
  timeoutMs: 180_000,
  algorithms: [-7, -257],
  userVerification: null,
  counterPolicy: 'strict',
  revealUnknownUsers: false,
  allowCrossOrigin: false,
  maxPasskeysPerUser: 100,
  attestation: { trustAnchors: [], requireTrusted: false, metadata: null, aaguidAllow: [], aaguidDeny: [] },
};

describe('admin API over a real socket (memory stores)', () => {
  const runtime = testRuntime();
  const log = captureLog();
  const applications = new MemoryApplicationStore();
  const credentials = new MemoryCredentialStore();
  const auditStore = new MemoryAuditStore();
  const audit = new AuditLog(auditStore, runtime, log);
  const tokens = new MemoryAdminTokenStore(runtime);
  const userHandleKey = Buffer.alloc(32, 7);
  const changed: string[] = [];
  const actions = new AdminActions({
    applications,
    credentials,
    audit,
    runtime,
    userHandleKey,
    onApplicationChange: (id) => changed.push(id),
    postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
  });
  let ready = true;
  const readiness = new Readiness(
    [
      {
        name: 'credentials',
        check: async () => {
          if (!ready) throw new Error('connection refused');
        },
      },
    ],
    500,
  );
  const registry = new MetricsRegistry();
  registry.counter('example_total', 'Example.').inc();
  let server: AdminServer;
  let token: string;
  const alice = deriveUserHandle(userHandleKey, 'demo-client', 'alice#demo.localhost');

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: type.startsWith('application/json') ? JSON.parse(text) : undefined,
    };
  };

  before(async () => {
    await seedApplications(applications, [demo], runtime.now());
    await credentials.create(credential({ credentialId: 'cred-a', userHandle: alice }));
    await credentials.create(
      credential({
        credentialId: 'cred-b',
        userHandle: alice,
        aaguid: '00000000-0000-0000-0000-000000000000',
        authenticatorName: 'Metadata Name',
      }),
    );
    await credentials.create(
      credential({
        credentialId: 'cred-c',
        userHandle: 'b3RoZXI',
        username: 'bob#demo.localhost',
        lastUsedAt: runtime.now(),
      }),
    );
    token = (await tokens.create('ops-test')).token;
    server = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      actions,
      audit,
      tokens,
      readiness,
      registry,
      runtime,
      log,
      openapi: () => ({ openapi: '3.1.0' }),
    });
  });
  after(async () => server.close());

  it('binds to 127.0.0.1 and answers /health without a token', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${server.url}/health`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
    assert.ok(response.headers.get('x-request-id'));
  });

  it('/ready pings the backends: 200 while they answer, 503 with the failing check while one does not', async () => {
    assert.equal((await call('GET', '/ready')).status, 200);
    ready = false;
    try {
      const down = await call('GET', '/ready');
      assert.equal(down.status, 503);
      assert.equal(down.json.status, 'not ready');
      assert.match(down.json.checks.credentials, /^unavailable: connection refused/);
    } finally {
      ready = true;
    }
  });

  it('/metrics serves the text exposition format; /openapi.json the document', async () => {
    const metrics = await fetch(`${server.url}/metrics`);
    assert.equal(metrics.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(await metrics.text(), /^example_total 1$/m);
    assert.deepEqual((await call('GET', '/openapi.json')).json, { openapi: '3.1.0' });
  });

  it('refuses /admin/ without a valid bearer token (401, WWW-Authenticate), and never logs the token', async () => {
    for (const headers of [
      { authorization: '' },
      { authorization: 'Bearer pks_admin_wrong' },
      { authorization: `Basic ${token}` },
    ]) {
      const answer = await call('GET', '/admin/applications', undefined, headers);
      assert.equal(answer.status, 401);
      assert.equal(answer.json.error, 'UNAUTHORIZED');
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
    assert.ok(!JSON.stringify(log.lines).includes(token));
  });

  it('lists and shows applications, with approval and active variants', async () => {
    const list = await call('GET', '/admin/applications');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.json.applications.map((a: { clientId: string }) => a.clientId),
      ['demo-client'],
    );
    const shown = await call('GET', '/admin/applications/demo-client');
    assert.equal(shown.json.approved, true);
    assert.deepEqual(shown.json.activeVariants, ['standard', 'local']);
    assert.equal(shown.json.source, 'config');
    assert.equal((await call('GET', '/admin/applications/nope')).json.error, 'APPLICATION_NOT_FOUND');
  });

  it('creates an application with a generated Client ID, updates, approves, disables, enables and deletes it, auditing each step', async () => {
    const created = await call('POST', '/admin/applications', {
      name: 'Shop',
      domain: 'shop.example.test',
      origins: ['https://shop.example.test'],
      variants: ['standard', 'local'],
    });
    assert.equal(created.status, 201, created.text);
    const id: string = created.json.clientId;
    assert.match(id, /^app-[a-z2-7]{24}$/);
    assert.equal(created.json.approved, false);
    assert.deepEqual(created.json.activeVariants, ['local']);

    const updated = await call('PATCH', `/admin/applications/${id}`, {
      origins: ['https://shop.example.test', 'https://www.shop.example.test'],
      attestation: { requireTrusted: false },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.origins, ['https://shop.example.test', 'https://www.shop.example.test']);

    const approved = await call('POST', `/admin/applications/${id}/approve`);
    assert.equal(approved.json.approved, true);
    assert.deepEqual(approved.json.activeVariants, ['standard', 'local']);
    // A new domain needs a new approval.
    const moved = await call('PATCH', `/admin/applications/${id}`, {
      domain: 'shop2.example.test',
      origins: ['https://shop2.example.test'],
    });
    assert.equal(moved.json.approved, false);

    assert.equal((await call('POST', `/admin/applications/${id}/disable`)).json.disabled, true);
    assert.equal((await call('POST', `/admin/applications/${id}/enable`)).json.disabled, false);
    const deleted = await call('DELETE', `/admin/applications/${id}`);
    assert.deepEqual(deleted.json, { clientId: id, deletedCredentials: 0 });
    assert.equal((await call('GET', `/admin/applications/${id}`)).status, 404);
    assert.ok(changed.includes(id));

    const events = (await call('GET', `/admin/audit?clientId=${id}`)).json.events;
    assert.deepEqual(
      events.map((e: { action: string }) => e.action),
      [
        'application.create',
        'application.update',
        'application.approve',
        'application.update',
        'application.disable',
        'application.enable',
        'application.delete',
      ],
    );
    assert.ok(
      events.every((e: { actor: string; result: string }) => e.actor === 'admin:ops-test' && e.result === 'ok'),
    );
  });

  it('refuses invalid applications with every problem listed, and audits the failure', async () => {
    const bad = await call('POST', '/admin/applications', {
      name: 'X',
      domain: 'not a domain',
      origins: ['ftp://x'],
      bogus: 1,
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 'INVALID_REQUEST');
    assert.ok(bad.json.problems.length >= 2, bad.text);
    assert.equal(
      (await call('POST', '/admin/applications', { clientId: 'mine', name: 'X', domain: 'x.example.test' })).status,
      400,
    );
    assert.equal((await call('POST', '/admin/applications', '{not json')).json.error, 'MALFORMED_JSON');
    assert.equal((await call('POST', '/admin/applications', 'x', { 'content-type': 'text/plain' })).status, 415);
    assert.equal((await call('POST', '/admin/applications', { name: 'x'.repeat(70_000) })).status, 413);
    const failures = (await call('GET', '/admin/audit?action=application.create&result=failed')).json.events;
    assert.ok(failures.length >= 2);
    assert.equal(failures[0].errorName, 'INVALID_REQUEST');
  });

  it('maxPasskeysPerUser (issue 35): shown with its default, taken on create and update, refused out of range', async () => {
    assert.equal((await call('GET', '/admin/applications/demo-client')).json.maxPasskeysPerUser, 100);
    const created = await call('POST', '/admin/applications', {
      name: 'Limited',
      domain: 'limited.example.test',
      maxPasskeysPerUser: 5,
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.maxPasskeysPerUser, 5);
    const id: string = created.json.clientId;
    const raised = await call('PATCH', `/admin/applications/${id}`, { maxPasskeysPerUser: 700 });
    assert.equal(raised.status, 200, raised.text);
    assert.equal((await call('GET', `/admin/applications/${id}`)).json.maxPasskeysPerUser, 700);
    for (const wrong of [0, 10_001, 2.5, '10', null]) {
      const refused = await call('PATCH', `/admin/applications/${id}`, { maxPasskeysPerUser: wrong });
      assert.equal(refused.status, 400, `${JSON.stringify(wrong)}: ${refused.text}`);
      assert.equal(refused.json.error, 'INVALID_REQUEST');
      assert.match(refused.json.problems.join('\n'), /maxPasskeysPerUser: must be an integer from 1 to 10000/);
    }
    assert.equal((await call('GET', `/admin/applications/${id}`)).json.maxPasskeysPerUser, 700);
    await call('DELETE', `/admin/applications/${id}`);
  });

  it('answers 404 and 405 (with Allow) for unknown paths and methods', async () => {
    assert.equal((await call('GET', '/admin/nothing')).json.error, 'NOT_FOUND');
    const wrong = await call('PUT', '/admin/applications');
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'GET, POST');
    assert.equal((await call('POST', '/health')).status, 405);
  });

  it('lists the credentials of a user by username or user handle, with authenticator names', async () => {
    const byName = await call(
      'GET',
      `/admin/applications/demo-client/credentials?username=${encodeURIComponent('alice#demo.localhost')}`,
    );
    assert.equal(byName.status, 200);
    assert.deepEqual(byName.json.credentials.map((c: { credentialId: string }) => c.credentialId).sort(), [
      'cred-a',
      'cred-b',
    ]);
    const a = byName.json.credentials.find((c: { credentialId: string }) => c.credentialId === 'cred-a');
    assert.equal(a.authenticatorName, 'Google Password Manager');
    assert.deepEqual(a.transports, ['internal', 'hybrid']);
    assert.equal(a.backupEligible, true);
    assert.equal(a.attestationTrusted, false);
    assert.equal(a.createdAt, new Date(runtime.now() - 86_400_000).toISOString());
    assert.equal(a.lastUsedAt, null);
    assert.equal('publicKey' in a, false);
    const b = byName.json.credentials.find((c: { credentialId: string }) => c.credentialId === 'cred-b');
    assert.equal(b.authenticatorName, 'Metadata Name');
    const byHandle = await call('GET', `/admin/applications/demo-client/credentials?userHandle=${alice}`);
    assert.equal(byHandle.json.credentials.length, 2);
  });

  it('pages through every credential of an application', async () => {
    const first = await call('GET', '/admin/applications/demo-client/credentials?limit=2');
    assert.deepEqual(
      first.json.credentials.map((c: { credentialId: string }) => c.credentialId),
      ['cred-a', 'cred-b'],
    );
    assert.equal(first.json.next, 'cred-b');
    const second = await call('GET', `/admin/applications/demo-client/credentials?limit=2&after=${first.json.next}`);
    assert.deepEqual(
      second.json.credentials.map((c: { credentialId: string }) => c.credentialId),
      ['cred-c'],
    );
    assert.equal(second.json.next, null);
    assert.equal((await call('GET', '/admin/applications/demo-client/credentials?limit=0')).status, 400);
  });

  it('shows, renames and deletes a credential, auditing who did it', async () => {
    assert.equal(
      (await call('GET', '/admin/applications/demo-client/credentials/cred-c')).json.username,
      'bob#demo.localhost',
    );
    const renamed = await call('PATCH', '/admin/applications/demo-client/credentials/cred-c', {
      nickname: 'Work phone',
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json.nickname, 'Work phone');
    assert.equal(
      (await call('PATCH', '/admin/applications/demo-client/credentials/cred-c', { nickname: '' })).status,
      400,
    );
    assert.equal(
      (await call('PATCH', '/admin/applications/demo-client/credentials/cred-c', { nickname: 'x', signCount: 9 }))
        .status,
      400,
    );
    assert.equal((await call('DELETE', '/admin/applications/demo-client/credentials/cred-c')).json.deleted, true);
    const again = await call('DELETE', '/admin/applications/demo-client/credentials/cred-c');
    assert.equal(again.status, 404);
    assert.equal(again.json.error, 'CREDENTIAL_NOT_FOUND');
    assert.equal(await credentials.find('demo-client', 'cred-c'), undefined);
    const events = (await call('GET', '/admin/audit?action=credential.')).json.events;
    assert.deepEqual(
      events.map((e: { action: string; result: string }) => `${e.action}:${e.result}`),
      // Every refused body is audited as its change failed, one with an unknown field too (routes.ts `audit`).
      [
        'credential.rename:ok',
        'credential.rename:failed',
        'credential.rename:failed',
        'credential.delete:ok',
        'credential.delete:failed',
      ],
    );
    assert.equal(events[3].target, 'cred-c');
    assert.equal(events[3].subject, 'bob#demo.localhost');
    assert.equal(events[3].actor, 'admin:ops-test');
    assert.ok(events[3].requestId);
  });

  it('exports the audit log as JSON lines, and pages it', async () => {
    const response = await fetch(`${server.url}/admin/audit/export`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
    const text = await response.text();
    const lines = text.split('\n');
    assert.equal(lines.pop(), '');
    const events = lines.map((line) => JSON.parse(line));
    assert.ok(events.length >= 10);
    assert.deepEqual(
      events.map((e) => e.id),
      [...events.map((e) => e.id)].sort(),
    );
    const page = await call('GET', '/admin/audit?limit=3');
    assert.equal(page.json.events.length, 3);
    const next = await call('GET', `/admin/audit?limit=3&after=${page.json.next}`);
    assert.equal(next.json.events[0].id, events[3].id);
    assert.equal((await call('GET', '/admin/audit?since=yesterday')).status, 400);
  });

  it('writes one log line per admin request with its request id and actor', () => {
    const requests = log.lines.filter((l) => l.fields.event === 'admin_request');
    assert.ok(requests.length > 10);
    assert.ok(requests.every((l) => typeof l.fields.requestId === 'string' && typeof l.fields.status === 'number'));
    assert.ok(requests.some((l) => l.fields.actor === 'admin:ops-test'));
  });
});

describe('admin listener options', () => {
  it('metricsRequireToken puts /metrics behind the admin token; a taken port is refused', async () => {
    const runtime = testRuntime();
    const log = captureLog();
    const tokens = new MemoryAdminTokenStore(runtime);
    const token = (await tokens.create('scraper')).token;
    const audit = new AuditLog(new MemoryAuditStore(), runtime);
    const actions = new AdminActions({
      applications: new MemoryApplicationStore(),
      credentials: new MemoryCredentialStore(),
      audit,
      runtime,
      postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
    });
    const deps = {
      actions,
      audit,
      tokens,
      readiness: new Readiness([]),
      registry: new MetricsRegistry(),
      runtime,
      log,
      metricsRequireToken: true,
    };
    const server = await startAdminServer({ ...deps, port: 0 });
    try {
      assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
      assert.equal(
        (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status,
        200,
      );
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      await assert.rejects(startAdminServer({ ...deps, port: server.port }), /EADDRINUSE/);
    } finally {
      await server.close();
    }
  });
});

describe('StoredApplicationDirectory', () => {
  it('finds active applications with effective variants, hides disabled ones, and caches for cacheMs', async () => {
    const runtime = testRuntime();
    const store = new MemoryApplicationStore();
    let built = 0;
    const directory = new StoredApplicationDirectory({
      store,
      now: runtime.now,
      cacheMs: 1000,
      buildTrust: () => {
        built += 1;
        return {} as never;
      },
    });
    await store.create({ config: demo, approved: false, disabled: false, source: 'admin', createdAt: 0, updatedAt: 0 });
    const found = await directory.find('demo-client');
    assert.deepEqual(found?.variants, ['local']);
    assert.equal(directory.isKnown('demo-client'), true);
    assert.equal(await directory.find('unknown'), undefined);
    assert.equal(directory.isKnown('unknown'), false);
    await store.update({ config: demo, approved: true, disabled: true, source: 'admin', createdAt: 0, updatedAt: 1 });
    assert.deepEqual((await directory.find('demo-client'))?.variants, ['local'], 'cached');
    runtime.advance(1001);
    assert.equal(await directory.find('demo-client'), undefined, 'disabled after the cache interval');
    await store.update({ config: demo, approved: true, disabled: false, source: 'admin', createdAt: 0, updatedAt: 2 });
    directory.invalidate('demo-client');
    assert.deepEqual((await directory.find('demo-client'))?.variants, ['standard', 'local']);
    assert.equal(built, 1, 'one trust evaluator per distinct policy');
  });

  it('isKnown works without a cache too (metrics labels), and forgets disabled applications', async () => {
    const runtime = testRuntime();
    const store = new MemoryApplicationStore();
    const directory = new StoredApplicationDirectory({
      store,
      now: runtime.now,
      cacheMs: 0,
      buildTrust: () => ({}) as never,
    });
    await store.create({ config: demo, approved: true, disabled: false, source: 'admin', createdAt: 0, updatedAt: 0 });
    assert.equal(directory.isKnown('demo-client'), false);
    assert.ok(await directory.find('demo-client'));
    assert.equal(directory.isKnown('demo-client'), true);
    await store.update({ config: demo, approved: true, disabled: true, source: 'admin', createdAt: 0, updatedAt: 1 });
    assert.equal(await directory.find('demo-client'), undefined, 'no cache: the change is seen at once');
    assert.equal(directory.isKnown('demo-client'), false);
  });

  it('seeds from the config file, refreshes config-owned records, keeps admin-changed ones', async () => {
    const store = new MemoryApplicationStore();
    assert.deepEqual(await seedApplications(store, [demo], 1), { created: ['demo-client'], updated: [], kept: [] });
    assert.deepEqual(await seedApplications(store, [demo], 2), { created: [], updated: [], kept: [] });
    const renamed = { ...demo, name: 'Renamed' };
    assert.deepEqual(await seedApplications(store, [renamed], 3), { created: [], updated: ['demo-client'], kept: [] });
    assert.equal((await store.get('demo-client'))?.config.name, 'Renamed');
    const record = (await store.get('demo-client'))!;
    await store.update({ ...record, source: 'admin', disabled: true });
    assert.deepEqual(await seedApplications(store, [demo], 4), { created: [], updated: [], kept: ['demo-client'] });
    assert.equal((await store.get('demo-client'))?.config.name, 'Renamed');
    assert.equal((await store.get('demo-client'))?.disabled, true);
  });
});
