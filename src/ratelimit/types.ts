// A rate limit's rule (burst, perSecond), checked, and the buckets' store contract (BucketStore), which
// stores/memory/buckets.ts and stores/redis/buckets.ts implement (stores/types.ts re-exports it).
import type { RateLimitRule } from '../service-config.js';

export type { RateLimitRule };

export function validateRule(rule: RateLimitRule, where: string): RateLimitRule {
  if (!(Number.isFinite(rule.burst) && rule.burst >= 1)) throw new Error(`${where}.burst must be a number >= 1`);
  if (!(Number.isFinite(rule.perSecond) && rule.perSecond > 0))
    throw new Error(`${where}.perSecond must be a number > 0`);
  return rule;
}

// Rate limits are token buckets: each holds up to `burst` tokens, refills at `perSecond` tokens a second, and
// every admitted request takes one token from each bucket it falls under (its application, its address).

export interface BucketRequest {
  readonly key: string;
  readonly rule: RateLimitRule;
}

export interface BucketDecision {
  readonly allowed: boolean;
  /** 0 when allowed; otherwise whole seconds until every bucket has a token again (at least 1). */
  readonly retryAfterSeconds: number;
}

/**
 * Where the buckets live: in process (one instance) or shared (Redis, several instances). `consume` is
 * all-or-nothing and atomic: a token is taken from every bucket or from none.
 */
export interface BucketStore {
  consume(buckets: readonly BucketRequest[], now: number): Promise<BucketDecision>;
  /** Resolves when the backend answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
