import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { addressKey, createRateLimitHooks } from '../../src/ratelimit/index.js';
import { MemoryBucketStore } from '../../src/stores/memory/buckets.js';
import { RedisBucketStore } from '../../src/stores/redis/buckets.js';
import type { BucketStore } from '../../src/stores/types.js';
import { StoreUnavailableError } from '../../src/errors/catalogue.js';

const rule = (burst: number, perSecond: number) => ({ burst, perSecond });
const T0 = 1_800_000_000_000;

/** The same behaviour from every bucket store; `second` is another instance on the same backend (or the same one). */
function bucketContract(
  name: string,
  open: () => Promise<{ store: BucketStore; second: BucketStore; close: () => Promise<void> }>,
) {
  describe(`${name} bucket store`, () => {
    let store: BucketStore;
    let second: BucketStore;
    let close: () => Promise<void>;
    let n = 0;
    const key = (label: string) => `${label}-${++n}`;
    before(async () => ({ store, second, close } = await open()));
    after(async () => close());

    it('admits a burst, then refuses with Retry-After until a token has refilled', async () => {
      const k = key('burst');
      for (let i = 0; i < 3; i++)
        assert.deepEqual(await store.consume([{ key: k, rule: rule(3, 0.5) }], T0), {
          allowed: true,
          retryAfterSeconds: 0,
        });
      assert.deepEqual(await store.consume([{ key: k, rule: rule(3, 0.5) }], T0), {
        allowed: false,
        retryAfterSeconds: 2,
      });
      assert.equal((await store.consume([{ key: k, rule: rule(3, 0.5) }], T0 + 1999)).allowed, false);
      assert.equal((await store.consume([{ key: k, rule: rule(3, 0.5) }], T0 + 2000)).allowed, true);
      assert.equal((await store.consume([{ key: k, rule: rule(3, 0.5) }], T0 + 2000)).allowed, false);
    });

    it('rounds Retry-After up to whole seconds, at least 1', async () => {
      const k = key('round');
      await store.consume([{ key: k, rule: rule(1, 100) }], T0);
      assert.deepEqual(await store.consume([{ key: k, rule: rule(1, 100) }], T0), {
        allowed: false,
        retryAfterSeconds: 1,
      });
      const slow = key('slow');
      await store.consume([{ key: slow, rule: rule(1, 1 / 90) }], T0);
      assert.deepEqual(await store.consume([{ key: slow, rule: rule(1, 1 / 90) }], T0 + 500), {
        allowed: false,
        retryAfterSeconds: 90,
      });
    });

    it('takes from every bucket or from none', async () => {
      const app = key('app');
      const addr = key('addr');
      assert.equal((await store.consume([{ key: addr, rule: rule(1, 0.001) }], T0)).allowed, true);
      // The address bucket is empty: the request is refused and the application bucket keeps its token.
      assert.equal(
        (
          await store.consume(
            [
              { key: app, rule: rule(1, 0.001) },
              { key: addr, rule: rule(1, 0.001) },
            ],
            T0,
          )
        ).allowed,
        false,
      );
      assert.equal((await store.consume([{ key: app, rule: rule(1, 0.001) }], T0)).allowed, true);
    });

    it('keeps buckets apart by key', async () => {
      const a = key('a');
      const b = key('b');
      assert.equal((await store.consume([{ key: a, rule: rule(1, 0.001) }], T0)).allowed, true);
      assert.equal((await store.consume([{ key: a, rule: rule(1, 0.001) }], T0)).allowed, false);
      assert.equal((await store.consume([{ key: b, rule: rule(1, 0.001) }], T0)).allowed, true);
    });

    it('adds no tokens when the clock goes backwards', async () => {
      const k = key('back');
      await store.consume([{ key: k, rule: rule(1, 1) }], T0 + 10_000);
      assert.equal((await store.consume([{ key: k, rule: rule(1, 1) }], T0)).allowed, false);
      assert.equal((await store.consume([{ key: k, rule: rule(1, 1) }], T0 + 10_000)).allowed, false);
      assert.equal((await store.consume([{ key: k, rule: rule(1, 1) }], T0 + 11_000)).allowed, true);
    });

    it('never admits more than the burst under concurrent calls from two instances', async () => {
      const k = key('race');
      const calls = Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? store : second).consume([{ key: k, rule: rule(10, 0.001) }], T0),
      );
      const decisions = await Promise.all(calls);
      assert.equal(decisions.filter((d) => d.allowed).length, 10);
    });
  });
}

bucketContract('memory', async () => {
  const store = new MemoryBucketStore();
  return { store, second: store, close: () => store.close() };
});

const prefix = `test:rl:${randomBytes(6).toString('hex')}:`;
bucketContract('redis', async () => {
  const store = await RedisBucketStore.open({ url: 'redis://127.0.0.1:6379', keyPrefix: prefix });
  const second = await RedisBucketStore.open({ url: 'redis://127.0.0.1:6379', keyPrefix: prefix });
  return {
    store,
    second,
    close: async () => {
      const cleaner = createClient({ url: 'redis://127.0.0.1:6379' });
      await cleaner.connect();
      const keys = await cleaner.keys(`${prefix}*`);
      if (keys.length > 0) await cleaner.del(keys);
      await cleaner.quit();
      await store.close();
      await second.close();
    },
  };
});

describe('redis bucket store: availability', () => {
  it('answers ping, and refuses to open against an unreachable Redis with StoreUnavailableError', async () => {
    const store = await RedisBucketStore.open({ url: 'redis://127.0.0.1:6379', keyPrefix: prefix });
    await store.ping();
    await store.close();
    await assert.rejects(RedisBucketStore.open({ url: 'redis://127.0.0.1:1' }), StoreUnavailableError);
  });

  it('uses a shared client without closing it', async () => {
    const client = createClient({ url: 'redis://127.0.0.1:6379' });
    await client.connect();
    const store = await RedisBucketStore.open({ client, keyPrefix: prefix });
    assert.equal((await store.consume([{ key: 'shared', rule: rule(1, 1) }], T0)).allowed, true);
    await store.close();
    assert.equal(await client.ping(), 'PONG');
    await client.del(`${prefix}shared`);
    await client.quit();
  });
});

describe('memory bucket store: bounded', () => {
  it('forgets full buckets and drops the oldest past maxBuckets', async () => {
    const store = new MemoryBucketStore({ maxBuckets: 100 });
    for (let i = 0; i < 1000; i++) await store.consume([{ key: `k${i}`, rule: rule(5, 1) }], T0);
    assert.ok(store.size <= 100, `size ${store.size}`);
    for (let i = 0; i < 150; i++) await store.consume([{ key: `later${i}`, rule: rule(5, 1) }], T0 + 60_000);
    assert.ok(store.size <= 100);
  });
});

describe('addressKey', () => {
  it('normalises IPv4, IPv4-mapped IPv6 and IPv6 (/64)', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0DB8:0001:0002::ff'), '2001:db8:1:2::/64');
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(addressKey(null), 'unknown');
    assert.equal(addressKey('not an address'), 'unknown');
  });
});

describe('createRateLimitHooks (ServiceHooks.admit)', () => {
  const now = () => T0;

  it('limits per application across addresses and per address across applications', async () => {
    const hooks = createRateLimitHooks(
      { perApplication: rule(2, 0.001), perAddress: rule(3, 0.001) },
      { store: new MemoryBucketStore(), now },
    );
    assert.equal((await hooks.admit({ clientId: 'a', remoteAddress: '10.0.0.1' })).allowed, true);
    assert.equal((await hooks.admit({ clientId: 'a', remoteAddress: '10.0.0.2' })).allowed, true);
    const refused = await hooks.admit({ clientId: 'a', remoteAddress: '10.0.0.3' });
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterSeconds >= 1);
    assert.equal((await hooks.admit({ clientId: 'b', remoteAddress: '10.0.0.1' })).allowed, true);
    assert.equal((await hooks.admit({ clientId: 'c', remoteAddress: '10.0.0.1' })).allowed, true);
    assert.equal(
      (await hooks.admit({ clientId: 'd', remoteAddress: '10.0.0.1' })).allowed,
      false,
      'address bucket (3) is empty',
    );
    assert.equal((await hooks.admit({ clientId: 'd', remoteAddress: '::ffff:10.0.0.9' })).allowed, true);
  });

  it('applies per-application overrides and address exemptions, and can switch limits off', async () => {
    const hooks = createRateLimitHooks(
      {
        perApplication: rule(1, 0.001),
        perAddress: rule(1, 0.001),
        applications: { big: rule(3, 0.001), free: null },
        exemptAddresses: ['::ffff:192.0.2.1'],
      },
      { store: new MemoryBucketStore(), now },
    );
    for (let i = 0; i < 3; i++)
      assert.equal((await hooks.admit({ clientId: 'big', remoteAddress: '192.0.2.1' })).allowed, true);
    assert.equal((await hooks.admit({ clientId: 'big', remoteAddress: '192.0.2.1' })).allowed, false);
    for (let i = 0; i < 5; i++)
      assert.equal((await hooks.admit({ clientId: 'free', remoteAddress: '192.0.2.1' })).allowed, true);
    const off = createRateLimitHooks(
      { perApplication: null, perAddress: null },
      { store: new MemoryBucketStore(), now },
    );
    for (let i = 0; i < 5; i++) assert.equal((await off.admit({ clientId: 'x', remoteAddress: null })).allowed, true);
  });

  it('admits (and logs) or refuses when the bucket store fails, as configured', async () => {
    const failing: BucketStore = {
      consume: async () => {
        throw new StoreUnavailableError('down');
      },
      ping: async () => {
        throw new StoreUnavailableError('down');
      },
      close: async () => {},
    };
    const warnings: Record<string, unknown>[] = [];
    const log = {
      info() {},
      error() {},
      warn: (fields: Record<string, unknown>) => {
        warnings.push(fields);
      },
    };
    const open = createRateLimitHooks({ perApplication: rule(1, 1), perAddress: null }, { store: failing, now, log });
    assert.deepEqual(await open.admit({ clientId: 'a', remoteAddress: null }), { allowed: true, retryAfterSeconds: 0 });
    assert.equal(warnings[0]?.event, 'rate_limit_store_error');
    const closed = createRateLimitHooks(
      { perApplication: rule(1, 1), perAddress: null, onStoreError: 'deny' },
      { store: failing, now },
    );
    assert.deepEqual(await closed.admit({ clientId: 'a', remoteAddress: null }), {
      allowed: false,
      retryAfterSeconds: 1,
    });
  });

  it('refuses invalid rules at construction', () => {
    assert.throws(
      () =>
        createRateLimitHooks({ perApplication: rule(0, 1), perAddress: null }, { store: new MemoryBucketStore(), now }),
      /burst/,
    );
    assert.throws(
      () =>
        createRateLimitHooks({ perApplication: null, perAddress: rule(1, 0) }, { store: new MemoryBucketStore(), now }),
      /perSecond/,
    );
  });
});
