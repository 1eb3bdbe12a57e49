// Webhooks reach only what they should, on the whole service over its sockets (in process; SQLite, and
// PostgreSQL where the review found a 500), with `webhookDelivery.allowPrivateAddresses` off and a resolver
// the test answers (no real DNS): a URL whose host is or resolves to a non-public address, or that holds a
// control character, is refused with 400 INVALID_REQUEST when added or changed and nothing is stored; a
// host whose DNS answer turns to 127.0.0.1 after it was added is refused at delivery (the receiver listening
// there gets nothing) and the dead letter's lastError names the kind of address only; a URL's query is
// redacted in the list and the audit log; /metrics counts the refused attempt and the dead letter.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startService, type RunningService } from '../../../src/main.js';
import { configDir } from '../../cli/support.js';
import { minimalApp } from '../../config/support.js';
import { runCliCommand } from '../../support/cli-process.js';
import { registerUser } from '../../support/register-user.js';
import { fakeResolver } from '../../support/resolver.js';
import { type AdminCall, adminCaller } from '../../support/admin-call.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';
import { eventually } from '../../e2e/metadata-support.js';
import { freshSchema, POSTGRES_URL, type TestSchema } from '../../scale/support/backends.js';

const sink = { write: () => true };
const HOOKS = '/admin/applications/app-1/webhooks';
const PUBLIC = '93.184.215.14';

interface Target {
  readonly running: RunningService;
  readonly resolver: ReturnType<typeof fakeResolver>;
  readonly admin: AdminCall;
}

async function startTarget(database: string | undefined): Promise<Target> {
  const { dir, file } = configDir(
    {
      local: { enabled: false },
      admin: { port: 0 },
      ...(database === undefined ? {} : { database }),
      // The strict rule (allowPrivateAddresses is off by default); one attempt, so a refusal is a dead letter.
      webhookDelivery: { maxAttempts: 1, timeoutMs: 2000 },
      applications: [minimalApp()],
    },
    'passkey-webhook-destinations-',
  );
  if (database !== undefined) {
    const init = await runCliCommand(['secrets', 'init', '--file', join(dir, 'data', 'secrets.json')], { cwd: dir });
    assert.equal(init.code, 0, init.stderr);
  }
  const made = await runCliCommand(['admin', 'token', 'create', 'destinations', '--config', file], { cwd: dir });
  assert.equal(made.code, 0, made.stderr);
  const token = (JSON.parse(made.stdout) as { token: string }).token;
  const resolver = fakeResolver({ 'hooks.example': [PUBLIC], 'inside.example': ['10.20.30.40'] });
  const running = await startService({
    configFile: file,
    env: {},
    cwd: dir,
    stdout: sink,
    stderr: sink,
    resolveHost: resolver.resolve,
  });
  return {
    running,
    resolver,
    admin: adminCaller(
      () => running.adminUrl!,
      () => token,
    ),
  };
}

/** What every backend must refuse, create and edit alike: 400 INVALID_REQUEST, nothing stored. */
async function refusesBadUrls(t: Target): Promise<void> {
  const listed = async () => (await t.admin('GET', HOOKS)).json.webhooks as { id: string; url: string }[];
  const kept = await t.admin('POST', HOOKS, { url: 'https://hooks.example/kept' });
  assert.equal(kept.status, 201, JSON.stringify(kept.json));
  const refused: [string, RegExp][] = [
    ['https://hooks.example/a\u0000b', /control characters/],
    ['https://hooks.example/\u0001', /control characters/],
    ['https://hooks.example/x\u007f', /control characters/],
    ['https://127.0.0.1/x', /is a loopback address/],
    ['https://[::ffff:127.0.0.1]/x', /is a loopback address/],
    ['https://0x7f.1/x', /is a loopback address/],
    ['https://169.254.169.254/latest', /is a link-local address/],
    ['https://[fd00::1]/x', /is a unique-local address/],
    ['https://localhost/x', /loopback name/],
    ['https://inside.example/x', /resolves to a private address/],
  ];
  for (const [url, why] of refused) {
    for (const [method, path] of [
      ['POST', HOOKS],
      ['PATCH', `${HOOKS}/${kept.json.id}`],
    ] as const) {
      const answer = await t.admin(method, path, { url });
      assert.equal(answer.status, 400, `${method} ${JSON.stringify(url)}: ${JSON.stringify(answer.json)}`);
      assert.equal(answer.json.error, 'INVALID_REQUEST');
      assert.match(answer.json.problems.join('\n'), why, url);
      assert.ok(!JSON.stringify(answer.json).includes('10.20.30.40'), 'a resolved address is never repeated');
    }
  }
  assert.deepEqual(
    (await listed()).map((w) => w.url),
    ['https://hooks.example/kept'],
    'nothing stored, nothing changed',
  );
  await t.admin('DELETE', `${HOOKS}/${kept.json.id}`);
}

describe('webhooks reach only what they should', () => {
  describe('SQLite', () => {
    let t: Target;
    let receiver: Receiver;
    before(async () => {
      t = await startTarget(undefined);
      receiver = await startReceiver('whsec_unknown');
    });
    after(async () => {
      await t?.running.close();
      await receiver?.close();
    });

    it('refuses non-public and malformed URLs when added and changed; nothing stored', () => refusesBadUrls(t));

    it('a DNS answer that turns to 127.0.0.1 after the webhook was added is refused at delivery', async () => {
      const port = new URL(receiver.url).port;
      t.resolver.answers.set('rebind.example', [PUBLIC]);
      const made = await t.admin('POST', HOOKS, { url: `https://rebind.example:${port}/hooks` });
      assert.equal(made.status, 201, JSON.stringify(made.json));
      t.resolver.answers.set('rebind.example', ['127.0.0.1']);
      await registerUser(t.running.url, 'rebound');
      const letters = async () =>
        (await t.admin('GET', '/admin/webhooks/dead-letters?clientId=app-1')).json.deadLetters as any[];
      assert.ok(await eventually(async () => (await letters()).length === 1, 15_000, 100), 'a dead letter');
      const [letter] = await letters();
      assert.equal(letter.webhookId, made.json.id);
      assert.match(letter.lastError, /^the host resolves to a loopback address; .*allowPrivateAddresses/);
      assert.ok(!letter.lastError.includes('127.0.0.1'));
      assert.equal(receiver.seen.length, 0, 'nothing reached the address it turned to');

      const metrics = await (await fetch(`${t.running.adminUrl}/metrics`)).text();
      assert.match(metrics, /^passkey_webhook_deliveries_total\{outcome="refused"\} 1$/m);
      assert.match(metrics, /^passkey_webhook_dead_letters_total 1$/m);
      assert.match(metrics, /^passkey_webhook_outbox_messages\{state="dead"\} 1$/m);
      assert.match(metrics, /^passkey_webhook_outbox_messages\{state="pending"\} 0$/m);
      assert.match(metrics, /^passkey_webhook_delivery_duration_seconds_count\{outcome="refused"\} 1$/m);
      await t.admin('DELETE', `${HOOKS}/${made.json.id}`);
    });

    it('a URL’s query is shown as ?… in the list and the audit log', async () => {
      const made = await t.admin('POST', HOOKS, { url: 'https://hooks.example/in?token=s3cr3t-t0ken' });
      assert.equal(made.status, 201, JSON.stringify(made.json));
      assert.equal(made.json.url, 'https://hooks.example/in?…');
      const listed = (await t.admin('GET', HOOKS)).json.webhooks;
      assert.deepEqual(
        listed.map((w: { url: string }) => w.url),
        ['https://hooks.example/in?…'],
      );
      const narrowed = await t.admin('PATCH', `${HOOKS}/${made.json.id}`, { events: ['user.deleted'] });
      assert.equal(narrowed.json.url, 'https://hooks.example/in?…');
      const audit = await t.admin('GET', '/admin/audit?action=webhook.');
      const created = audit.json.events.find(
        (e: { action: string; details?: { webhookId?: string } }) =>
          e.action === 'webhook.create' && e.details?.webhookId === made.json.id,
      );
      assert.equal(created.details.url, 'https://hooks.example/in?…');
      assert.ok(!JSON.stringify(audit.json).includes('s3cr3t'), 'the token is nowhere in the audit log');
      assert.ok(!JSON.stringify(listed).includes('s3cr3t'));
      await t.admin('DELETE', `${HOOKS}/${made.json.id}`);
    });
  });

  describe('PostgreSQL', () => {
    let schema: TestSchema;
    let t: Target;
    before(async () => {
      schema = await freshSchema('webhook_destinations');
      t = await startTarget(`${POSTGRES_URL}?schema=${schema.schema}`);
    });
    after(async () => {
      await t?.running.close();
      await schema?.drop();
    });

    it('refuses a NUL or other control character (not 500), and non-public URLs; nothing stored', () =>
      refusesBadUrls(t));
  });
});
