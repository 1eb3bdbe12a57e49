// End to end (real processes, real sockets): an application's webhook receives signed events (Standard
// Webhooks), and an event written just before the service is killed with SIGKILL, while its delivery is in
// flight, is delivered by the service started again on the same database (at least once, same id).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CLIENT_ID, DOMAIN, ORIGIN, startInstance, workDir, type Instance } from '../scale/support/service.js';
import { eventually, ModelUser, outcome } from './metadata-support.js';
import { startReceiver, verifySignature, type Delivery, type Receiver } from '../support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

function config(dir: string, receiver: Receiver, events?: readonly string[]) {
  return {
    dir,
    database: `sqlite:${join(dir, 'passkeys.db')}`,
    challenges: 'memory',
    env: { WEBHOOK_SECRET: SECRET },
    extraConfig: {
      // One delivery attempt is bounded by 1.5 s, so a lease held by a killed process runs out within 8 s.
      webhookDelivery: { allowLoopbackHttp: true, allowPrivateAddresses: true, timeoutMs: 1500 },
      applications: [
        {
          clientId: CLIENT_ID,
          name: 'Webhook test',
          domain: DOMAIN,
          origins: [ORIGIN],
          variants: ['standard'],
          webhooks: [{ url: receiver.url, secret: 'env:WEBHOOK_SECRET', ...(events ? { events } : {}) }],
        },
      ],
    },
  };
}

const ofType = (deliveries: readonly Delivery[], type: string) => deliveries.filter((d) => d.event.type === type);

describe('webhooks of a running service', () => {
  const work = workDir('webhooks');
  const instances: Instance[] = [];
  const receivers: Receiver[] = [];
  after(async () => {
    await Promise.all(instances.map((instance) => instance.kill('SIGKILL')));
    await Promise.all(receivers.map((receiver) => receiver.close()));
    work.remove();
  });

  it('signs each event; an event whose delivery was cut by kill -9 is delivered after the restart', async () => {
    const receiver = await startReceiver(SECRET, 'hang');
    receivers.push(receiver);
    const first = await startInstance({ ...config(work.path, receiver), name: 'first' });
    instances.push(first);
    const user = new ModelUser('alice');
    assert.equal(outcome(await user.register(first.url)), 'ok', first.output());
    // The registration answered ok at once although the webhook hangs: delivery is off the request path.
    assert.ok(await eventually(() => receiver.seen.length >= 1, 10_000), first.output());
    const cut = receiver.seen[0]!;
    assert.equal(cut.event.type, 'credential.created');
    await first.kill('SIGKILL');
    assert.equal(receiver.accepted.length, 0);

    receiver.mode = 'accept';
    const second = await startInstance({ ...config(work.path, receiver), name: 'second' });
    instances.push(second);
    assert.ok(
      await eventually(() => ofType(receiver.accepted, 'credential.created').length >= 1, 20_000, 100),
      second.output(),
    );
    const created = ofType(receiver.accepted, 'credential.created')[0]!;
    assert.equal(created.id, cut.id, 'the same message, redelivered');
    assert.equal(created.body, cut.body);
    assert.ok(created.verified, 'the signature verifies with the secret');
    assert.ok(
      !verifySignature(
        `whsec_${randomBytes(24).toString('base64')}`,
        created.id,
        String(created.timestamp),
        created.body,
        created.signature,
      ),
    );
    assert.match(created.id, /^msg_/);
    assert.ok(Math.abs(created.timestamp - Date.now() / 1000) < 60);
    assert.equal(created.event.data.username, user.username);
    assert.equal(created.event.data.clientId, CLIENT_ID);
    assert.equal(typeof created.event.data.credentialId, 'string');
    assert.ok(!Number.isNaN(Date.parse(created.event.timestamp)));

    // A sign-in on the restarted service: authentication.succeeded, signed, with the same credential id.
    assert.equal(outcome(await user.signIn(second.url)), 'ok');
    assert.ok(await eventually(() => ofType(receiver.accepted, 'authentication.succeeded').length >= 1, 10_000));
    const signedIn = ofType(receiver.accepted, 'authentication.succeeded')[0]!;
    assert.ok(signedIn.verified);
    assert.equal(signedIn.event.data.credentialId, created.event.data.credentialId);
    assert.equal(signedIn.event.data.username, user.username);
    // Every event delivered is as the catalogue describes its type (src/schemas/webhook-events.ts).
    assert.deepEqual(
      receiver.accepted.flatMap((delivery) => delivery.problems.map((p) => `${delivery.event.type} ${p}`)),
      [],
    );
  });

  it('a webhook that takes only some event types gets only those', async () => {
    const receiver = await startReceiver(SECRET);
    receivers.push(receiver);
    const dir = workDir('webhooks-filter');
    try {
      const instance = await startInstance({
        ...config(dir.path, receiver, ['authentication.succeeded']),
        name: 'filter',
      });
      instances.push(instance);
      const user = new ModelUser('bob');
      assert.equal(outcome(await user.register(instance.url)), 'ok');
      assert.equal(outcome(await user.signIn(instance.url)), 'ok');
      assert.ok(await eventually(() => receiver.accepted.length >= 1, 10_000), instance.output());
      // credential.created was made first: had it been written, it would have been delivered first.
      assert.deepEqual(
        receiver.accepted.map((d) => d.event.type),
        ['authentication.succeeded'],
      );
      await instance.kill();
    } finally {
      dir.remove();
    }
  });
});
