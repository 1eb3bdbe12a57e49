// The dispatcher's retry schedule, on a clock the test moves by hand and a real receiver over a real socket
// that fails every request: the first retry comes within seconds, the waits grow, never beyond ten minutes,
// and after `maxAttempts` the message is a dead letter with the last error; sent again, it is delivered
// with the same webhook-id and a valid signature. A poll before a message is due sends nothing.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createDispatcher, RETRY_DELAYS_S } from '../../src/webhooks/dispatcher.js';
import { MemoryOutbox } from '../../src/stores/memory/webhooks.js';
import type { WebhookEndpoint } from '../../src/stores/types.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { fakeResolver } from '../support/resolver.js';
import { webhookSecretBox } from '../../src/webhooks/secret-box.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const MAX_ATTEMPTS = 12;

describe('webhook delivery: retries with backoff, then a dead letter', () => {
  const receivers: Receiver[] = [];
  after(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  it('retries within seconds, backs off to at most ten minutes apart, dead-letters, and sends again', async () => {
    const receiver = await startReceiver(SECRET, 'fail');
    receivers.push(receiver);
    const runtime = testRuntime();
    const outbox = new MemoryOutbox();
    const endpoint: WebhookEndpoint = {
      id: 'wh_test',
      clientId: 'app-1',
      url: receiver.url,
      secret: SECRET,
      events: null,
      source: 'admin',
      createdAt: runtime.now(),
    };
    const log = captureLog();
    const dispatcher = createDispatcher({
      outbox,
      endpoint: async (clientId, webhookId) =>
        clientId === endpoint.clientId && webhookId === endpoint.id ? endpoint : undefined,
      secrets: new Map(),
      // A clear secret stored before sealing: still opened.
      secretBox: webhookSecretBox([{ id: 'k1', key: randomBytes(32) }], randomBytes),
      runtime,
      log,
      maxAttempts: MAX_ATTEMPTS,
      timeoutMs: 5000,
      // The receiver is on 127.0.0.1.
      destination: { allowPrivateAddresses: true, resolve: fakeResolver().resolve },
    });
    const body = JSON.stringify({ type: 'user.deleted', timestamp: new Date(runtime.now()).toISOString(), data: {} });
    await outbox.enqueue([
      {
        id: 'msg_retry',
        clientId: 'app-1',
        webhookId: 'wh_test',
        type: 'user.deleted',
        body,
        createdAt: runtime.now(),
      },
    ]);

    assert.equal(await dispatcher.tick(), 1, 'the first attempt at once');
    assert.equal(receiver.seen.length, 1);
    // Each wait after a failure, found by moving the clock: a poll one second early sends nothing.
    const waits: number[] = [];
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1) {
      let waited = 0;
      for (;;) {
        assert.ok(waited <= 3600, 'a retry comes within the hour');
        runtime.advance(1000);
        waited += 1;
        if ((await dispatcher.tick()) === 1) break;
      }
      assert.equal(receiver.seen.length, attempt + 1, 'one request per attempt');
      waits.push(waited);
    }
    assert.ok(waits[0]! <= 10, `the first retry within seconds (${waits[0]} s)`);
    for (let i = 1; i < waits.length; i += 1) assert.ok(waits[i]! >= waits[i - 1]!, `backing off: ${waits}`);
    assert.equal(Math.max(...waits), 600, `at most ten minutes apart, and that is reached: ${waits}`);
    assert.deepEqual(waits.slice(0, RETRY_DELAYS_S.length), [...RETRY_DELAYS_S]);

    // The last attempt failed: a dead letter, never tried again however long one waits.
    const [dead] = await outbox.listDead({ limit: 10 });
    assert.equal(dead?.id, 'msg_retry');
    assert.equal(dead?.attempts, MAX_ATTEMPTS);
    assert.equal(dead?.lastError, 'HTTP 503');
    runtime.advance(24 * 3600 * 1000);
    assert.equal(await dispatcher.tick(), 0);
    assert.equal(receiver.seen.length, MAX_ATTEMPTS);
    assert.ok(log.lines.some((l) => l.level === 'warn' && l.fields.event === 'webhook_failed'));

    // Sent again: due at once, delivered with the same id and body, signed.
    receiver.mode = 'accept';
    assert.equal(await outbox.resend('msg_retry', runtime.now()), true);
    assert.equal(await dispatcher.tick(), 1);
    const delivered = receiver.accepted[0]!;
    assert.equal(delivered.id, 'msg_retry');
    assert.equal(delivered.body, body);
    assert.ok(delivered.verified);
    assert.equal(delivered.timestamp, Math.floor(runtime.now() / 1000), "the attempt's time");
    assert.deepEqual(await outbox.listDead({ limit: 10 }), []);
    assert.equal(await dispatcher.tick(), 0, 'delivered: gone from the outbox');
  });

  it('a message whose webhook is gone becomes a dead letter at once', async () => {
    const runtime = testRuntime();
    const outbox = new MemoryOutbox();
    const dispatcher = createDispatcher({
      outbox,
      endpoint: async () => undefined,
      secrets: new Map(),
      secretBox: webhookSecretBox([{ id: 'k1', key: randomBytes(32) }], randomBytes),
      runtime,
      log: captureLog(),
      maxAttempts: MAX_ATTEMPTS,
      timeoutMs: 1000,
      destination: { allowPrivateAddresses: false, resolve: fakeResolver().resolve },
    });
    await outbox.enqueue([
      { id: 'msg_gone', clientId: 'app-1', webhookId: 'wh_gone', type: 'user.deleted', body: '{}', createdAt: 0 },
    ]);
    assert.equal(await dispatcher.tick(), 1);
    const [dead] = await outbox.listDead({ limit: 10 });
    assert.deepEqual([dead?.id, dead?.attempts, dead?.lastError], ['msg_gone', 1, 'the webhook no longer exists']);
  });
});
