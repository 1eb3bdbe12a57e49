// End to end (real processes, real sockets): two service instances on one PostgreSQL schema, both polling
// the one outbox, deliver each event exactly once. The receiver first holds every request it gets, until
// the outbox shows leases of both instances at once (so both really deliver, side by side), then answers
// them all; the test ends once the outbox is empty and both instances stopped (nothing can be in flight),
// and counts the `webhook-id`s the receiver accepted: every event once, none twice. Every wait is bounded.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { freshSchema, POSTGRES_URL, sql, type TestSchema } from '../scale/support/backends.js';
import {
  CLIENT_ID,
  DOMAIN,
  ORIGIN,
  sharedSecretsEnv,
  startInstance,
  workDir,
  type Instance,
} from '../scale/support/service.js';
import { eventually, ModelUser, outcome } from './metadata-support.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const USERS = 12;

describe('webhooks of two instances on one PostgreSQL', () => {
  const work = workDir('webhooks-pg');
  const instances: Instance[] = [];
  let schema: TestSchema;
  let receiver: Receiver;

  before(async () => {
    schema = await freshSchema('webhooks');
    receiver = await startReceiver(SECRET, 'hold');
  });

  after(async () => {
    await Promise.all(instances.map((instance) => instance.kill('SIGKILL')));
    await receiver?.close();
    await schema?.drop();
    work.remove();
  });

  const outbox = () => `"${schema.schema}".webhook_outbox`;

  it('each event is delivered once, by one of the two instances that both deliver', async () => {
    const settings = {
      dir: work.path,
      database: `${POSTGRES_URL}?schema=${schema.schema}`,
      challenges: 'memory',
      env: { ...sharedSecretsEnv(), WEBHOOK_SECRET: SECRET },
      extraConfig: {
        // A held request must not time out while the test waits for the other instance's lease.
        webhookDelivery: { allowLoopbackHttp: true, allowPrivateAddresses: true, timeoutMs: 30_000 },
        applications: [
          {
            clientId: CLIENT_ID,
            name: 'Two instances',
            domain: DOMAIN,
            origins: [ORIGIN],
            variants: ['standard'],
            webhooks: [{ url: receiver.url, secret: 'env:WEBHOOK_SECRET' }],
          },
        ],
      },
    };
    instances.push(await startInstance({ ...settings, name: 'a' }), await startInstance({ ...settings, name: 'b' }));
    const [a, b] = instances as [Instance, Instance];

    // Events written through both instances, one user at a time, until both hold leases at once: the first
    // lease is held (its requests unanswered), so only the other instance can take the next events.
    const owners = async () =>
      (
        await sql<{ owner: string }>(
          `SELECT DISTINCT lease_owner AS owner FROM ${outbox()} WHERE lease_owner IS NOT NULL`,
        )
      ).length;
    let made = 0;
    for (; made < USERS && (made < 2 || (await owners()) < 2); made += 1) {
      const user = new ModelUser(`user${made}`);
      const instance = made % 2 === 0 ? a : b;
      assert.equal(outcome(await user.register(instance.url)), 'ok', instance.output());
      assert.equal(outcome(await user.signIn(instance.url)), 'ok', instance.output());
      // Let both instances poll (each polls every second) before the next user.
      await eventually(async () => (await owners()) >= 2, 1500, 100);
    }
    assert.ok(
      await eventually(async () => (await owners()) >= 2, 15_000, 100),
      `both instances lease at once\n${a.output()}\n${b.output()}`,
    );
    const heldAtOnce = receiver.held.length;
    receiver.release();

    // Two events per user: credential.created and authentication.succeeded.
    const expected = made * 2;
    assert.ok(
      await eventually(
        async () =>
          (await sql<{ n: string }>(`SELECT count(*) AS n FROM ${outbox()}`))[0]!.n === '0' &&
          new Set(receiver.accepted.map((d) => d.id)).size >= expected,
        30_000,
        100,
      ),
      `every event delivered (${receiver.accepted.length} of ${expected})\n${a.output()}\n${b.output()}`,
    );
    // Stopped gracefully: each waits for its deliveries in flight, so nothing can arrive after this.
    await a.kill('SIGTERM');
    await b.kill('SIGTERM');

    const counts = new Map<string, number>();
    for (const delivery of receiver.seen) counts.set(delivery.id, (counts.get(delivery.id) ?? 0) + 1);
    assert.equal(counts.size, expected, 'as many webhook-ids as events');
    assert.deepEqual(
      [...counts].filter(([, n]) => n !== 1),
      [],
      'no webhook-id arrived twice',
    );
    assert.equal(receiver.accepted.length, expected);
    assert.ok(
      receiver.accepted.every((d) => d.verified),
      'every delivery signed with the secret',
    );
    const types = receiver.accepted.map((d) => d.event.type);
    assert.equal(types.filter((t) => t === 'credential.created').length, made);
    assert.equal(types.filter((t) => t === 'authentication.succeeded').length, made);
    assert.ok(heldAtOnce >= 2, `requests of both instances were held at once (${heldAtOnce})`);
  });
});
