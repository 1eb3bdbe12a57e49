// The limiter's decisions when the same client and address come back many times.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRateLimitHooks } from '../../src/ratelimit/index.js';
import { MemoryBucketStore } from '../../src/stores/memory/buckets.js';

describe('createRateLimitHooks with repeated clients and addresses', () => {
  it('still takes a token per request from the same application and address buckets', async () => {
    const store = new MemoryBucketStore();
    const hooks = createRateLimitHooks(
      { perApplication: { burst: 5, perSecond: 0.001 }, perAddress: { burst: 3, perSecond: 0.001 } },
      { store, now: () => 1_800_000_000_000 },
    );
    const decisions = [];
    for (let i = 0; i < 4; i++)
      decisions.push((await hooks.admit({ clientId: 'app', remoteAddress: '::ffff:198.51.100.4' })).allowed);
    assert.deepEqual(decisions, [true, true, true, false], 'the address bucket (3) runs out, under its IPv4 key');
    assert.equal((await hooks.admit({ clientId: 'app', remoteAddress: '198.51.100.5' })).allowed, true);
    assert.equal((await hooks.admit({ clientId: 'app', remoteAddress: '198.51.100.6' })).allowed, true);
    assert.equal(
      (await hooks.admit({ clientId: 'app', remoteAddress: '198.51.100.7' })).allowed,
      false,
      'the application bucket (5) runs out',
    );
    assert.equal((await hooks.admit({ clientId: 'other', remoteAddress: null })).allowed, true);
  });
});
