// Relay secrets stay required once an application has had one (issue 35 item 1), over real sockets with the
// whole service on SQLite and on PostgreSQL: revoking an application's last created secret leaves every
// relay call refused (401 RELAY_SECRET_MISSING without a secret, RELAY_SECRET_INVALID with the revoked
// one), the revoke answer and the CLI say so (`remaining: 0`, a warning), the application shows
// `requireRelaySecret: true`, and a new secret opens it again. A secret removed from the config file is a
// revocation too: after a restart without it the application still refuses. Only an explicit
// `requireRelaySecret: false` (admin API, or the file) opens it, and never beside a listed secret.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { relaySecretHash } from '../../../src/config/relay-secret-entries.js';
import { startService, type RunningService } from '../../../src/main.js';
import { runCliCommand } from '../../support/cli-process.js';
import { configDir } from '../../cli/support.js';
import { minimalApp } from '../../config/support.js';
import { freshSchema, POSTGRES_URL, type TestSchema } from '../../scale/support/backends.js';

const FILE_SECRET = 'prs_the-config-files-own-secret-0123456789abcdef';

interface Setup {
  readonly dir: string;
  readonly file: string;
  readonly token: string;
  readonly content: Record<string, unknown>;
  logs: string;
}

async function setUp(database: string | undefined): Promise<Setup> {
  const content = {
    local: { enabled: false },
    admin: { port: 0 },
    applicationCacheMs: 0,
    ...(database === undefined ? {} : { database }),
    applications: [minimalApp({ relaySecrets: [relaySecretHash(FILE_SECRET)] })],
  };
  const { dir, file } = configDir(content, 'passkey-relay-required-');
  if (database?.startsWith('postgres')) {
    const init = await runCliCommand(['secrets', 'init', '--file', join(dir, 'data', 'secrets.json')], { cwd: dir });
    assert.equal(init.code, 0, init.stderr);
  }
  const made = await runCliCommand(['admin', 'token', 'create', 'required-test', '--config', file], { cwd: dir });
  assert.equal(made.code, 0, made.stderr);
  return { dir, file, content, token: (JSON.parse(made.stdout) as { token: string }).token, logs: '' };
}

function start(setup: Setup): Promise<RunningService> {
  const sink = {
    write: (text: string) => {
      setup.logs += text;
      return true;
    },
  };
  return startService({ configFile: setup.file, env: {}, cwd: setup.dir, stdout: sink, stderr: sink });
}

async function relayCall(url: string, clientId: string, domain: string, secret?: string) {
  const response = await fetch(`${url}/api/attestation/options`, {
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

async function admin(running: RunningService, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${running.adminUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, json: (await response.json()) as any };
}

const BACKENDS: Record<string, () => Promise<{ database: string | undefined; drop?: () => Promise<void> }>> = {
  sqlite: async () => ({ database: undefined }),
  postgres: async () => {
    const schema: TestSchema = await freshSchema('relay_required');
    return { database: `${POSTGRES_URL}?schema=${schema.schema}`, drop: () => schema.drop() };
  },
};

for (const [name, open] of Object.entries(BACKENDS)) {
  describe(`relay secrets stay required: ${name}`, () => {
    let setup: Setup;
    let running: RunningService | undefined;
    let drop: (() => Promise<void>) | undefined;

    before(async () => {
      const backend = await open();
      drop = backend.drop;
      setup = await setUp(backend.database);
      running = await start(setup);
    });
    after(async () => {
      await running?.close();
      await drop?.();
    });

    it('revoking the last created secret refuses every call with 401 until a new one exists', async () => {
      const t = running!;
      const shop = { name: 'Shop', domain: 'shop.example.test', origins: ['https://shop.example.test'] };
      const made = await admin(t, setup.token, 'POST', '/admin/applications', shop);
      assert.equal(made.status, 201);
      const clientId = made.json.clientId as string;
      assert.equal(made.json.requireRelaySecret, undefined, 'never had a secret: not required');
      await admin(t, setup.token, 'POST', `/admin/applications/${clientId}/approve`);
      const call = (secret?: string) => relayCall(t.url, clientId, shop.domain, secret);
      assert.deepEqual(await call(), { status: 200, name: 'ok' });

      const path = `/admin/applications/${clientId}/relay-secrets`;
      const secret = (await admin(t, setup.token, 'POST', path, {})).json;
      assert.equal(
        (await admin(t, setup.token, 'GET', `/admin/applications/${clientId}`)).json.requireRelaySecret,
        true,
      );
      assert.deepEqual(await call(secret.secret), { status: 200, name: 'ok' });

      const revoked = await admin(t, setup.token, 'DELETE', `${path}/${secret.id}`);
      assert.equal(revoked.status, 200);
      assert.equal(revoked.json.remaining, 0);
      assert.match(revoked.json.warning, /refused with 401 until a new secret is created/);
      assert.deepEqual(await call(), { status: 401, name: 'RELAY_SECRET_MISSING' });
      assert.deepEqual(await call(secret.secret), { status: 401, name: 'RELAY_SECRET_INVALID' });
      assert.deepEqual(await call('prs_any-other-string-at-all'), { status: 401, name: 'RELAY_SECRET_INVALID' });
      const shown = await admin(t, setup.token, 'GET', `/admin/applications/${clientId}`);
      assert.equal(shown.json.requireRelaySecret, true);
      assert.ok(!('relaySecrets' in shown.json));

      // A new secret: the relay works again with it, and only with it.
      const next = (await admin(t, setup.token, 'POST', path, {})).json;
      assert.deepEqual(await call(next.secret), { status: 200, name: 'ok' });
      assert.deepEqual(await call(), { status: 401, name: 'RELAY_SECRET_MISSING' });

      // The CLI says so too when it revokes the last one.
      const cli = await runCliCommand(['admin', 'relay-secret', 'revoke', clientId, next.id, '--config', setup.file], {
        cwd: setup.dir,
      });
      assert.equal(cli.code, 0, cli.stderr);
      const printed = JSON.parse(cli.stdout) as { remaining: number; warning: string };
      assert.equal(printed.remaining, 0);
      assert.match(printed.warning, /every call of its relay is refused with 401/);
      assert.deepEqual(await call(next.secret), { status: 401, name: 'RELAY_SECRET_INVALID' });

      // Only an explicit false opens it again (an operator's decision, audited as an application update).
      const opened = await admin(t, setup.token, 'PATCH', `/admin/applications/${clientId}`, {
        requireRelaySecret: false,
      });
      assert.equal(opened.status, 200);
      assert.equal(opened.json.requireRelaySecret, false);
      assert.deepEqual(await call(), { status: 200, name: 'ok' });
    });

    it("a config file's application keeps requiring one when its secrets leave the file", async () => {
      assert.deepEqual(await relayCall(running!.url, 'app-1', 'idp.example.test', FILE_SECRET), {
        status: 200,
        name: 'ok',
      });
      const refused = await admin(running!, setup.token, 'PATCH', '/admin/applications/app-1', {
        requireRelaySecret: false,
      });
      assert.deepEqual([refused.status, refused.json.error], [400, 'INVALID_REQUEST']);
      assert.match(JSON.stringify(refused.json), /requireRelaySecret: is false but relaySecrets lists secrets/);
      await running!.close();
      running = undefined;
      writeFileSync(
        setup.file,
        JSON.stringify({ ...setup.content, listen: { host: '127.0.0.1', port: 0 }, applications: [minimalApp()] }),
      );
      setup.logs = '';
      running = await start(setup);
      const call = (secret?: string) => relayCall(running!.url, 'app-1', 'idp.example.test', secret);
      assert.deepEqual(await call(), { status: 401, name: 'RELAY_SECRET_MISSING' });
      assert.deepEqual(await call(FILE_SECRET), { status: 401, name: 'RELAY_SECRET_INVALID' });
      assert.match(setup.logs, /"event":"relay_secrets_required_none","clientId":"app-1"/);
      assert.doesNotMatch(setup.logs, /"event":"relay_secrets_none","clientId":"app-1"/);
      const shown = await admin(running!, setup.token, 'GET', '/admin/applications/app-1');
      assert.equal(shown.json.requireRelaySecret, true);
    });
  });
}
