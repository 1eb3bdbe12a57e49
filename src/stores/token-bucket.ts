// The token-bucket arithmetic, shared by the memory store (the Redis store runs the same steps in Lua).
import type { RateLimitRule } from '../service-config.js';

export interface BucketState {
  readonly tokens: number;
  /** Epoch ms of the last refill. */
  readonly updatedAt: number;
}

/** The bucket as it stands at `now`: refilled for the time elapsed (never for time running backwards). */
export function refill(state: BucketState | undefined, rule: RateLimitRule, now: number): BucketState {
  if (state === undefined) return { tokens: rule.burst, updatedAt: now };
  const elapsedMs = Math.max(0, now - state.updatedAt);
  return {
    tokens: Math.min(rule.burst, state.tokens + (elapsedMs * rule.perSecond) / 1000),
    updatedAt: Math.max(now, state.updatedAt),
  };
}

/** Milliseconds until the bucket holds one whole token (0 if it does now). */
export function waitMs(state: BucketState, rule: RateLimitRule): number {
  return state.tokens >= 1 ? 0 : Math.ceil(((1 - state.tokens) * 1000) / rule.perSecond);
}

export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
