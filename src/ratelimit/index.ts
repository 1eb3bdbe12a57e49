// Rate limits for the four operations: token buckets per application and per client address.
export { createRateLimitHooks, DEFAULT_RATE_LIMITS } from './limiter.js';
export type { RateLimitOptions, RateLimitHooks, RateLimitDeps } from './limiter.js';
export { addressKey } from './address.js';
export type { RateLimitRule } from './types.js';
