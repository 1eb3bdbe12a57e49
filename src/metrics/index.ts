// The metrics module's public face: a registry, process metrics, the service hook and store timing.
export { MetricsRegistry, EXPOSITION_CONTENT_TYPE, DEFAULT_SECONDS_BUCKETS } from './registry.js';
export type { Counter, Gauge, Histogram, Labels, Collector } from './registry.js';
export { registerProcessMetrics } from './process.js';
export { createMetricsHooks, UNKNOWN_CLIENT_LABEL } from './hooks.js';
export type { MetricsHooks, MetricsHooksOptions } from './hooks.js';
export { createStoreMetrics } from './stores.js';
export type { StoreMetrics } from './stores.js';
export { registerWebhookMetrics } from './webhook-delivery.js';
export type { OutboxDepth, WebhookAttemptObserver } from './webhook-delivery.js';
