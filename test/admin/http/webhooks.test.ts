// The admin API's webhooks on the real service (in process, SQLite, real sockets, a real receiver): an
// application's webhooks listed (never a secret), added (the secret answered once, and the deliveries
// signed with it), changed (URL, event types) and deleted; the config file's refused (409) for change and
// delete; a message the receiver keeps failing becomes a dead letter, listed, and sent again on request
// with the same webhook-id; the URL rule with `webhookDelivery.allowLoopbackHttp` (and allowPrivateAddresses:
// the receivers are on 127.0.0.1; the refusals of non-public destinations are in webhook-destinations.test.ts).
// Every wait is bounded.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from '../../../src/main.js';
import { configDir } from '../../cli/support.js';
import { minimalApp } from '../../config/support.js';
import { runCliCommand } from '../../support/cli-process.js';
import { registerUser } from '../../support/register-user.js';
import { fakeResolver } from '../../support/resolver.js';
import { adminCaller } from '../../support/admin-call.js';
import { startReceiver, verifySignature, type Delivery, type Receiver } from '../../support/webhook-receiver.js';
import { eventually } from '../../e2e/metadata-support.js';

const CONFIG_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const sink = { write: () => true };
const register = registerUser;
// The service's resolver: hooks.example is public; the receivers are on 127.0.0.1 (allowPrivateAddresses here).
const resolver = fakeResolver({ 'hooks.example': ['93.184.215.14'] });

describe('the admin API of webhooks and dead letters', () => {
  let running: RunningService;
  let token: string;
  let configReceiver: Receiver;
  let receiver: Receiver;
  let other: Receiver;

  before(async () => {
    configReceiver = await startReceiver(CONFIG_SECRET);
    // The added webhook's secret is known only once added: these two check signatures with it by hand.
    receiver = await startReceiver('whsec_unknown');
    other = await startReceiver('whsec_unknown');
    const { dir, file } = configDir(
      {
        local: { enabled: false },
        admin: { port: 0 },
        // Two attempts: the second failure, 5 s after the first, makes a dead letter.
        webhookDelivery: { allowLoopbackHttp: true, allowPrivateAddresses: true, maxAttempts: 2, timeoutMs: 2000 },
        applications: [
          minimalApp({
            webhooks: [{ url: configReceiver.url, secret: CONFIG_SECRET, events: ['credential.deleted'] }],
          }),
        ],
      },
      'passkey-admin-webhooks-',
    );
    const made = await runCliCommand(['admin', 'token', 'create', 'hooks', '--config', file], { cwd: dir });
    token = (JSON.parse(made.stdout) as { token: string }).token;
    running = await startService({
      configFile: file,
      env: {},
      cwd: dir,
      stdout: sink,
      stderr: sink,
      resolveHost: resolver.resolve,
    });
  });

  after(async () => {
    await running?.close();
    for (const r of [configReceiver, receiver, other]) await r?.close();
  });

  const admin = adminCaller(
    () => running.adminUrl!,
    () => token,
  );

  const signedWith = (secret: string, d: Delivery) =>
    verifySignature(secret, d.id, String(d.timestamp), d.body, d.signature);
  const hooks = '/admin/applications/app-1/webhooks';

  it('lists, adds, changes and deletes webhooks; the config file’s stay as the file says', async () => {
    const listed = await admin('GET', hooks);
    assert.equal(listed.status, 200);
    assert.equal(listed.json.webhooks.length, 1);
    const fromFile = listed.json.webhooks[0];
    assert.deepEqual(
      [fromFile.url, fromFile.source, fromFile.events, fromFile.createdAt],
      [configReceiver.url, 'config', ['credential.deleted'], null],
    );
    assert.ok(!('secret' in fromFile), 'never a secret');

    const made = await admin('POST', hooks, { url: receiver.url, events: ['credential.created'] });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    assert.match(made.json.id, /^wh_/);
    assert.match(made.json.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(made.json.source, 'admin');
    const again = (await admin('GET', hooks)).json.webhooks;
    assert.deepEqual(
      again.map((w: Record<string, unknown>) => [w.url, w.source, 'secret' in w]),
      [
        [configReceiver.url, 'config', false],
        [receiver.url, 'admin', false],
      ],
    );

    // Its deliveries are signed with the secret answered once.
    const first = await register(running.url, 'carol');
    assert.ok(await eventually(() => receiver.accepted.length >= 1, 10_000));
    const created = receiver.accepted[0]!;
    assert.equal(created.event.type, 'credential.created');
    assert.equal(created.event.data.credentialId, first);
    assert.ok(signedWith(made.json.secret, created));

    // Changed: another URL, every event type; the id and the secret stay.
    const changed = await admin('PATCH', `${hooks}/${made.json.id}`, { url: other.url, events: null });
    assert.equal(changed.status, 200, JSON.stringify(changed.json));
    assert.deepEqual([changed.json.id, changed.json.url, changed.json.events], [made.json.id, other.url, null]);
    const second = await register(running.url, 'dave');
    assert.ok(await eventually(() => other.accepted.length >= 1, 10_000));
    assert.equal(other.accepted[0]!.event.data.credentialId, second);
    assert.ok(signedWith(made.json.secret, other.accepted[0]!), 'the same secret');
    assert.equal(receiver.accepted.length, 1, 'nothing more to the old URL');
    const narrowed = await admin('PATCH', `${hooks}/${made.json.id}`, { events: ['user.deleted'] });
    assert.deepEqual([narrowed.json.url, narrowed.json.events], [other.url, ['user.deleted']]);

    // Refused changes: every problem listed; unknown webhook; the config file's.
    const bad = await admin('PATCH', `${hooks}/${made.json.id}`, { url: 'http://idp.example.test/', events: [] });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.problems.length, 2, JSON.stringify(bad.json));
    assert.equal((await admin('PATCH', `${hooks}/wh_nope`, { events: null })).status, 404);
    assert.equal((await admin('PATCH', `${hooks}/${fromFile.id}`, { events: null })).json.error, 'WEBHOOK_FROM_CONFIG');
    assert.equal((await admin('DELETE', `${hooks}/${fromFile.id}`)).json.error, 'WEBHOOK_FROM_CONFIG');
    assert.equal((await admin('PUT', `${hooks}/${made.json.id}`)).status, 405);

    const deleted = await admin('DELETE', `${hooks}/${made.json.id}`);
    assert.deepEqual(deleted.json, { deleted: true, discarded: 0 });
    assert.equal((await admin('DELETE', `${hooks}/${made.json.id}`)).json.error, 'WEBHOOK_NOT_FOUND');
    assert.equal((await admin('GET', hooks)).json.webhooks.length, 1);
    const audit = (await admin('GET', '/admin/audit?action=webhook.')).json.events;
    assert.deepEqual(
      audit.map((e: Record<string, unknown>) => [e.action, e.result, e.actor]),
      [
        ['webhook.create', 'ok', 'admin:hooks'],
        ['webhook.update', 'ok', 'admin:hooks'],
        ['webhook.update', 'ok', 'admin:hooks'],
        ['webhook.update', 'failed', 'admin:hooks'],
        ['webhook.update', 'failed', 'admin:hooks'],
        ['webhook.update', 'failed', 'admin:hooks'],
        ['webhook.delete', 'failed', 'admin:hooks'],
        ['webhook.delete', 'ok', 'admin:hooks'],
        ['webhook.delete', 'failed', 'admin:hooks'],
      ],
    );
  });

  it('the URL rule: https anywhere; http only to a loopback host (allowed here); each problem named', async () => {
    for (const url of ['https://hooks.example/x', 'http://127.0.0.1:9/x', 'http://[::1]:9/x', 'http://localhost:9/x']) {
      const made = await admin('POST', hooks, { url });
      assert.equal(made.status, 201, `${url}: ${JSON.stringify(made.json)}`);
      await admin('DELETE', `${hooks}/${made.json.id}`);
    }
    for (const url of [
      'http://hooks.example/x',
      'http://127.0.0.2/x',
      'http://localhost.hooks.example/x',
      'ftp://127.0.0.1/x',
      'https://user:pw@hooks.example/x',
      'not a url',
    ]) {
      const refused = await admin('POST', hooks, { url });
      assert.equal(refused.status, 400, url);
      assert.match(refused.json.problems[0], /^url: /, url);
    }
  });

  it('a message that keeps failing becomes a dead letter; sent again, it is delivered with the same id', async () => {
    const failing = await startReceiver('whsec_unknown', 'fail');
    try {
      const made = await admin('POST', hooks, { url: failing.url, events: ['credential.deleted'] });
      assert.equal(made.status, 201);
      const credentialId = await register(running.url, 'erin');
      const removed = await admin('DELETE', `/admin/applications/app-1/credentials/${credentialId}`);
      assert.equal(removed.status, 200, JSON.stringify(removed.json));
      // The config file's webhook takes credential.deleted too, and its receiver accepts it.
      assert.ok(await eventually(() => configReceiver.accepted.length >= 1, 10_000));
      assert.ok(configReceiver.accepted[0]!.verified);

      // Two attempts (5 s apart), both failed: a dead letter.
      const letters = async () =>
        (await admin('GET', `/admin/webhooks/dead-letters?clientId=app-1`)).json.deadLetters as Record<
          string,
          unknown
        >[];
      assert.ok(await eventually(async () => (await letters()).length >= 1, 30_000, 250), 'a dead letter');
      const [letter] = await letters();
      assert.equal(failing.seen.length, 2);
      assert.deepEqual(
        [letter!.webhookId, letter!.type, letter!.attempts, letter!.lastError, letter!.id],
        [made.json.id, 'credential.deleted', 2, 'HTTP 503', failing.seen[0]!.id],
      );
      assert.equal(JSON.parse(letter!.body as string).data.credentialId, credentialId);
      assert.equal((await admin('GET', '/admin/webhooks/dead-letters?clientId=other')).json.deadLetters.length, 0);

      // /metrics: the failed attempts, the retry between them, the dead letter, the outbox's depth.
      const metrics = await (await fetch(`${running.adminUrl}/metrics`)).text();
      const value = (series: string) =>
        Number(metrics.match(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm'))?.[1] ?? Number.NaN);
      assert.equal(value('passkey_webhook_dead_letters_total'), 1, metrics);
      assert.ok(value('passkey_webhook_retries_total') >= 1);
      assert.ok(value('passkey_webhook_deliveries_total{outcome="http_error"}') >= 2);
      assert.ok(value('passkey_webhook_deliveries_total{outcome="delivered"}') >= 3, 'the earlier tests’ deliveries');
      assert.ok(value('passkey_webhook_delivery_lag_seconds_count') >= 3);
      assert.equal(value('passkey_webhook_outbox_messages{state="dead"}'), 1);

      failing.mode = 'accept';
      const resent = await admin('POST', `/admin/webhooks/dead-letters/${letter!.id}/resend`);
      assert.deepEqual(resent.json, { resent: true });
      assert.ok(await eventually(() => failing.accepted.length >= 1, 10_000));
      assert.equal(failing.accepted[0]!.id, letter!.id, 'the same webhook-id');
      assert.equal(failing.accepted[0]!.body, letter!.body);
      assert.ok(signedWith(made.json.secret, failing.accepted[0]!));
      assert.deepEqual(await letters(), []);
      const twice = await admin('POST', `/admin/webhooks/dead-letters/${letter!.id}/resend`);
      assert.deepEqual([twice.status, twice.json.error], [404, 'DEAD_LETTER_NOT_FOUND']);
      await admin('DELETE', `${hooks}/${made.json.id}`);
    } finally {
      await failing.close();
    }
  });
});
