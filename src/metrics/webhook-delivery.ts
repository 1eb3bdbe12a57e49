// Webhook delivery in /metrics (docs/operations.md, "Webhooks: delivery, retries, dead letters"): every
// attempt by outcome and how long it took, the retries and dead letters it led to, how long a delivered
// event waited from the change it reports, and the outbox's depth, read from the store at scrape time.
import type { MetricsRegistry } from './registry.js';

/** What webhooks/dispatcher.ts reports of an attempt (its DeliveryObserver; named here, not imported). */
export interface WebhookAttemptObserver {
  attempt(outcome: string, seconds: number, lagSeconds: number | null, next: 'retry' | 'dead' | null): void;
}

/** The outbox's counts (the store's `outbox.counts()`). */
export type OutboxDepth = () => Promise<{ readonly pending: number; readonly dead: number }>;

const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LAG_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800, 3600, 7200];

export function registerWebhookMetrics(registry: MetricsRegistry, depth: OutboxDepth): WebhookAttemptObserver {
  const deliveries = registry.counter(
    'passkey_webhook_deliveries_total',
    'Webhook delivery attempts by outcome (delivered|http_error|network_error|timeout|refused|unsendable).',
    ['outcome'],
  );
  const retries = registry.counter(
    'passkey_webhook_retries_total',
    'Failed webhook attempts that were scheduled to be tried again.',
  );
  const dead = registry.counter(
    'passkey_webhook_dead_letters_total',
    'Webhook messages that became dead letters (their last attempt failed).',
  );
  const duration = registry.histogram(
    'passkey_webhook_delivery_duration_seconds',
    'How long one webhook attempt took (resolving, connecting, the answer’s status), by outcome.',
    ['outcome'],
    ATTEMPT_BUCKETS,
  );
  const lag = registry.histogram(
    'passkey_webhook_delivery_lag_seconds',
    'From the change an event reports to its delivery (retries included).',
    [],
    LAG_BUCKETS,
  );
  const outbox = registry.gauge(
    'passkey_webhook_outbox_messages',
    'Webhook messages in the outbox: pending (waiting for an attempt or a retry) and dead (dead letters).',
    ['state'],
  );
  registry.addCollector(async () => {
    // A store that cannot answer leaves the last figures (the readiness check reports the store).
    const counts = await depth().catch(() => undefined);
    if (counts === undefined) return;
    outbox.set({ state: 'pending' }, counts.pending);
    outbox.set({ state: 'dead' }, counts.dead);
  });
  return {
    attempt(outcome, seconds, lagSeconds, next) {
      deliveries.inc({ outcome });
      duration.observe({ outcome }, seconds);
      if (lagSeconds !== null) lag.observe(undefined, lagSeconds);
      if (next === 'retry') retries.inc();
      if (next === 'dead') dead.inc();
    },
  };
}
