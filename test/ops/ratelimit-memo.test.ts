// BoundedMemo (the rate limiter's per-Client-ID and per-address bucket memo) and the limiter's decisions
// when the same client and address come back many times.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRateLimitHooks, MemoryBucketStore } from '../../src/ratelimit/index.js';
import { BoundedMemo } from '../../src/ratelimit/memo.js';

describe('BoundedMemo', () => {
  it('computes a key once, null and undefined results included', () => {
    const calls: string[] = [];
    const memo = new BoundedMemo(10, (key: string) => { calls.push(key); return key === 'none' ? null : key === 'undef' ? undefined : key.length; });
    assert.equal(memo.get('abc'), 3);
    assert.equal(memo.get('abc'), 3);
    assert.equal(memo.get('none'), null);
    assert.equal(memo.get('none'), null);
    assert.equal(memo.get('undef'), undefined);
    assert.equal(memo.get('undef'), undefined);
    assert.deepEqual(calls, ['abc', 'none', 'undef']);
  });

  it('never holds more than max entries', () => {
    const memo = new BoundedMemo(5, (key: number) => key * 2);
    for (let i = 0; i < 23; i++) assert.equal(memo.get(i), i * 2);
    assert.ok(memo.size <= 5, String(memo.size));
    assert.throws(() => new BoundedMemo(0, (k: number) => k));
  });
});

describe('createRateLimitHooks with repeated clients and addresses', () => {
  it('still takes a token per request from the same application and address buckets', async () => {
    const store = new MemoryBucketStore();
    const hooks = createRateLimitHooks({ perApplication: { burst: 5, perSecond: 0.001 }, perAddress: { burst: 3, perSecond: 0.001 } }, { store, now: () => 1_800_000_000_000 });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push((await hooks.admit({ clientId: 'app', remoteAddress: '::ffff:198.51.100.4' })).allowed);
    assert.deepEqual(decisions, [true, true, true, false], 'the address bucket (3) runs out, under its IPv4 key');
    assert.equal((await hooks.admit({ clientId: 'app', remoteAddress: '198.51.100.5' })).allowed, true);
    assert.equal((await hooks.admit({ clientId: 'app', remoteAddress: '198.51.100.6' })).allowed, true);
    assert.equal((await hooks.admit({ clientId: 'app', remoteAddress: '198.51.100.7' })).allowed, false, 'the application bucket (5) runs out');
    assert.equal((await hooks.admit({ clientId: 'other', remoteAddress: null })).allowed, true);
  });
});
