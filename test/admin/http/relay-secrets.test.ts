// Relay secrets through the admin API over real sockets (issue 23, contract item 2), on every store: memory
// (startOperatorFeatures with its defaults), SQLite and PostgreSQL (the whole service, `startService`, on a
// file / a schema of its own). An application created through the admin API gets a secret (answered once):
// from then on its relay calls need it (401 RELAY_SECRET_MISSING without, RELAY_SECRET_INVALID with another
// or a revoked one); several at once rotate; the list shows id, source, created and last used and never a
// secret or a hash; a config file's secret is listed and cannot be revoked here (409); every step is audited
// (relay-secret.create|revoke, ok and failed) and no secret reaches an answer but the create's, the audit
// log, the service log or /metrics. Each answer has its OpenAPI shape. With SQLite and PostgreSQL, a
// second instance on the same database follows a create and a revoke made on the first, and the CLI
// (another process) creates and revokes while the service runs, the service following within
// `applicationCacheMs`; the last use the service wrote at shutdown is listed by the CLI.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { relaySecretHash } from '../../../src/config/relay-secret-entries.js';
import { startService, type RunningService } from '../../../src/main.js';
import { buildApp } from '../../../src/http/app.js';
import { createServiceServer } from '../../../src/http/server.js';
import { startOperatorFeatures, type OperatorFeatures } from '../../../src/compose/operator-features.js';
import { defaultOpsOptions } from '../../../src/config/ops.js';
import { MemoryAdminTokenStore } from '../../../src/admin/tokens.js';
import { MemoryChallengeStore } from '../../../src/stores/memory/challenges.js';
import { MemoryCredentialStore } from '../../../src/stores/memory/credentials.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import { applicationConfig, serviceConfig } from '../../support/harness.js';
import { captureLog, testRuntime } from '../../support/admin-fixtures.js';
import { checkResponse } from '../../support/openapi-lookup.js';
import { runCliCommand } from '../../support/cli-process.js';
import { configDir } from '../../cli/support.js';
import { minimalApp } from '../../config/support.js';
import { freshSchema, POSTGRES_URL, type TestSchema } from '../../scale/support/backends.js';

const FILE_SECRET = 'prs_the-config-files-own-secret-0123456789abcdef';
const SHOP = { name: 'Shop', domain: 'shop.example.test', origins: ['https://shop.example.test'] };

interface Target {
  readonly url: string;
  readonly adminUrl: string;
  readonly token: string;
  /** Everything the service logged so far. */
  logs(): string;
  close(): Promise<void>;
  /** Drops what the target made beside the service (its PostgreSQL schema), after `close`. */
  drop?(): Promise<void>;
  /** The configuration folder and file (the whole service only: the CLI runs against it). */
  readonly cli?: { readonly dir: string; readonly file: string };
}

async function memoryTarget(): Promise<Target> {
  const runtime = { ...testRuntime(), now: Date.now };
  const log = captureLog();
  const secrets = { userHandleKey: Buffer.alloc(32, 7), localBlobKeys: [{ id: 'k1', key: Buffer.alloc(32, 9) }] };
  const config = serviceConfig([
    applicationConfig({ clientId: 'app-1', domain: 'idp.example.test', relaySecrets: [relaySecretHash(FILE_SECRET)] }),
  ]);
  const base = defaultOpsOptions('/nonexistent');
  const tokens = new MemoryAdminTokenStore(runtime);
  const token = (await tokens.create('relay-test')).token;
  const ops: OperatorFeatures = await startOperatorFeatures({
    config,
    options: { ...base, admin: { ...base.admin, port: 0 } },
    runtime,
    log,
    tokens,
    credentials: new MemoryCredentialStore(),
    challenges: new MemoryChallengeStore({ clock: runtime.now }),
    secrets,
    buildTrust: (policy) => createTrustEvaluator({ anchors: [], requireTrusted: policy.requireTrusted }),
  });
  const app = buildApp({ ...ops, config, secrets, runtime, log });
  const server = createServiceServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    adminUrl: ops.admin!.url,
    token,
    logs: () => JSON.stringify(log.lines),
    close: async () => void (await ops.shutdown([server])),
  };
}

async function serviceTarget(database: string | undefined): Promise<Target> {
  const { dir, file } = configDir(
    {
      local: { enabled: false },
      admin: { port: 0 },
      applicationCacheMs: 100,
      ...(database === undefined ? {} : { database }),
      applications: [minimalApp({ relaySecrets: [relaySecretHash(FILE_SECRET)] })],
    },
    'passkey-relay-secrets-',
  );
  if (database?.startsWith('postgres')) {
    // Instances on one PostgreSQL share their keys: they are never generated there (docs/deployment.md).
    const init = await runCliCommand(['secrets', 'init', '--file', join(dir, 'data', 'secrets.json')], { cwd: dir });
    assert.equal(init.code, 0, init.stderr);
  }
  const made = await runCliCommand(['admin', 'token', 'create', 'relay-test', '--config', file], { cwd: dir });
  assert.equal(made.code, 0, made.stderr);
  const token = (JSON.parse(made.stdout) as { token: string }).token;
  let logs = '';
  const sink = {
    write: (text: string) => {
      logs += text;
      return true;
    },
  };
  const running: RunningService = await startService({
    configFile: file,
    env: {},
    cwd: dir,
    stdout: sink,
    stderr: sink,
  });
  return {
    url: running.url,
    adminUrl: running.adminUrl!,
    token,
    logs: () => logs,
    close: () => running.close(),
    cli: { dir, file },
  };
}

/** A relay call: registration options for alice of `clientId`, with `secret` as the bearer (none: no header). */
async function relayCall(t: Pick<Target, 'url'>, clientId: string, domain: string, secret?: string) {
  const response = await fetch(`${t.url}/api/attestation/options`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': `Vendor AppID: ${clientId}`,
      origin: `https://${domain}`,
      ...(secret === undefined ? {} : { authorization: `Bearer ${secret}` }),
    },
    body: JSON.stringify({ username: `alice#${domain}`, displayName: 'Alice' }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { status: string; errorMessage?: unknown };
  return { status: response.status, name: Array.isArray(body.errorMessage) ? body.errorMessage[0] : body.status };
}

/** Polls `probe` until it gives `expected` (bounded: 10 s), for a change another process made. */
async function until<T>(probe: () => Promise<T>, expected: T, what: string): Promise<void> {
  let last: T | undefined;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    last = await probe();
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`${what}: still ${JSON.stringify(last)} after 10 s`);
}

async function admin(t: Target, document: Record<string, unknown>, method: string, path: string, body?: unknown) {
  const response = await fetch(`${t.adminUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${t.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  if (path.includes('/relay-secrets') && ['GET', 'POST', 'DELETE'].includes(method)) {
    const problems = checkResponse(document, { path, method, status: response.status, contentType, body: text });
    assert.deepEqual(problems, [], `${method} ${path}: ${text}`);
  }
  return { status: response.status, text, json: JSON.parse(text) as any };
}

const BACKENDS: Record<string, () => Promise<Target>> = {
  memory: memoryTarget,
  sqlite: () => serviceTarget(undefined),
  postgres: async () => {
    const schema: TestSchema = await freshSchema('relay_secrets');
    const target = await serviceTarget(`${POSTGRES_URL}?schema=${schema.schema}`);
    return { ...target, drop: () => schema.drop() };
  },
};

for (const [name, open] of Object.entries(BACKENDS)) {
  describe(`relay secrets through the admin API: ${name}`, () => {
    let t: Target;
    let closed = false;
    let document: Record<string, unknown>;
    const shown: string[] = [FILE_SECRET];

    before(async () => {
      t = await open();
      document = (await (await fetch(`${t.adminUrl}/openapi.json`)).json()) as Record<string, unknown>;
    });
    after(async () => {
      if (!closed) await t?.close();
      await t?.drop?.();
    });

    it('an application created through the admin API gets secrets: create, use, rotate, revoke, audited', async () => {
      const made = await admin(t, document, 'POST', '/admin/applications', SHOP);
      assert.equal(made.status, 201, made.text);
      const shop = made.json.clientId as string;
      assert.equal((await admin(t, document, 'POST', `/admin/applications/${shop}/approve`)).status, 200);
      const path = `/admin/applications/${shop}/relay-secrets`;
      const call = (secret?: string) => relayCall(t, shop, SHOP.domain, secret);

      assert.deepEqual(await call(), { status: 200, name: 'ok' }, 'no secret yet: open, as before');
      assert.deepEqual((await admin(t, document, 'GET', path)).json, { relaySecrets: [] });

      const first = await admin(t, document, 'POST', path, {});
      assert.equal(first.status, 201, first.text);
      const secret = first.json.secret as string;
      shown.push(secret);
      assert.match(secret, /^prs_[A-Za-z0-9_-]{43}$/);
      assert.match(first.json.id, /^rs_[0-9a-f]{24}$/);
      assert.equal(first.json.source, 'admin');
      assert.equal(first.json.lastUsedAt, null);

      assert.deepEqual(await call(), { status: 401, name: 'RELAY_SECRET_MISSING' });
      assert.deepEqual(await call(`${secret}x`), { status: 401, name: 'RELAY_SECRET_INVALID' });
      assert.deepEqual(await call(secret), { status: 200, name: 'ok' });

      // Listed without the secret or its hash, its last use shown (this instance's note, before any flush).
      const listed = await admin(t, document, 'GET', path);
      assert.equal(listed.json.relaySecrets.length, 1);
      const [entry] = listed.json.relaySecrets;
      assert.deepEqual(Object.keys(entry).sort(), ['clientId', 'createdAt', 'id', 'lastUsedAt', 'source']);
      assert.equal(entry.id, first.json.id);
      assert.equal(entry.createdAt, first.json.createdAt);
      assert.ok(!listed.text.includes(secret) && !listed.text.includes(relaySecretHash(secret).slice(7)));
      await until(
        async () => typeof (await admin(t, document, 'GET', path)).json.relaySecrets[0].lastUsedAt,
        'string',
        'lastUsedAt after a use',
      );

      // Rotation: a second secret; both work until the first is revoked.
      const second = await admin(t, document, 'POST', path, {});
      shown.push(second.json.secret);
      assert.deepEqual(await call(second.json.secret), { status: 200, name: 'ok' });
      assert.deepEqual(await call(secret), { status: 200, name: 'ok' });
      const revoked = await admin(t, document, 'DELETE', `${path}/${first.json.id}`);
      assert.deepEqual(revoked.json, { revoked: true, id: first.json.id, remaining: 1 });
      assert.deepEqual(await call(secret), { status: 401, name: 'RELAY_SECRET_INVALID' });
      assert.deepEqual(await call(second.json.secret), { status: 200, name: 'ok' });
      assert.deepEqual(
        (await admin(t, document, 'GET', path)).json.relaySecrets.map((s: { id: string }) => s.id),
        [second.json.id],
      );

      const again = await admin(t, document, 'DELETE', `${path}/${first.json.id}`);
      assert.deepEqual([again.status, again.json.error], [404, 'RELAY_SECRET_NOT_FOUND']);
      const wrongBody = await admin(t, document, 'POST', path, { secret: 'mine' });
      assert.deepEqual([wrongBody.status, wrongBody.json.error], [400, 'INVALID_REQUEST']);
      const nobody = await admin(t, document, 'GET', '/admin/applications/nobody/relay-secrets');
      assert.deepEqual([nobody.status, nobody.json.error], [404, 'APPLICATION_NOT_FOUND']);
      const put = await fetch(`${t.adminUrl}${path}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${t.token}` },
      });
      assert.equal(put.status, 405);

      const audit = await admin(t, document, 'GET', `/admin/audit?action=relay-secret.&clientId=${shop}`);
      const events = audit.json.events as {
        actor: string;
        action: string;
        target: string | null;
        result: string;
        errorName?: string | null;
        details?: { relaySecretId?: string };
      }[];
      assert.deepEqual(
        events.map((e) => [e.action, e.result, e.errorName ?? null]),
        [
          ['relay-secret.create', 'ok', null],
          ['relay-secret.create', 'ok', null],
          ['relay-secret.revoke', 'ok', null],
          ['relay-secret.revoke', 'failed', 'RELAY_SECRET_NOT_FOUND'],
          ['relay-secret.create', 'failed', 'INVALID_REQUEST'],
        ],
      );
      assert.ok(events.every((e) => e.actor === 'admin:relay-test'));
      assert.equal(events[0]!.details?.relaySecretId, first.json.id);
      assert.equal(events[2]!.target, first.json.id);

      // Deleting the application takes its secrets along.
      assert.equal((await admin(t, document, 'DELETE', `/admin/applications/${shop}`)).status, 200);
      assert.equal((await admin(t, document, 'GET', path)).status, 404);
    });

    it("lists the config file's secret (source config) and refuses to revoke it: 409 RELAY_SECRET_FROM_CONFIG", async () => {
      const path = '/admin/applications/app-1/relay-secrets';
      assert.deepEqual(await relayCall(t, 'app-1', 'idp.example.test', FILE_SECRET), { status: 200, name: 'ok' });
      const listed = await admin(t, document, 'GET', path);
      assert.equal(listed.json.relaySecrets.length, 1);
      const [fromFile] = listed.json.relaySecrets;
      assert.match(fromFile.id, /^cfg_[0-9a-f]{24}$/);
      assert.equal(fromFile.source, 'config');
      assert.equal(fromFile.createdAt, null);
      assert.equal(typeof fromFile.lastUsedAt, 'string', 'its use is shown too');
      assert.ok(!listed.text.includes(relaySecretHash(FILE_SECRET).slice(7)), 'never its hash');
      const refused = await admin(t, document, 'DELETE', `${path}/${fromFile.id}`);
      assert.deepEqual([refused.status, refused.json.error], [409, 'RELAY_SECRET_FROM_CONFIG']);
      assert.deepEqual(await relayCall(t, 'app-1', 'idp.example.test', FILE_SECRET), { status: 200, name: 'ok' });
      const audit = await admin(t, document, 'GET', '/admin/audit?action=relay-secret.revoke&clientId=app-1');
      assert.deepEqual(
        audit.json.events.map((e: { result: string; errorName: string; target: string }) => [
          e.result,
          e.errorName,
          e.target,
        ]),
        [['failed', 'RELAY_SECRET_FROM_CONFIG', fromFile.id]],
      );
    });

    it('no secret reaches the service log, the audit log or /metrics', async () => {
      const exported = await fetch(`${t.adminUrl}/admin/audit/export`, {
        headers: { authorization: `Bearer ${t.token}` },
      });
      const audit = await exported.text();
      const metrics = await (await fetch(`${t.adminUrl}/metrics`)).text();
      for (const secret of shown) {
        for (const [what, text] of [
          ['service log', t.logs()],
          ['audit log', audit],
          ['metrics', metrics],
        ] as const) {
          assert.ok(!text.includes(secret), `${what} holds a secret`);
          assert.ok(!text.includes(relaySecretHash(secret).slice(7)), `${what} holds a hash`);
        }
      }
      assert.match(audit, /relay-secret\.create/);
    });
    // Memory stores live in one process: the CLI has nothing to share with the service there.
    if (name === 'memory') return;
    it('a second instance on the same database follows a create and a revoke within applicationCacheMs', async () => {
      const { dir, file } = t.cli!;
      let logs = '';
      const sink = {
        write: (text: string) => {
          logs += text;
          return true;
        },
      };
      const second = await startService({ configFile: file, env: {}, cwd: dir, stdout: sink, stderr: sink });
      try {
        const path = '/admin/applications/app-1/relay-secrets';
        const call = (secret?: string) => relayCall(second, 'app-1', 'idp.example.test', secret);
        assert.deepEqual(await call(FILE_SECRET), { status: 200, name: 'ok' });
        const made = await admin(t, document, 'POST', path, {});
        shown.push(made.json.secret);
        await until(async () => (await call(made.json.secret)).name, 'ok', 'the second instance takes it');
        assert.equal((await admin(t, document, 'DELETE', `${path}/${made.json.id}`)).status, 200);
        await until(async () => (await call(made.json.secret)).name, 'RELAY_SECRET_INVALID', 'it drops it');
        assert.deepEqual(await call(FILE_SECRET), { status: 200, name: 'ok' });
      } finally {
        await second.close();
      }
      for (const secret of shown) assert.ok(!logs.includes(secret), "the second instance's log holds a secret");
    });

    it('the CLI creates, lists and revokes while the service runs; the service follows; uses are written at shutdown', async () => {
      const { dir, file } = t.cli!;
      const cli = async (...args: string[]) => {
        const result = await runCliCommand(['admin', 'relay-secret', ...args, '--config', file], { cwd: dir });
        assert.equal(result.code, 0, result.stderr);
        return JSON.parse(result.stdout);
      };
      const made = await cli('create', 'app-1');
      shown.push(made.secret);
      assert.match(made.secret, /^prs_/);
      assert.equal(made.source, 'admin');
      const call = (secret?: string) => relayCall(t, 'app-1', 'idp.example.test', secret);
      await until(async () => (await call(made.secret)).status, 200, 'the service takes the CLI-made secret');
      assert.deepEqual(await call(FILE_SECRET), { status: 200, name: 'ok' }, "the file's secret still works");
      assert.deepEqual(await call(), { status: 401, name: 'RELAY_SECRET_MISSING' });

      const listed = await cli('list', 'app-1');
      assert.deepEqual(
        listed.relaySecrets.map((s: { source: string }) => s.source),
        ['config', 'admin'],
      );
      const revoked = await cli('revoke', 'app-1', made.id);
      assert.deepEqual(revoked, { revoked: true, id: made.id, remaining: 1 });
      await until(async () => (await call(made.secret)).name, 'RELAY_SECRET_INVALID', 'the service drops it');
      const refused = await runCliCommand(
        ['admin', 'relay-secret', 'revoke', 'app-1', listed.relaySecrets[0].id, '--config', file],
        { cwd: dir },
      );
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^RELAY_SECRET_FROM_CONFIG/);
      const audit = await runCliCommand(['admin', 'audit', 'list', '--action', 'relay-secret.', '--config', file], {
        cwd: dir,
      });
      const cliEvents = (JSON.parse(audit.stdout).events as { actor: string; action: string; result: string }[]).filter(
        (e) => e.actor.startsWith('cli:'),
      );
      assert.deepEqual(
        cliEvents.map((e) => [e.action, e.result]),
        [
          ['relay-secret.create', 'ok'],
          ['relay-secret.revoke', 'ok'],
          ['relay-secret.revoke', 'failed'],
        ],
      );

      // Stopped, the service has written the last uses it noted; the CLI (reading only the database) lists them.
      await t.close();
      closed = true;
      const after = await cli('list', 'app-1');
      assert.equal(after.relaySecrets.length, 1);
      assert.equal(typeof after.relaySecrets[0].lastUsedAt, 'string');
      assert.ok(Date.parse(after.relaySecrets[0].lastUsedAt) > Date.now() - 600_000);
      for (const secret of shown) assert.ok(!t.logs().includes(secret), 'the service log holds a secret');
    });
  });
}
