// The metrics module's public face: a registry, process metrics, the service hook and store timing.
export { MetricsRegistry, Counter, Gauge, Histogram, EXPOSITION_CONTENT_TYPE, DEFAULT_SECONDS_BUCKETS } from './registry.js';
export type { CounterSeries, GaugeSeries, HistogramSeries } from './registry.js';
export type { Labels, Collector } from './registry.js';
export { registerProcessMetrics } from './process.js';
export { createMetricsHooks, UNKNOWN_CLIENT_LABEL } from './hooks.js';
export type { MetricsHooks, MetricsHooksOptions } from './hooks.js';
export { createStoreMetrics } from './stores.js';
export type { StoreMetrics } from './stores.js';
