// Metrics (docs/operations.md "Metrics"): the registry behind /metrics, the process's and the SQLite
// writer's figures, the service's stores timed into the store-latency histogram, the ceremonies' funnel
// (hooks) and the recent ceremonies the admin overview shows.
import { createMetricsHooks } from '../../metrics/hooks.js';
import { registerProcessMetrics } from '../../metrics/process.js';
import { RecentCeremonies } from '../../metrics/recent.js';
import { MetricsRegistry } from '../../metrics/registry.js';
import { registerSqliteWriterMetrics } from '../../metrics/sqlite-writer.js';
import { createStoreMetrics } from '../../metrics/stores.js';
import type { OperatorFeature } from '../feature-types.js';

export const metricsFeature: OperatorFeature = {
  name: 'metrics',
  configKeys: ['admin.metricsRequireToken'],
  routes: ['/metrics', '/admin/overview'],
  stores: [],
  provides: ['registry', 'instrument', 'credentials', 'challenges', 'overview'],
  setup(context) {
    const { input } = context;
    const registry = new MetricsRegistry();
    const stopProcessMetrics = registerProcessMetrics(registry, { now: input.runtime.now });
    if (input.sqliteWriter) registerSqliteWriterMetrics(registry, input.sqliteWriter);
    const storeMetrics = createStoreMetrics(registry);
    const instrument = <T extends object>(name: string, store: T): T => storeMetrics.instrument(name, store);
    const isKnownClient = (id: string) => context.need('applications').isKnown(id);
    const recent = new RecentCeremonies({ now: input.runtime.now, isKnownClient });
    context.provide('registry', registry);
    context.provide('instrument', instrument);
    context.provide('credentials', instrument('credentials', input.credentials));
    context.provide('challenges', instrument('challenges', input.challenges));
    context.provide('overview', () => recent.report());
    const stop = async () => stopProcessMetrics();
    return {
      hooks: [createMetricsHooks(registry, { isKnownClient }), recent.hooks],
      closers: [{ name: 'process-metrics', close: stop }],
      abort: stop,
    };
  },
};
