// The OpenAPI document is kept true here: real answers of the service (buildApp through inject, driven by
// the soft authenticator) and of the admin listener (a real socket) are checked against the TypeBox schemas
// the document is generated from, found through the document's own paths.
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ATTESTATION_KEYS } from '../../src/config/application.js';
import { ERRORS } from '../../src/errors/catalogue.js';
import { ADMIN_ERRORS } from '../../src/admin/errors.js';
import { openApiDocument, openApiSchemas } from '../../src/admin/openapi.js';
import { POST_QUANTUM_ALGORITHMS } from '../../src/webauthn/cose.js';
import { checkComponent, checkResponse, matchPath } from '../support/openapi-lookup.js';
import { ADMIN_ROUTES } from '../../src/admin/routes.js';
import { WebhookAdmin } from '../../src/admin/webhook-admin.js';
import { Type, type TSchema } from '../../src/schemas/typebox.js';
import type { InjectResponse } from '../../src/http/app.js';
import { createRateLimitHooks } from '../../src/ratelimit/index.js';
import { MemoryBucketStore } from '../../src/stores/memory/buckets.js';
import { AuditLog } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { seedApplications } from '../../src/applications/directory.js';
import { AdminActions } from '../../src/admin/actions.js';
import { Readiness } from '../../src/runtime/readiness.js';
import { startAdminServer, type AdminServer } from '../../src/admin/server.js';
import { MemoryAdminTokenStore } from '../../src/admin/tokens.js';
import { MetricsRegistry } from '../../src/metrics/index.js';
import { CLIENT_ID, Flow, Harness, PATHS, applicationConfig, username } from '../support/harness.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { fakeResolver } from '../support/resolver.js';
import { webhookSecretBox } from '../../src/webhooks/secret-box.js';

const document = openApiDocument();
/** The webhook feature's routes: those served only when the listener has webhooks. */
const WEBHOOK_ROUTES = ADMIN_ROUTES.filter((route) => /\/(webhooks|marked-credentials)\b/.test(route.path));

function expectConforms(
  path: string,
  method: string,
  response: { status: number; headers: Record<string, string>; body: string },
): void {
  const problems = checkResponse(document, {
    path,
    method,
    status: response.status,
    contentType: response.headers['content-type'] ?? '',
    body: response.body,
    headers: response.headers,
  });
  assert.deepEqual(problems, [], `${method} ${path} → ${response.status} ${response.body.slice(0, 300)}`);
}

const component = (name: string) => (document.components as { schemas: Record<string, unknown> }).schemas[name];
const fromInject = (res: InjectResponse) => ({ status: res.status, headers: res.headers, body: res.body });

describe('the OpenAPI 3.1 document', () => {
  it('is OpenAPI 3.1 with the four actions and the admin API, and every reference resolves', () => {
    assert.equal(document.openapi, '3.1.0');
    const paths = Object.keys(document.paths as object);
    for (const path of Object.values(PATHS)) assert.ok(paths.includes(path), path);
    for (const path of [
      '/health',
      '/ready',
      '/metrics',
      '/admin/applications',
      '/admin/applications/{clientId}/credentials/{credentialId}',
      '/admin/audit/export',
      ...WEBHOOK_ROUTES.map((route) => route.path),
    ]) {
      assert.ok(paths.includes(path), path);
    }
    const refs: string[] = [];
    JSON.stringify(document, (key, value) => {
      if (key === '$ref') refs.push(value as string);
      return value;
    });
    assert.ok(refs.length > 20);
    const components = (document.components as { schemas: Record<string, unknown> }).schemas;
    for (const ref of refs)
      assert.ok(ref.startsWith('#/components/schemas/') && Object.hasOwn(components, ref.slice(21)), ref);
  });

  it('is plain JSON Schema 2020-12: no tuple `items` arrays, every component generated from its TypeBox schema', () => {
    const text = JSON.stringify(document);
    assert.doesNotMatch(text, /"additionalItems"|"detail"|"patternDetail"/);
    const components = (document.components as { schemas: Record<string, { prefixItems?: unknown }> }).schemas;
    assert.deepEqual(Object.keys(components).sort(), Object.keys(openApiSchemas()).sort());
    const envelope = components.FailedEnvelope as {
      properties: { errorMessage: { prefixItems: unknown[]; items: unknown } };
    };
    assert.deepEqual(
      [envelope.properties.errorMessage.prefixItems.length, envelope.properties.errorMessage.items],
      [2, false],
    );
  });

  it('the AttestationPolicy schema lists every key the config accepts (metadataCrls among them), each described', () => {
    const policy = component('AttestationPolicy') as {
      properties: Record<string, { description?: string; type?: unknown; items?: { type?: unknown } }>;
    };
    assert.deepEqual(Object.keys(policy.properties).sort(), [...ATTESTATION_KEYS].sort());
    for (const [key, schema] of Object.entries(policy.properties))
      assert.ok((schema.description ?? '').length > 0, `${key} has no description`);
    assert.deepEqual(
      [policy.properties.metadataCrls?.type, policy.properties.metadataCrls?.items?.type],
      ['array', 'string'],
    );
  });

  it('bounds the options requests by the configured limits', () => {
    const bounded = openApiDocument({ limits: { usernameLength: 64, displayNameLength: 32 } });
    const request = (
      bounded.components as { schemas: Record<string, { properties: Record<string, { maxLength?: number }> }> }
    ).schemas.AttestationOptionsRequest!;
    assert.deepEqual([request.properties.username?.maxLength, request.properties.displayName?.maxLength], [64, 32]);
  });

  it('lists every error name of the catalogue', () => {
    const names = (component('ErrorName') as { anyOf: { const: string }[] }).anyOf.map((c) => c.const);
    assert.deepEqual([...names].sort(), Object.keys(ERRORS).sort());
    const admin = (component('AdminErrorName') as { anyOf: { const: string }[] }).anyOf.map((c) => c.const);
    assert.deepEqual([...admin].sort(), Object.keys(ADMIN_ERRORS).sort());
  });
});

describe('real answers of the four actions conform to the document', () => {
  const hooks = createRateLimitHooks(
    { perApplication: null, perAddress: { burst: 1000, perSecond: 0.001 }, applications: {} },
    { store: new MemoryBucketStore(), now: () => 0 },
  );

  it('registration and authentication, standard variant, success and failure', async () => {
    const h = new Harness({ hooks });
    const flow = new Flow(h, username('alice'));
    const options = await h.post(PATHS.attestationOptions, {
      username: username('alice'),
      displayName: 'Alice',
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      attestation: 'none',
    });
    expectConforms(PATHS.attestationOptions, 'POST', fromInject(options));
    const registered = await flow.register();
    assert.equal(registered.res.status, 200, registered.res.body);
    expectConforms(PATHS.attestationResult, 'POST', fromInject(registered.res));
    // excludeCredentials now lists the credential.
    expectConforms(
      PATHS.attestationOptions,
      'POST',
      fromInject(await h.post(PATHS.attestationOptions, { username: username('alice') })),
    );
    expectConforms(
      PATHS.assertionOptions,
      'POST',
      fromInject(await h.post(PATHS.assertionOptions, { username: username('alice'), userVerification: 'required' })),
    );
    const signedIn = await flow.authenticate();
    assert.equal(signedIn.res.status, 200, signedIn.res.body);
    expectConforms(PATHS.assertionResult, 'POST', fromInject(signedIn.res));
    // A replay: SESSION_ALREADY_REVOKED.
    const replay = await h.post(PATHS.assertionResult, signedIn.credential);
    assert.equal(replay.status, 400);
    expectConforms(PATHS.assertionResult, 'POST', fromInject(replay));
    // Unknown user: fake allowCredentials, same shape.
    expectConforms(
      PATHS.assertionOptions,
      'POST',
      fromInject(await h.post(PATHS.assertionOptions, { username: username('nobody') })),
    );
  });

  it('the check fails when the document and a real answer disagree', async () => {
    const h = new Harness();
    const res = fromInject(await h.post(PATHS.attestationOptions, { username: username('dora') }));
    const schemas = openApiSchemas();
    const { extensions: _dropped, ...properties } = (
      schemas.AttestationOptionsResponse as TSchema & { properties: Record<string, TSchema> }
    ).properties;
    const altered = {
      ...schemas,
      AttestationOptionsResponse: Type.Object(
        { ...properties, timeout: Type.String() },
        { additionalProperties: false },
      ),
    };
    const problems = checkResponse(
      document,
      {
        path: PATHS.attestationOptions,
        method: 'POST',
        status: res.status,
        contentType: res.headers['content-type']!,
        body: res.body,
      },
      altered,
    );
    assert.ok(
      problems.some((p) => p.startsWith('/extensions: Unexpected property')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.startsWith('/timeout: Expected string')),
      problems.join('\n'),
    );
    assert.deepEqual(
      checkResponse(document, {
        path: '/api/other',
        method: 'POST',
        status: 404,
        contentType: 'application/json',
        body: '{}',
      }),
      ['/api/other: not in the document'],
    );
    assert.match(
      checkResponse(document, {
        path: PATHS.attestationOptions,
        method: 'POST',
        status: 418,
        contentType: 'application/json',
        body: '{}',
      })[0] ?? '',
      /status 418 not in the document/,
    );
  });

  it('local variant registration answers the localhost blob', async () => {
    const h = new Harness();
    const flow = new Flow(h, 'carol#localhost', {}, 'https://localhost:8443');
    const { res } = await flow.register({}, {}, (c) => ({ ...c, extensions: { ...c.extensions, localhost: true } }));
    assert.equal(res.status, 200, res.body);
    assert.equal(typeof res.json().localhost, 'string');
    expectConforms(PATHS.attestationResult, 'POST', fromInject(res));
  });

  it('failures: 400, 403, 405, 413, 415 and 429 (with Retry-After) are the failed envelope', async () => {
    const limited = new Harness({
      hooks: createRateLimitHooks(
        { perApplication: { burst: 1, perSecond: 0.01 }, perAddress: null },
        { store: new MemoryBucketStore(), now: () => 0 },
      ),
    });
    const first = await limited.post(PATHS.assertionOptions, { username: username('x') });
    expectConforms(PATHS.assertionOptions, 'POST', fromInject(first));
    const refused = await limited.post(PATHS.assertionOptions, { username: username('x') });
    assert.equal(refused.status, 429);
    assert.equal(refused.json().errorMessage[0], 'RATE_LIMITED');
    assert.equal(refused.headers['retry-after'], '100');
    expectConforms(PATHS.assertionOptions, 'POST', fromInject(refused));

    const h = new Harness();
    const cases: [string, InjectResponse][] = [
      [PATHS.attestationOptions, await h.post(PATHS.attestationOptions, { username: 42 })],
      [PATHS.attestationOptions, await h.post(PATHS.attestationOptions, '{nope')],
      [
        PATHS.attestationOptions,
        await h.post(PATHS.attestationOptions, { username: username('a') }, { clientId: 'unknown-client' }),
      ],
      [
        PATHS.attestationOptions,
        await h.post(PATHS.attestationOptions, { username: username('a') }, { clientId: null }),
      ],
      [
        PATHS.attestationOptions,
        await h.post(PATHS.attestationOptions, { username: username('a') }, { origin: 'https://evil.example' }),
      ],
      [
        PATHS.attestationOptions,
        await h.post(
          PATHS.attestationOptions,
          { username: username('a') },
          { headers: { 'content-type': 'text/plain' } },
        ),
      ],
      [PATHS.attestationOptions, await h.post(PATHS.attestationOptions, { username: 'x'.repeat(70_000) })],
      [
        PATHS.assertionResult,
        await h.post(PATHS.assertionResult, {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
        }),
      ],
    ];
    const statuses = new Set<number>();
    for (const [path, res] of cases) {
      statuses.add(res.status);
      expectConforms(path, 'POST', fromInject(res));
    }
    assert.deepEqual([...statuses].sort(), [400, 403, 413, 415]);
    const wrongMethod = await h.app.inject({ method: 'GET', url: PATHS.assertionOptions });
    assert.equal(wrongMethod.status, 405);
    assert.deepEqual(checkComponent('FailedEnvelope', wrongMethod.json()), []);
  });
});

describe('real answers of the admin listener conform to the document', () => {
  const runtime = testRuntime();
  const log = captureLog();
  const applications = new MemoryApplicationStore();
  const credentials = new MemoryCredentialStore();
  const audit = new AuditLog(new MemoryAuditStore(), runtime, log);
  const tokens = new MemoryAdminTokenStore(runtime);
  const actions = new AdminActions({
    applications,
    credentials,
    audit,
    runtime,
    userHandleKey: Buffer.alloc(32, 7),
    postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
  });
  let healthy = true;
  const readiness = new Readiness([
    {
      name: 'credentials',
      check: async () => {
        if (!healthy) throw new Error('down');
      },
    },
  ]);
  let server: AdminServer;
  let token = '';
  /** `METHOD /template` of every call made, to compare with the document's paths. */
  const called = new Set<string>();

  before(async () => {
    await seedApplications(applications, [applicationConfig()], runtime.now());
    // A real credential, registered through the four operations.
    const h = new Harness({ credentials });
    const { res } = await new Flow(h, username('alice')).register();
    assert.equal(res.status, 200, res.body);
    token = (await tokens.create('openapi')).token;
    server = await startAdminServer({
      port: 0,
      actions,
      audit,
      tokens,
      readiness,
      registry: new MetricsRegistry(),
      runtime,
      log,
      openapi: () => document,
      webhooks: new WebhookAdmin({
        applications,
        credentials,
        audit,
        runtime,
        urlRules: { allowLoopbackHttp: false, allowPrivateAddresses: false },
        resolveHost: fakeResolver({ 'idp.example.test': ['203.0.114.10'], 'a.test': ['203.0.114.11'] }).resolve,
        secretBox: webhookSecretBox([{ id: 'k1', key: randomBytes(32) }], randomBytes),
      }),
    });
  });
  after(async () => server.close());

  async function call(
    method: string,
    path: string,
    body?: unknown,
    auth = true,
  ): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(auth ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const answer = { status: response.status, headers, body: await response.text() };
    expectConforms(path, method, answer);
    called.add(`${method} ${matchPath(document, path)}`);
    return answer;
  }

  it('health, readiness (both ways), openapi.json', async () => {
    await call('GET', '/health', undefined, false);
    await call('GET', '/ready', undefined, false);
    healthy = false;
    assert.equal((await call('GET', '/ready', undefined, false)).status, 503);
    healthy = true;
    assert.deepEqual(JSON.parse((await call('GET', '/openapi.json', undefined, false)).body), document);
  });

  it('applications: list, create, show, update, approve, unapprove, disable, enable, delete, and their errors', async () => {
    await call('GET', '/admin/applications');
    assert.equal((await call('GET', '/admin/applications', undefined, false)).status, 401);
    const created = JSON.parse(
      (
        await call('POST', '/admin/applications', {
          name: 'Shop',
          domain: 'shop.example.test',
          origins: ['https://shop.example.test'],
        })
      ).body,
    );
    assert.equal((await call('POST', '/admin/applications', { name: 'Bad', domain: '' })).status, 400);
    const id = encodeURIComponent(created.clientId);
    await call('GET', `/admin/applications/${id}`);
    await call('PATCH', `/admin/applications/${id}`, { name: 'Shop 2', userVerification: 'required' });
    for (const action of ['approve', 'unapprove', 'disable', 'enable'])
      await call('POST', `/admin/applications/${id}/${action}`);
    await call('DELETE', `/admin/applications/${id}`);
    assert.equal((await call('GET', `/admin/applications/${id}`)).status, 404);
    const bare = JSON.parse(
      (await call('POST', '/admin/applications', { name: 'Local only', domain: 'dev.example.test' })).body,
    );
    assert.equal((await call('POST', `/admin/applications/${bare.clientId}/approve`)).status, 409);
  });

  it('credentials: list by user and by page, show, rename, delete', async () => {
    const page = JSON.parse((await call('GET', `/admin/applications/${CLIENT_ID}/credentials?limit=10`)).body);
    assert.equal(page.credentials.length, 1);
    const id = page.credentials[0].credentialId as string;
    await call('GET', `/admin/applications/${CLIENT_ID}/credentials?username=${encodeURIComponent(username('alice'))}`);
    await call('GET', `/admin/applications/${CLIENT_ID}/credentials/${id}`);
    await call('PATCH', `/admin/applications/${CLIENT_ID}/credentials/${id}`, { nickname: 'Laptop' });
    await call('PATCH', `/admin/applications/${CLIENT_ID}/credentials/${id}`, { nickname: null });
    assert.deepEqual(JSON.parse((await call('GET', `/admin/applications/${CLIENT_ID}/post-quantum`)).body), {
      users: 0,
      credentials: 0,
    });
    assert.equal((await call('GET', '/admin/applications/nope/post-quantum')).status, 404);
    await call('DELETE', `/admin/applications/${CLIENT_ID}/credentials/${id}`);
    assert.equal((await call('GET', `/admin/applications/${CLIENT_ID}/credentials/${id}`)).status, 404);
  });

  it('audit: page and JSON-lines export (each line an AuditEvent)', async () => {
    await call('GET', '/admin/audit?limit=5');
    assert.equal((await call('GET', '/admin/audit?result=maybe')).status, 400);
    const exported = await call('GET', '/admin/audit/export?action=application.');
    const lines = exported.body.trim().split('\n');
    assert.ok(lines.length >= 8);
    for (const line of lines) assert.deepEqual(checkComponent('AuditEvent', JSON.parse(line)), []);
  });
  it('webhooks: list, add, change, delete; marked credentials; dead letters and resend; and their errors', async () => {
    const base = `/admin/applications/${CLIENT_ID}/webhooks`;
    await call('GET', base);
    const made = JSON.parse(
      (await call('POST', base, { url: 'https://idp.example.test/hooks', events: ['credential.created'] })).body,
    );
    assert.match(made.secret, /^whsec_/);
    assert.equal((await call('POST', base, { url: 'http://idp.example.test/hooks' })).status, 400);
    assert.equal((await call('POST', '/admin/applications/nope/webhooks', { url: 'https://a.test/' })).status, 404);
    await call('PATCH', `${base}/${made.id}`, { events: null });
    assert.equal((await call('PATCH', `${base}/${made.id}`, {})).status, 400);
    assert.equal((await call('PATCH', `${base}/wh_none`, { events: null })).status, 404);
    await call('DELETE', `${base}/${made.id}`);
    assert.equal((await call('DELETE', `${base}/${made.id}`)).status, 404);

    // A marked credential, and a dead letter (one message given up on after its last attempt).
    const h = new Harness({ credentials });
    const { res } = await new Flow(h, username('marked')).register();
    assert.equal(res.status, 200, res.body);
    const [record] = await credentials.listByApplication(CLIENT_ID, { limit: 10 });
    await credentials.markAuthenticatorStatus(
      { clientId: CLIENT_ID, aaguid: record!.aaguid, status: 'REVOKED', at: runtime.now() },
      () => [],
    );
    const marked = JSON.parse((await call('GET', `/admin/applications/${CLIENT_ID}/marked-credentials?limit=5`)).body);
    assert.equal(marked.credentials[0].authenticatorStatus, 'REVOKED');
    await credentials.outbox.enqueue([
      { id: 'msg_openapi', clientId: CLIENT_ID, webhookId: 'wh_x', type: 'user.deleted', body: '{}', createdAt: 0 },
    ]);
    const [leased] = await credentials.outbox.lease('test', runtime.now(), 1000, 1);
    await credentials.outbox.failed(leased!.id, 'test', { attempts: 1, at: runtime.now(), error: '503', dead: true });
    const dead = JSON.parse((await call('GET', `/admin/webhooks/dead-letters?clientId=${CLIENT_ID}`)).body);
    assert.deepEqual(
      dead.deadLetters.map((d: { id: string }) => d.id),
      ['msg_openapi'],
    );
    await call('POST', '/admin/webhooks/dead-letters/msg_openapi/resend');
    assert.equal((await call('POST', '/admin/webhooks/dead-letters/msg_openapi/resend')).status, 404);

    // Every method of every webhook path of the document was called here, so each was checked against it.
    const documented = WEBHOOK_ROUTES.map((route) => `${route.method} ${route.path}`);
    assert.deepEqual(
      documented.filter((route) => !called.has(route)),
      [],
    );
  });
});
