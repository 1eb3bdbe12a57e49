// Rate limits (docs/operations.md "Rate limits"): token buckets per application and per address, in memory
// (one instance) or in Redis (shared by every instance), refusing with 429 RATE_LIMITED (hooks).
import { createRateLimitHooks } from '../../ratelimit/limiter.js';
import { MemoryBucketStore } from '../../stores/memory/buckets.js';
import { RedisBucketStore } from '../../stores/redis/buckets.js';
import type { OperatorFeature } from '../feature-types.js';

export const rateLimitsFeature: OperatorFeature = {
  name: 'rate-limits',
  configKeys: ['rateLimits'],
  routes: [],
  stores: [],
  provides: [],
  async setup({ input }) {
    const { rateLimits } = input.options;
    const buckets =
      input.bucketStore ??
      (rateLimits.store === 'memory'
        ? new MemoryBucketStore()
        : await RedisBucketStore.open({ url: rateLimits.store, keyPrefix: rateLimits.keyPrefix }));
    return {
      hooks: [createRateLimitHooks(rateLimits, { store: buckets, now: input.runtime.now, log: input.log })],
      readiness: [{ name: 'rate-limits', check: () => buckets.ping() }],
      closers: [{ name: 'rate-limits', close: () => buckets.close() }],
      // Only what was opened here: a bucket store given by the caller is the caller's.
      abort: async () => {
        if (!input.bucketStore) await buckets.close().catch(() => undefined);
      },
    };
  },
};
