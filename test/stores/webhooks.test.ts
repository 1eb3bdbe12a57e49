// The webhook stores of every backend (memory, SQLite, PostgreSQL in a schema of its own): the admin API's
// webhooks (list in order, create, update, delete, per application) and the outbox (two leases at once take
// different messages, a failure retried or dead, dead letters listed and sent again, a deleted webhook's
// messages discarded, the pending and dead messages counted).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { openSqliteCredentialStore } from '../../src/stores/sqlite/credentials.js';
import { openPostgresCredentialStore } from '../../src/stores/postgres/open.js';
import type { CredentialStore, OutboxMessage } from '../../src/stores/types.js';
import { freshSchema, POSTGRES_URL, type TestSchema } from '../scale/support/backends.js';
import { tempDir } from '../config/support.js';

const schemas: TestSchema[] = [];
after(async () => {
  await Promise.all(schemas.map((s) => s.drop()));
});

const backends: [string, () => Promise<CredentialStore>][] = [
  ['memory', async () => new MemoryCredentialStore()],
  ['sqlite', async () => openSqliteCredentialStore(join(tempDir('passkey-webhook-store-'), 'p.db'))],
  [
    'postgres',
    async () => {
      const schema = await freshSchema('webhooks');
      schemas.push(schema);
      return openPostgresCredentialStore(POSTGRES_URL, { schema: schema.schema });
    },
  ],
];

const message = (id: string, webhookId = 'wh_a', createdAt = 1000): OutboxMessage => ({
  id,
  clientId: 'app-1',
  webhookId,
  type: 'credential.created',
  body: `{"id":"${id}"}`,
  createdAt,
});

for (const [name, open] of backends) {
  describe(`webhook stores: ${name}`, () => {
    it('webhooks: listed oldest first per application, updated (URL, events), deleted', async () => {
      const store = await open();
      try {
        const { webhooks } = store;
        await webhooks.create({
          id: 'wh_2',
          clientId: 'app-1',
          url: 'https://b/',
          secret: 's2',
          events: null,
          createdAt: 2,
        });
        await webhooks.create({
          id: 'wh_1',
          clientId: 'app-1',
          url: 'https://a/',
          secret: 's1',
          events: ['user.deleted'],
          createdAt: 1,
        });
        await webhooks.create({
          id: 'wh_3',
          clientId: 'app-2',
          url: 'https://c/',
          secret: 's3',
          events: null,
          createdAt: 3,
        });
        assert.deepEqual(
          (await webhooks.list('app-1')).map((w) => [w.id, w.url, w.events]),
          [
            ['wh_1', 'https://a/', ['user.deleted']],
            ['wh_2', 'https://b/', null],
          ],
        );
        assert.equal(await webhooks.update('app-1', 'wh_1', { url: 'https://a2/', events: null }), true);
        assert.equal(
          await webhooks.update('app-1', 'wh_2', { url: 'https://b/', events: ['credential.created', 'user.deleted'] }),
          true,
        );
        assert.equal(await webhooks.update('app-2', 'wh_1', { url: 'https://x/', events: null }), false, 'another app');
        assert.equal(await webhooks.update('app-1', 'wh_none', { url: 'https://x/', events: null }), false);
        assert.deepEqual(
          (await webhooks.list('app-1')).map((w) => [w.id, w.url, w.events, w.secret, w.createdAt]),
          [
            ['wh_1', 'https://a2/', null, 's1', 1],
            ['wh_2', 'https://b/', ['credential.created', 'user.deleted'], 's2', 2],
          ],
        );
        assert.equal(await webhooks.delete('app-2', 'wh_1'), false);
        assert.equal(await webhooks.delete('app-1', 'wh_1'), true);
        assert.equal(await webhooks.deleteByApplication('app-1'), 1);
        assert.deepEqual(await webhooks.list('app-1'), []);
        assert.equal((await webhooks.list('app-2')).length, 1);
      } finally {
        await store.close();
      }
    });

    it('outbox: disjoint leases, retry, dead letter, resend, discard', async () => {
      const store = await open();
      try {
        const { outbox } = store;
        assert.deepEqual(await outbox.counts(), { pending: 0, dead: 0 }, 'empty');
        await outbox.enqueue([message('msg_1'), message('msg_2'), message('msg_3'), message('msg_4', 'wh_b')]);
        assert.deepEqual(await outbox.counts(), { pending: 4, dead: 0 });
        const [first, second] = await Promise.all([
          outbox.lease('one', 2000, 10_000, 2),
          outbox.lease('two', 2000, 10_000, 2),
        ]);
        const ids = [...first!, ...second!].map((m) => m.id).sort();
        assert.deepEqual(ids, ['msg_1', 'msg_2', 'msg_3', 'msg_4'], 'each message leased once');
        assert.deepEqual(await outbox.lease('three', 2000, 10_000, 10), [], 'all held');

        const mine = first![0]!;
        await outbox.delivered(mine.id, 'two'); // not its holder: nothing happens
        await outbox.delivered(mine.id, 'one');
        const retried = first![1] ?? second![0]!;
        const owner = first![1] ? 'one' : 'two';
        await outbox.failed(retried.id, owner, { attempts: 1, at: 7000, error: 'HTTP 500', dead: false });
        assert.deepEqual(await outbox.lease('three', 6999, 10_000, 10), [], 'not due before its retry');
        const [again] = await outbox.lease('three', 7000, 10_000, 10);
        assert.deepEqual([again?.id, again?.attempts, again?.lastError], [retried.id, 1, 'HTTP 500']);
        await outbox.failed(retried.id, 'three', { attempts: 2, at: 8000, error: 'timeout', dead: true });
        const dead = await outbox.listDead({ limit: 10 });
        assert.deepEqual(
          dead.map((d) => [d.id, d.attempts, d.lastError, d.deadAt]),
          [[retried.id, 2, 'timeout', 8000]],
        );
        assert.deepEqual(await outbox.listDead({ limit: 10, clientId: 'app-2' }), []);
        assert.deepEqual(await outbox.counts(), { pending: 2, dead: 1 }, 'one delivered, one dead, two leased');
        assert.equal(await outbox.resend(retried.id, 9000), true);
        assert.equal(await outbox.resend(retried.id, 9000), false, 'no longer a dead letter');
        const [resent] = await outbox.lease('four', 9000, 10_000, 10);
        assert.deepEqual([resent?.id, resent?.attempts, resent?.body], [retried.id, 0, `{"id":"${retried.id}"}`]);
        // msg_4 (webhook wh_b) still leased by its first holder; its webhook deleted: discarded.
        assert.equal(await outbox.discard('wh_b'), 1);
        assert.deepEqual(await outbox.counts(), { pending: 2, dead: 0 });
      } finally {
        await store.close();
      }
    });
  });
}
