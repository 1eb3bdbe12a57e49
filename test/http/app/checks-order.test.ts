// The app's order of checks over a real socket (issue 23 regressions): a request that declares a body over
// the limit gets its 413 at once, whether or not it sends the body, and its connection still closes
// cleanly; an address over its rate limit gets 429 before anything else it sent is looked at (User-agent,
// Content-Type, body), under many parallel requests, with the memory and the Redis bucket store.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createServiceServer } from '../../../src/http/server.js';
import { createRateLimitHooks } from '../../../src/ratelimit/index.js';
import { MemoryBucketStore } from '../../../src/stores/memory/buckets.js';
import { RedisBucketStore } from '../../../src/stores/redis/buckets.js';
import type { BucketStore } from '../../../src/stores/types.js';
import { freshPrefix, REDIS_URL } from '../../scale/support/backends.js';
import { CLIENT_ID, Harness, ORIGIN, PATHS, VENDOR, username } from '../../support/harness.js';

async function listen(h: Harness): Promise<{ server: Server; port: number }> {
  const server = createServiceServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('a declared body over the limit: 413 at once, then a clean close (real socket)', () => {
  let server: Server;
  let port = 0;
  before(async () => {
    ({ server, port } = await listen(new Harness()));
  });
  after(() => stop(server));

  it('Content-Length: 10000000000 and no body: the whole 413 arrives well within a second', async () => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | null = null;
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const started = performance.now();
    const answered = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no complete answer within 10 s')), 10_000);
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        const text = Buffer.concat(chunks).toString('latin1');
        const [head, body = ''] = text.split('\r\n\r\n', 2);
        const length = /\r\ncontent-length: (\d+)/i.exec(head ?? '')?.[1];
        if (length !== undefined && Buffer.byteLength(body) >= Number(length)) {
          clearTimeout(timer);
          resolve(text);
        }
      });
    });
    socket.write(
      [
        `POST ${PATHS.assertionOptions} HTTP/1.1`,
        'Host: x',
        `User-Agent: ${VENDOR} AppID: ${CLIENT_ID}`,
        `Origin: ${ORIGIN}`,
        'Content-Type: application/json',
        'Content-Length: 10000000000',
        '',
        '',
      ].join('\r\n'),
    );
    const text = await answered;
    const elapsed = performance.now() - started;
    assert.match(text, /^HTTP\/1\.1 413 /);
    assert.match(text, /\r\nconnection: close\r\n/i);
    assert.equal(JSON.parse(text.split('\r\n\r\n', 2)[1]!).errorMessage[0], 'PAYLOAD_TOO_LARGE');
    assert.ok(elapsed < 1000, `the 413 took ${elapsed.toFixed(0)} ms`);
    // The client, told the connection closes, ends its side: the server closes too, without a reset.
    socket.end();
    const bound = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 3000).unref());
    assert.notEqual(await Promise.race([closed, bound]), 'timeout', 'the server did not close the connection');
    assert.equal(error, null);
  });
});

const BURST = 5;

async function redisStore(): Promise<{ store: BucketStore; close(): Promise<void> }> {
  const prefix = freshPrefix('rl-first');
  const store = await RedisBucketStore.open({ url: REDIS_URL, keyPrefix: prefix.prefix });
  return {
    store,
    close: async () => {
      await store.close();
      await prefix.drop();
    },
  };
}

const BUCKET_STORES = [
  { name: 'memory', open: async () => ({ store: new MemoryBucketStore() as BucketStore, close: async () => {} }) },
  { name: 'redis', open: redisStore },
];

for (const kind of BUCKET_STORES) {
  describe(`an address over its rate limit: 429 before anything else, ${kind.name} buckets (real socket)`, () => {
    let server: Server;
    let url = '';
    let closeStore: () => Promise<void>;
    before(async () => {
      const opened = await kind.open();
      closeStore = opened.close;
      // The harness clock stands still: no token comes back during the test.
      const h: Harness = new Harness({
        hooks: createRateLimitHooks(
          { perApplication: null, perAddress: { burst: BURST, perSecond: 1 } },
          { store: opened.store, now: () => h.clock.now() },
        ),
      });
      let port = 0;
      ({ server, port } = await listen(h));
      url = `http://127.0.0.1:${port}`;
    });
    after(async () => {
      await stop(server);
      await closeStore();
    });

    const good = { 'user-agent': `${VENDOR} AppID: ${CLIENT_ID}`, origin: ORIGIN, 'content-type': 'application/json' };
    const body = JSON.stringify({ username: username('alice') });
    /** Requests wrong in every way the app checks after admission. */
    const bad: { headers: Record<string, string>; body: string }[] = [
      { headers: { origin: ORIGIN, 'content-type': 'application/json' }, body },
      { headers: { ...good, 'user-agent': 'curl/8' }, body },
      { headers: { ...good, 'user-agent': `${VENDOR} AppID: unknown-app` }, body },
      { headers: { ...good, 'content-type': 'text/plain' }, body },
      { headers: good, body: '{"username":' },
      { headers: good, body: JSON.stringify({ username: 42 }) },
      { headers: good, body: 'x'.repeat(70_000) },
    ];

    it('once the burst is spent, 140 parallel requests, each wrong in its own way, all answer 429', async () => {
      for (let i = 0; i < BURST; i++) {
        const res = await fetch(url + PATHS.assertionOptions, {
          method: 'POST',
          headers: good,
          body,
          signal: AbortSignal.timeout(10_000),
        });
        assert.equal(res.status, 200, await res.text());
      }
      const answers = await Promise.all(
        Array.from({ length: 140 }, async (_, i) => {
          const { headers, body: sent } = bad[i % bad.length]!;
          const res = await fetch(url + PATHS.assertionOptions, {
            method: 'POST',
            headers,
            body: sent,
            signal: AbortSignal.timeout(20_000),
          });
          const text = await res.text();
          return { status: res.status, name: JSON.parse(text).errorMessage[0], retry: res.headers.get('retry-after') };
        }),
      );
      const other = answers.filter((a) => a.status !== 429 || a.name !== 'RATE_LIMITED' || a.retry === null);
      assert.deepEqual(other, []);
    });
  });
}
