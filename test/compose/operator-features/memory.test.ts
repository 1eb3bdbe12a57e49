// startOperatorFeatures wired to the real HTTP app (buildApp) with the real memory stores and Redis: ceremonies
// feed the metrics funnel and the audit log, admin changes reach the four operations at once, rate limits
// are shared between two instances through Redis, and graceful shutdown lets a request in flight finish.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';
import { buildApp, type App } from '../../../src/http/app.js';
import { startOperatorFeatures, type OperatorFeatures } from '../../../src/compose/operator-features.js';
import { defaultOpsOptions, type OpsOptions } from '../../../src/config/ops.js';
import { MemoryAdminTokenStore } from '../../../src/admin/tokens.js';
import { MemoryChallengeStore } from '../../../src/stores/memory/challenges.js';
import { MemoryCredentialStore } from '../../../src/stores/memory/credentials.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import type { Runtime } from '../../../src/util/runtime.js';
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
import { parseExposition, valueOf } from '../../support/exposition.js';
import { captureLog, testRuntime } from '../../support/admin-fixtures.js';

interface Instance {
  readonly ops: OperatorFeatures;
  readonly log: ReturnType<typeof captureLog>;
  readonly app: App;
  readonly runtime: Runtime & { advance(ms: number): void };
  readonly token: string;
  post(
    path: string,
    body: unknown,
    options?: { origin?: string | null; clientId?: string | null },
  ): ReturnType<App['inject']>;
}

async function instance(options: OpsOptions): Promise<Instance> {
  const runtime = testRuntime();
  const log = captureLog();
  // A user name bound other than the default, which the served OpenAPI document must show.
  const config = serviceConfig([applicationConfig()], {
    limits: { bodyBytes: 65_536, usernameLength: 200, displayNameLength: 256 },
  });
  const tokens = new MemoryAdminTokenStore(runtime);
  const token = (await tokens.create('integration')).token;
  const ops = await startOperatorFeatures({
    config,
    options,
    runtime,
    log,
    tokens,
    credentials: new MemoryCredentialStore(),
    challenges: new MemoryChallengeStore({ clock: runtime.now }),
    secrets: { userHandleKey: Buffer.alloc(32, 7), localBlobKeys: [{ id: 'k1', key: Buffer.alloc(32, 9) }] },
    buildTrust: (policy) => createTrustEvaluator({ anchors: [], requireTrusted: policy.requireTrusted }),
  });
  const app = buildApp({
    config,
    applications: ops.applications,
    credentials: ops.credentials,
    challenges: ops.challenges,
    secrets: { userHandleKey: Buffer.alloc(32, 7), localBlobKeys: [{ id: 'k1', key: Buffer.alloc(32, 9) }] },
    runtime,
    log,
    hooks: ops.hooks,
  });
  const post: Instance['post'] = (path, body, o = {}) =>
    app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/json',
        ...(o.clientId === null ? {} : { 'user-agent': `${VENDOR} AppID: ${o.clientId ?? CLIENT_ID}` }),
        ...(o.origin === null ? {} : { origin: o.origin ?? ORIGIN }),
      },
      body: JSON.stringify(body),
    });
  return { ops, log, app, runtime, token, post };
}

function options(over: Partial<OpsOptions['rateLimits']> = {}): OpsOptions {
  const base = defaultOpsOptions('/nonexistent');
  return { ...base, admin: { ...base.admin, port: 0 }, rateLimits: { ...base.rateLimits, ...over } };
}

/** A Flow (the http engineer's test driver) over an instance's inject. */
const flowFor = (inst: Instance, user: string) =>
  new Flow(
    { post: (path: string, body: unknown, o: object) => inst.post(path, body, o) } as unknown as Harness,
    username(user),
  );

async function adminCall(inst: Instance, method: string, path: string, body?: unknown) {
  const response = await fetch(`${inst.ops.admin!.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${inst.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

describe('startOperatorFeatures with the HTTP app', () => {
  const started: Instance[] = [];
  after(async () => {
    for (const inst of started) await inst.ops.shutdown([]);
  });

  it('ceremonies feed the metrics funnel, the store-latency histogram and the audit log', async () => {
    const inst = await instance(options());
    started.push(inst);
    const flow = flowFor(inst, 'alice');
    assert.equal((await flow.register()).res.status, 200);
    assert.equal((await flow.authenticate()).res.status, 200);
    const replay = await flow.authenticate({}, {}, (c) => ({ ...c, response: { ...c.response, signature: 'AAAA' } }));
    assert.equal(replay.res.status, 400);
    assert.equal(
      (await inst.post(PATHS.attestationOptions, { username: username('x') }, { clientId: 'nobody' })).status,
      403,
    );

    // The served OpenAPI document bounds the options requests by this configuration's limits.
    const served = (await (await fetch(`${inst.ops.admin!.url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: { username: { maxLength: number } } }> };
    };
    assert.equal(served.components.schemas.AssertionOptionsRequest!.properties.username.maxLength, 200);

    const metrics = await fetch(`${inst.ops.admin!.url}/metrics`);
    const { samples } = parseExposition(await metrics.text());
    assert.equal(
      valueOf(samples, 'passkey_ceremony_options_issued_total', { ceremony: 'registration', client_id: CLIENT_ID }),
      1,
    );
    assert.equal(
      valueOf(samples, 'passkey_ceremony_options_issued_total', { ceremony: 'authentication', client_id: CLIENT_ID }),
      2,
    );
    assert.equal(valueOf(samples, 'passkey_ceremony_results_total', { ceremony: 'registration', result: 'ok' }), 1);
    assert.equal(valueOf(samples, 'passkey_ceremony_results_total', { ceremony: 'authentication', result: 'ok' }), 1);
    assert.equal(
      valueOf(samples, 'passkey_ceremony_results_total', { ceremony: 'authentication', result: 'failed' }),
      1,
    );
    assert.equal(valueOf(samples, 'passkey_requests_total', { client_id: '_unknown', error: 'CLIENT_ID_UNKNOWN' }), 1);
    assert.ok(
      (valueOf(samples, 'passkey_store_operation_duration_seconds_count', {
        store: 'credentials',
        // A registration stores its credential with createCounted (the store's method name is the label).
        operation: 'createCounted',
        outcome: 'ok',
      }) ?? 0) >= 1,
    );
    assert.ok(
      (valueOf(samples, 'passkey_store_operation_duration_seconds_count', {
        store: 'challenges',
        operation: 'take',
        outcome: 'ok',
      }) ?? 0) >= 3,
    );
    assert.ok((valueOf(samples, 'process_resident_memory_bytes') ?? 0) > 0);

    const events = await inst.ops.audit.query({ limit: 100, action: 'ceremony.' });
    assert.deepEqual(
      events.map((e) => `${e.action}:${e.result}:${e.errorName ?? ''}`),
      [
        'ceremony.registration:ok:',
        'ceremony.authentication:ok:',
        'ceremony.authentication:failed:ASSERTION_SIGNATURE_VERIFICATION_FAIL',
      ],
    );
    assert.ok(events.every((e) => e.clientId === CLIENT_ID && e.actor === `client:${CLIENT_ID}` && e.requestId));
    // Never a challenge, a key or a signature in the audit log.
    const text = JSON.stringify(events);
    assert.ok(!/challenge|publicKey|signature/i.test(text.replace(/ASSERTION_SIGNATURE_VERIFICATION_FAIL/g, '')), text);
  });

  it('writes one JSON log line per request, with the request id of the X-Request-Id header and nothing secret', async () => {
    const inst = await instance(options());
    started.push(inst);
    const ok = await inst.post(PATHS.attestationOptions, { username: username('logged') });
    const refused = await inst.post(PATHS.attestationOptions, { username: username('logged') }, { clientId: 'nobody' });
    const lines = inst.log.lines.filter((l) => l.fields.event === 'request');
    assert.equal(lines.length, 2);
    assert.deepEqual(
      lines.map((l) => l.fields.requestId),
      [ok.headers['x-request-id'], refused.headers['x-request-id']],
    );
    assert.deepEqual(
      { ...lines[1]!.fields, durationMs: 0 },
      {
        event: 'request',
        requestId: refused.headers['x-request-id'],
        operation: 'attestation/options',
        clientId: 'nobody',
        variant: null,
        status: 403,
        error: 'CLIENT_ID_UNKNOWN',
        durationMs: 0,
        remoteAddress: '127.0.0.1',
      },
    );
    const text = JSON.stringify(lines);
    assert.ok(!text.includes('logged#') && !text.includes(ok.json().challenge));
  });

  it('admin changes reach the four operations at once: disable, approve, delete credential', async () => {
    const inst = await instance(options());
    started.push(inst);
    const flow = flowFor(inst, 'bob');
    assert.equal((await flow.register()).res.status, 200);
    assert.equal((await adminCall(inst, 'POST', `/admin/applications/${CLIENT_ID}/disable`)).status, 200);
    const refused = await inst.post(PATHS.assertionOptions, { username: username('bob') });
    assert.equal(refused.status, 403);
    assert.equal(refused.json().errorMessage[0], 'CLIENT_ID_UNKNOWN');
    assert.equal((await adminCall(inst, 'POST', `/admin/applications/${CLIENT_ID}/enable`)).status, 200);
    assert.equal((await adminCall(inst, 'POST', `/admin/applications/${CLIENT_ID}/unapprove`)).status, 200);
    const standardRefused = await inst.post(PATHS.assertionOptions, { username: username('bob') });
    assert.equal(standardRefused.json().errorMessage[0], 'VARIANT_NOT_ALLOWED');
    assert.equal((await adminCall(inst, 'POST', `/admin/applications/${CLIENT_ID}/approve`)).status, 200);
    const list = JSON.parse(
      (
        await adminCall(
          inst,
          'GET',
          `/admin/applications/${CLIENT_ID}/credentials?username=${encodeURIComponent(username('bob'))}`,
        )
      ).text,
    );
    assert.equal(list.credentials.length, 1);
    const id = list.credentials[0].credentialId as string;
    // Signed before the deletion, sent after it.
    const signed = JSON.parse(JSON.stringify(flow.authenticator.authenticate(await flow.assertionOptions())));
    assert.equal((await adminCall(inst, 'DELETE', `/admin/applications/${CLIENT_ID}/credentials/${id}`)).status, 200);
    const signIn = await inst.post(PATHS.assertionResult, signed);
    assert.equal(signIn.status, 400);
    assert.equal(signIn.json().errorMessage[0], 'CREDENTIAL_ID_NOT_FOUND');
    const later = await flow.assertionOptions();
    assert.ok(!later.allowCredentials.some((c: { id: string }) => c.id === id));
  });

  it('answers 429 RATE_LIMITED with Retry-After and counts it', async () => {
    const inst = await instance(options({ perApplication: { burst: 2, perSecond: 0.5 }, perAddress: null }));
    started.push(inst);
    assert.equal((await inst.post(PATHS.assertionOptions, { username: username('c') })).status, 200);
    assert.equal((await inst.post(PATHS.assertionOptions, { username: username('c') })).status, 200);
    const limited = await inst.post(PATHS.assertionOptions, { username: username('c') });
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.json(), {
      status: 'failed',
      errorMessage: ['RATE_LIMITED', limited.json().errorMessage[1]],
      sessionId: '',
    });
    assert.equal(limited.headers['retry-after'], '2');
    inst.runtime.advance(2000);
    assert.equal((await inst.post(PATHS.assertionOptions, { username: username('c') })).status, 200);
    const { samples } = parseExposition(await inst.ops.registry.expose());
    assert.equal(
      valueOf(samples, 'passkey_rate_limited_total', { operation: 'assertion/options', client_id: CLIENT_ID }),
      1,
    );
  });

  it('shares rate limits between two instances through Redis', async () => {
    const prefix = `test:rl:${randomBytes(6).toString('hex')}:`;
    const shared = options({
      store: 'redis://127.0.0.1:6379',
      keyPrefix: prefix,
      perApplication: { burst: 3, perSecond: 0.001 },
      perAddress: null,
    });
    const a = await instance(shared);
    const b = await instance(shared);
    started.push(a, b);
    const statuses: number[] = [];
    for (const inst of [a, b, a, b, a])
      statuses.push((await inst.post(PATHS.assertionOptions, { username: username('d') })).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    const report = JSON.parse(await (await fetch(`${a.ops.admin!.url}/ready`)).text());
    assert.equal(report.checks['rate-limits'], 'ok');
    const cleaner = createClient({ url: 'redis://127.0.0.1:6379' });
    await cleaner.connect();
    const keys = await cleaner.keys(`${prefix}*`);
    assert.ok(keys.length >= 1);
    await cleaner.del(keys);
    await cleaner.quit();
  });

  it('graceful shutdown: readiness fails, the request in flight finishes, new connections are refused, stores close', async () => {
    const inst = await instance(options());
    const server = createServer(inst.app.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const body = JSON.stringify({ username: username('eve') });
    // Start a request and hold back the last byte of its body: it is in flight when shutdown begins.
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: PATHS.attestationOptions,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': `${VENDOR} AppID: ${CLIENT_ID}`,
            origin: ORIGIN,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, -1));
      setTimeout(() => req.end(body.slice(-1)), 150);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const adminUrl = inst.ops.admin!.url;
    const shutdown = inst.ops.shutdown([server]);
    assert.equal(inst.ops.readiness.draining, true);
    const finished = await answer;
    assert.equal(finished.status, 200, finished.text);
    const report = await shutdown;
    assert.deepEqual(report, { forcedServers: 0, failedClosers: [] });
    assert.equal(server.listening, false);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/api/attestation/options`, { method: 'POST' }));
    await assert.rejects(fetch(`${adminUrl}/health`));
  });
});
