// A rate limit's rule (burst, perSecond), checked. The buckets' store contract is BucketStore in
// src/stores/types.ts; its backends are stores/memory/buckets.ts and stores/redis/buckets.ts.
import type { RateLimitRule } from '../config.js';
export type { RateLimitRule };

export function validateRule(rule: RateLimitRule, where: string): RateLimitRule {
  if (!(Number.isFinite(rule.burst) && rule.burst >= 1)) throw new Error(`${where}.burst must be a number >= 1`);
  if (!(Number.isFinite(rule.perSecond) && rule.perSecond > 0))
    throw new Error(`${where}.perSecond must be a number > 0`);
  return rule;
}
