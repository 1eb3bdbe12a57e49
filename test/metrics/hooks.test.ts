import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  MetricsRegistry,
  createMetricsHooks,
  createStoreMetrics,
  registerProcessMetrics,
  UNKNOWN_CLIENT_LABEL,
} from '../../src/metrics/index.js';
import type { OperationOutcome } from '../../src/service.js';
import { StoreUnavailableError } from '../../src/errors/catalogue.js';
import { parseExposition, valueOf } from '../support/exposition.js';

function outcome(over: Partial<OperationOutcome>): OperationOutcome {
  return {
    operation: 'attestation/options',
    clientId: 'demo-client',
    variant: 'standard',
    httpStatus: 200,
    errorName: null,
    durationMs: 12,
    requestId: 'r1',
    remoteAddress: '127.0.0.1',
    ...over,
  };
}

describe('metrics registry: text exposition format 0.0.4', () => {
  it('writes HELP, TYPE and samples for counters and gauges, escaping label values and help text', async () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter('things_total', 'Things.\nSecond line \\ done', ['kind']);
    counter.inc({ kind: 'a "quoted"\\back\nslash' });
    counter.inc({ kind: 'a "quoted"\\back\nslash' }, 2);
    registry.gauge('level', 'Level.').set(undefined, 1.5);
    const text = await registry.expose();
    assert.ok(text.includes('# HELP things_total Things.\\nSecond line \\\\ done\n'));
    assert.ok(text.includes('# TYPE things_total counter\n'));
    assert.ok(text.includes('things_total{kind="a \\"quoted\\"\\\\back\\nslash"} 3\n'));
    assert.ok(text.includes('# TYPE level gauge\nlevel 1.5\n'));
    const { samples } = parseExposition(text);
    assert.equal(valueOf(samples, 'things_total', { kind: 'a "quoted"\\back\nslash' }), 3);
  });

  it('writes histograms with cumulative buckets, +Inf, _sum and _count', async () => {
    const registry = new MetricsRegistry();
    const h = registry.histogram('lat_seconds', 'Latency.', ['op'], [0.1, 1]);
    h.observe({ op: 'x' }, 0.05);
    h.observe({ op: 'x' }, 0.5);
    h.observe({ op: 'x' }, 3);
    const { samples, types } = parseExposition(await registry.expose());
    assert.equal(types.get('lat_seconds'), 'histogram');
    assert.equal(valueOf(samples, 'lat_seconds_bucket', { op: 'x', le: '0.1' }), 1);
    assert.equal(valueOf(samples, 'lat_seconds_bucket', { op: 'x', le: '1' }), 2);
    assert.equal(valueOf(samples, 'lat_seconds_bucket', { op: 'x', le: '+Inf' }), 3);
    assert.equal(valueOf(samples, 'lat_seconds_sum', { op: 'x' }), 3.55);
    assert.equal(valueOf(samples, 'lat_seconds_count', { op: 'x' }), 3);
  });

  it('refuses bad names, repeated families, mismatched labels and negative counter increments', () => {
    const registry = new MetricsRegistry();
    assert.throws(() => registry.counter('bad-name', 'x'));
    assert.throws(() => registry.counter('ok_total', 'x', ['__reserved']));
    assert.throws(() => registry.histogram('h', 'x', ['le']));
    const c = registry.counter('ok_total', 'x', ['a']);
    assert.throws(() => registry.counter('ok_total', 'again'));
    assert.throws(() => c.inc({ b: '1' }));
    assert.throws(() => c.inc({}));
    assert.throws(() => c.inc({ a: '1' }, -1));
  });

  it('an empty registry exposes an empty document', async () => {
    assert.equal(await new MetricsRegistry().expose(), '');
  });
});

describe('process metrics', () => {
  it('reads CPU, memory, start time and event-loop figures at scrape time', async () => {
    const registry = new MetricsRegistry();
    const stop = registerProcessMetrics(registry, { now: () => 1_800_000_000_000 });
    try {
      const { samples, types } = parseExposition(await registry.expose());
      assert.equal(types.get('process_cpu_seconds_total'), 'counter');
      assert.ok((valueOf(samples, 'process_cpu_seconds_total') ?? 0) > 0);
      assert.ok((valueOf(samples, 'process_resident_memory_bytes') ?? 0) > 1_000_000);
      assert.ok((valueOf(samples, 'nodejs_heap_size_used_bytes') ?? 0) > 0);
      const start = valueOf(samples, 'process_start_time_seconds') ?? 0;
      assert.ok(start <= 1_800_000_000 && start > 1_800_000_000 - 3600, `start ${start}`);
      assert.equal(valueOf(samples, 'nodejs_version_info', { version: process.version }), 1);
      if (process.platform === 'linux') assert.ok((valueOf(samples, 'process_open_fds') ?? 0) > 0);
    } finally {
      stop();
    }
  });
});

describe('createMetricsHooks: requests, latency and the ceremony funnel from onOutcome', () => {
  it('counts outcomes per operation, application, variant and error name, and observes latency', async () => {
    const registry = new MetricsRegistry();
    const hooks = createMetricsHooks(registry);
    hooks.onOutcome(outcome({}));
    hooks.onOutcome(
      outcome({ operation: 'attestation/result', httpStatus: 400, errorName: 'CHALLENGE_NOT_MATCHED', durationMs: 30 }),
    );
    hooks.onOutcome(outcome({ operation: 'attestation/result', durationMs: 40 }));
    hooks.onOutcome(outcome({ operation: 'assertion/options', variant: 'local' }));
    hooks.onOutcome(
      outcome({ operation: 'assertion/result', variant: 'local', httpStatus: 429, errorName: 'RATE_LIMITED' }),
    );
    const { samples } = parseExposition(await registry.expose());
    assert.equal(
      valueOf(samples, 'passkey_requests_total', {
        operation: 'attestation/result',
        client_id: 'demo-client',
        outcome: 'failed',
        error: 'CHALLENGE_NOT_MATCHED',
      }),
      1,
    );
    assert.equal(
      valueOf(samples, 'passkey_requests_total', { operation: 'attestation/result', outcome: 'ok', error: '' }),
      1,
    );
    assert.equal(
      valueOf(samples, 'passkey_ceremony_options_issued_total', { ceremony: 'registration', client_id: 'demo-client' }),
      1,
    );
    assert.equal(valueOf(samples, 'passkey_ceremony_options_issued_total', { ceremony: 'authentication' }), 1);
    assert.equal(valueOf(samples, 'passkey_ceremony_results_total', { ceremony: 'registration', result: 'failed' }), 1);
    assert.equal(valueOf(samples, 'passkey_ceremony_results_total', { ceremony: 'registration', result: 'ok' }), 1);
    assert.equal(
      valueOf(samples, 'passkey_ceremony_results_total', { ceremony: 'authentication', result: 'failed' }),
      1,
    );
    assert.equal(valueOf(samples, 'passkey_rate_limited_total', { operation: 'assertion/result' }), 1);
    assert.equal(
      valueOf(samples, 'passkey_request_duration_seconds_count', { operation: 'attestation/result', outcome: 'ok' }),
      1,
    );
    assert.equal(
      valueOf(samples, 'passkey_request_duration_seconds_sum', { operation: 'attestation/result', outcome: 'ok' }),
      0.04,
    );
  });

  it('never labels by a Client ID the service did not recognise, and caps distinct client labels', async () => {
    const registry = new MetricsRegistry();
    const hooks = createMetricsHooks(registry, { maxClientLabels: 2 });
    hooks.onOutcome(outcome({ clientId: 'attacker-1', httpStatus: 403, errorName: 'CLIENT_ID_UNKNOWN' }));
    hooks.onOutcome(outcome({ clientId: null, httpStatus: 400, errorName: 'CLIENT_ID_MISSING' }));
    hooks.onOutcome(outcome({ clientId: 'a' }));
    hooks.onOutcome(outcome({ clientId: 'b' }));
    hooks.onOutcome(outcome({ clientId: 'c' }));
    const { samples } = parseExposition(await registry.expose());
    const clients = new Set(samples.filter((s) => s.name === 'passkey_requests_total').map((s) => s.labels.client_id));
    assert.deepEqual([...clients].sort(), [UNKNOWN_CLIENT_LABEL, 'a', 'b']);
  });

  it('uses isKnownClient when given', async () => {
    const registry = new MetricsRegistry();
    const hooks = createMetricsHooks(registry, { isKnownClient: (id) => id === 'demo-client' });
    hooks.onOutcome(outcome({ clientId: 'other', httpStatus: 400, errorName: 'MALFORMED_JSON' }));
    hooks.onOutcome(outcome({}));
    const { samples } = parseExposition(await registry.expose());
    assert.equal(
      valueOf(samples, 'passkey_requests_total', { client_id: UNKNOWN_CLIENT_LABEL, error: 'MALFORMED_JSON' }),
      1,
    );
    assert.equal(valueOf(samples, 'passkey_requests_total', { client_id: 'demo-client', outcome: 'ok' }), 1);
  });
});

describe('store latency', () => {
  it('times every call of a wrapped store, by outcome, and keeps its interface', async () => {
    const registry = new MetricsRegistry();
    const metrics = createStoreMetrics(registry);
    const store = {
      calls: 0,
      async find(id: string) {
        this.calls += 1;
        return id === 'x' ? { id } : undefined;
      },
      async close() {
        throw new StoreUnavailableError('down');
      },
      async broken() {
        throw new Error('boom');
      },
    };
    const wrapped = metrics.instrument('credentials', store);
    assert.deepEqual(await wrapped.find('x'), { id: 'x' });
    assert.equal(await wrapped.find('y'), undefined);
    assert.equal(store.calls, 2);
    await assert.rejects(wrapped.close(), StoreUnavailableError);
    await assert.rejects(wrapped.broken(), /boom/);
    assert.equal((wrapped as { missing?: unknown }).missing, undefined);
    const { samples } = parseExposition(await registry.expose());
    assert.equal(
      valueOf(samples, 'passkey_store_operation_duration_seconds_count', {
        store: 'credentials',
        operation: 'find',
        outcome: 'ok',
      }),
      2,
    );
    assert.equal(
      valueOf(samples, 'passkey_store_operation_duration_seconds_count', {
        operation: 'close',
        outcome: 'unavailable',
      }),
      1,
    );
    assert.equal(
      valueOf(samples, 'passkey_store_operation_duration_seconds_count', { operation: 'broken', outcome: 'error' }),
      1,
    );
  });
});
