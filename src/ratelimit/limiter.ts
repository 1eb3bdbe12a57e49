// The admission hook (ServiceHooks.admit): each request of the four operations takes a token from its
// client address's bucket first, and, once its relay secret passed, from its application's bucket; if
// either is empty the http layer answers 429 RATE_LIMITED with Retry-After. A call refused for its relay
// secret (or an unknown Client ID) counts on its address only, so whoever knows a Client ID cannot hold
// the real relay at 429 (`scope`, src/service.ts).
import type { ServiceHooks } from '../service.js';
import type { Logger } from '../util/log.js';
import { addressKey } from './address.js';
import { type BucketDecision, type BucketRequest, type BucketStore, validateRule } from './types.js';
import type { RateLimitOptions } from '../service-config.js';
export type { RateLimitOptions };

export const DEFAULT_RATE_LIMITS: RateLimitOptions = {
  perApplication: { burst: 200, perSecond: 50 },
  perAddress: { burst: 100, perSecond: 20 },
  onStoreError: 'allow',
};

/** The answer to every admitted request (one shared object: callers only read it). */
const ALLOWED: BucketDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

export interface RateLimitHooks extends Required<Pick<ServiceHooks, 'admit'>> {}

export interface RateLimitDeps {
  readonly store: BucketStore;
  /** Epoch ms (runtime.now). */
  readonly now: () => number;
  readonly log?: Logger;
}

export function createRateLimitHooks(options: RateLimitOptions, deps: RateLimitDeps): RateLimitHooks {
  if (options.perApplication) validateRule(options.perApplication, 'rateLimits.perApplication');
  if (options.perAddress) validateRule(options.perAddress, 'rateLimits.perAddress');
  for (const [id, rule] of Object.entries(options.applications ?? {})) {
    if (rule) validateRule(rule, `rateLimits.applications.${id}`);
  }
  const exempt = new Set((options.exemptAddresses ?? []).map((a) => addressKey(a)));
  const overrides = new Map(Object.entries(options.applications ?? {}));

  const appBucket = (clientId: string | null): BucketRequest | null => {
    // A request whose User-agent names no application is counted on its address alone (then refused with 400).
    if (clientId === null) return null;
    const rule = overrides.has(clientId) ? overrides.get(clientId)! : options.perApplication;
    return rule ? { key: `app:${clientId}`, rule } : null;
  };
  const addressBucket = (remoteAddress: string | null): BucketRequest | null => {
    const address = addressKey(remoteAddress);
    return options.perAddress && !exempt.has(address) ? { key: `addr:${address}`, rule: options.perAddress } : null;
  };

  return {
    async admit({ clientId, remoteAddress, scope }) {
      const app = scope === 'address' ? null : appBucket(clientId);
      const address = scope === 'application' ? null : addressBucket(remoteAddress);
      const buckets = app && address ? [app, address] : app ? [app] : address ? [address] : null;
      if (buckets === null) return ALLOWED;
      try {
        return await deps.store.consume(buckets, deps.now());
      } catch (error) {
        const deny = options.onStoreError === 'deny';
        deps.log?.warn(
          {
            event: 'rate_limit_store_error',
            error: error instanceof Error ? error.message : String(error),
            decision: deny ? 'deny' : 'allow',
          },
          'rate-limit store failed',
        );
        return deny ? { allowed: false, retryAfterSeconds: 1 } : ALLOWED;
      }
    },
  };
}
