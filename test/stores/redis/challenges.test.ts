// Redis challenge store (`challenges: "redis://…"`): the shared contract, TTLs that follow the ceremony's
// lifetime, nothing left behind by a take, and behaviour while Redis is unreachable. Runs against the
// machine's Redis under a key prefix of its own, deleted at the end.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { openRedisChallengeStore } from '../../../src/stores/redis/challenges.js';
import { StoreUnavailableError } from '../../../src/errors/catalogue.js';
import { ceremony, challengeStoreContract } from '../contract.js';
import { localCredentialContract } from '../local-contract.js';
import { freshPrefix, REDIS_URL } from '../../scale/support/backends.js';
import { startProxy } from '../../scale/support/proxy.js';

const namespace = freshPrefix('redis-store');
after(() => namespace.drop());

challengeStoreContract('redis', () => openRedisChallengeStore(REDIS_URL, { prefix: namespace.prefix }), {
  reopen: () => openRedisChallengeStore(REDIS_URL, { prefix: namespace.prefix }),
});

/** Stores opened with limits get a key prefix of their own (no other test's entries count towards them). */
const localPrefixes = new WeakMap<object, string>();
const limitedNamespaces: ReturnType<typeof freshPrefix>[] = [];
after(() => Promise.all(limitedNamespaces.map((n) => n.drop())));
localCredentialContract(
  'redis',
  async (localLimits) => {
    const own = localLimits === undefined ? namespace : freshPrefix('redis-local');
    if (own !== namespace) limitedNamespaces.push(own);
    const store = await openRedisChallengeStore(REDIS_URL, {
      prefix: own.prefix,
      ...(localLimits ? { localLimits } : {}),
    });
    localPrefixes.set(store, own.prefix);
    return store;
  },
  {
    reopen: (store, localLimits) =>
      openRedisChallengeStore(REDIS_URL, { prefix: localPrefixes.get(store)!, localLimits }),
  },
);

async function pttl(key: string): Promise<number> {
  const client = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false } });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.pTTL(key);
  } finally {
    await client.close();
  }
}

describe('Redis challenge store: keys and TTLs', () => {
  it('a pending ceremony expires with its timeout; its used-marker lives no longer', async () => {
    const own = freshPrefix('redis-ttl');
    let now = Date.now();
    const store = await openRedisChallengeStore(REDIS_URL, { prefix: own.prefix, clock: () => now });
    try {
      const record = ceremony({ expiresAt: now + 90_000 });
      await store.put(record);
      const [pendingKey] = await own.keys();
      assert.ok(pendingKey?.endsWith(':pending'), `one pending key, got ${pendingKey}`);
      const ttl = await pttl(pendingKey!);
      assert.ok(ttl > 80_000 && ttl <= 90_000, `TTL follows expiresAt, got ${ttl}`);
      now += 30_000;
      assert.equal((await store.take(record.clientId, record.challenge, now)).state, 'taken');
      const keys = await own.keys();
      assert.equal(keys.length, 1);
      assert.ok(keys[0]?.endsWith(':used'), 'the pending key is gone, only the marker is left');
      const markerTtl = await pttl(keys[0]!);
      assert.ok(markerTtl > 0 && markerTtl <= ttl, `marker TTL ${markerTtl} is at most the ceremony's ${ttl}`);
    } finally {
      await store.close();
      await own.drop();
    }
  });

  it('Client IDs and challenges with separators or braces cannot collide with another pair', async () => {
    const own = freshPrefix('redis-keys');
    const store = await openRedisChallengeStore(REDIS_URL, { prefix: own.prefix });
    try {
      const a = ceremony({ clientId: 'a:b', challenge: 'c' });
      const b = ceremony({ clientId: 'a', challenge: 'b:c' });
      const c = ceremony({ clientId: 'x}{y', challenge: '}{' });
      for (const r of [a, b, c]) await store.put(r);
      assert.deepEqual(await store.take('a', 'b:c', Date.now()), { state: 'taken', record: b });
      assert.deepEqual(await store.take('a:b', 'c', Date.now()), { state: 'taken', record: a });
      assert.deepEqual(await store.take('x}{y', '}{', Date.now()), { state: 'taken', record: c });
    } finally {
      await store.close();
      await own.drop();
    }
  });

  it('any string JSON can carry comes back unchanged (lone surrogates, non-BMP, quotes, newlines)', async () => {
    const own = freshPrefix('redis-strings');
    const store = await openRedisChallengeStore(REDIS_URL, { prefix: own.prefix });
    try {
      const record = ceremony({ username: 'a\uD800b "c" \\ 😀 é\nx#idp.example.test' });
      await store.put(record);
      assert.deepEqual(await store.take(record.clientId, record.challenge, Date.now()), { state: 'taken', record });
    } finally {
      await store.close();
      await own.drop();
    }
  });

  it('the key prefix can be given in the URL (?prefix=)', async () => {
    const own = freshPrefix('redis-url');
    const store = await openRedisChallengeStore(`${REDIS_URL}?prefix=${encodeURIComponent(own.prefix)}`);
    try {
      const record = ceremony();
      await store.put(record);
      assert.equal((await own.keys()).length, 1);
      assert.deepEqual(await store.take(record.clientId, record.challenge, Date.now()), { state: 'taken', record });
    } finally {
      await store.close();
      await own.drop();
    }
  });

  it('recovers when the take script was flushed from Redis (e.g. after a Redis restart)', async () => {
    const own = freshPrefix('redis-noscript');
    const store = await openRedisChallengeStore(REDIS_URL, { prefix: own.prefix });
    const admin = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false } });
    admin.on('error', () => undefined);
    await admin.connect();
    try {
      const first = ceremony();
      await store.put(first);
      assert.equal((await store.take(first.clientId, first.challenge, Date.now())).state, 'taken');
      await admin.scriptFlush();
      const second = ceremony();
      await store.put(second);
      assert.deepEqual(await store.take(second.clientId, second.challenge, Date.now()), {
        state: 'taken',
        record: second,
      });
    } finally {
      await admin.close();
      await store.close();
      await own.drop();
    }
  });
});

describe('Redis unreachable', () => {
  it('opening a store where nothing listens fails within the connect bound with StoreUnavailableError', async () => {
    const proxy = await startProxy('127.0.0.1', 6379);
    const url = proxy.url(REDIS_URL);
    await proxy.close();
    await assert.rejects(openRedisChallengeStore(url, { connectTimeoutMs: 1000 }), StoreUnavailableError);
  });

  it('while Redis is cut every call fails with StoreUnavailableError, and works again once it returns', async () => {
    const own = freshPrefix('redis-fault');
    const proxy = await startProxy('127.0.0.1', 6379);
    const store = await openRedisChallengeStore(proxy.url(REDIS_URL), {
      prefix: own.prefix,
      connectTimeoutMs: 1000,
      commandTimeoutMs: 1000,
    });
    try {
      const kept = ceremony();
      await store.put(kept);
      proxy.cut();
      const record = ceremony();
      await assert.rejects(store.put(record), StoreUnavailableError);
      await assert.rejects(store.take(kept.clientId, kept.challenge, Date.now()), StoreUnavailableError);
      await assert.rejects(store.ping!(), StoreUnavailableError);
      proxy.restore();
      // The client reconnects in the background (at most every ~2 s); bounded wait for it.
      const deadline = Date.now() + 15_000;
      let result: Awaited<ReturnType<typeof store.take>> | undefined;
      while (result === undefined && Date.now() < deadline) {
        result = await store.take(kept.clientId, kept.challenge, Date.now()).catch((error: unknown) => {
          assert.ok(
            error instanceof StoreUnavailableError,
            `only unavailability while reconnecting, got ${String(error)}`,
          );
          return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 100));
        });
      }
      assert.deepEqual(result, { state: 'taken', record: kept });
    } finally {
      await store.close();
      await proxy.close();
      await own.drop();
    }
  });

  it('a Redis that stops answering (hung, silent network) fails the call after the command bound, then recovers', async () => {
    const own = freshPrefix('redis-freeze');
    const proxy = await startProxy('127.0.0.1', 6379);
    const store = await openRedisChallengeStore(proxy.url(REDIS_URL), {
      prefix: own.prefix,
      connectTimeoutMs: 1000,
      commandTimeoutMs: 1000,
    });
    try {
      const kept = ceremony();
      await store.put(kept);
      proxy.freeze();
      await assert.rejects(
        store.put(ceremony()),
        (error: unknown) => error instanceof StoreUnavailableError && /no reply/.test(error.message),
      );
      proxy.restore();
      assert.deepEqual(await store.take(kept.clientId, kept.challenge, Date.now()), { state: 'taken', record: kept });
    } finally {
      await store.close();
      await proxy.close();
      await own.drop();
    }
  });

  it('close does not hang on a Redis that stopped answering (shutdown stays bounded)', async () => {
    const own = freshPrefix('redis-close');
    const proxy = await startProxy('127.0.0.1', 6379);
    const store = await openRedisChallengeStore(proxy.url(REDIS_URL), {
      prefix: own.prefix,
      connectTimeoutMs: 1000,
      commandTimeoutMs: 1000,
    });
    try {
      proxy.freeze();
      const put = store.put(ceremony()).catch((error: unknown) => error);
      await store.close(); // the test's own timeout would catch a hang
      assert.ok((await put) instanceof StoreUnavailableError);
    } finally {
      await store.close();
      await proxy.close();
      await own.drop();
    }
  });
});
