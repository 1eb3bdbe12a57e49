// The registry's series handles (positional label values) and the store wrapper's per-method reuse: the
// fast paths the per-request hooks use must count exactly what the label-object API counts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry, createStoreMetrics, type Histogram } from '../../src/metrics/index.js';
import { parseExposition, valueOf } from './exposition.js';

describe('metrics registry: series by positional label values', () => {
  it('labels(...) and the label-object API address the same series', async () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter('hits_total', 'Hits.', ['route', 'code']);
    counter.labels('/a', '200').inc();
    counter.inc({ code: '200', route: '/a' }, 2);
    counter.labels('/a', '500').inc(4);
    assert.equal(counter.get({ route: '/a', code: '200' }), 3);
    assert.equal(counter.labels('/a', '200').value, 3);
    const { samples } = parseExposition(await registry.expose());
    assert.equal(valueOf(samples, 'hits_total', { route: '/a', code: '200' }), 3);
    assert.equal(valueOf(samples, 'hits_total', { route: '/a', code: '500' }), 4);
    assert.equal(samples.filter((s) => s.name === 'hits_total').length, 2);
  });

  it('keeps label values apart that a joined key could confuse', () => {
    const counter = new MetricsRegistry().counter('pairs_total', 'Pairs.', ['a', 'b']);
    counter.labels('x,y', 'z').inc();
    counter.labels('x', 'y,z').inc(5);
    assert.equal(counter.get({ a: 'x,y', b: 'z' }), 1);
    assert.equal(counter.get({ a: 'x', b: 'y,z' }), 5);
  });

  it('refuses the wrong number of values and negative increments, and get never creates a series', async () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter('c_total', 'C.', ['a']);
    assert.throws(() => counter.labels(), /1 label values|0 label values/);
    assert.throws(() => counter.labels('1', '2'), /2 label values/);
    assert.throws(() => counter.labels('1').inc(-1), /cannot add/);
    assert.throws(() => counter.inc({ a: '2' }, -1), /cannot add/);
    assert.equal(counter.get({ a: '3' }), 0);
    const { samples } = parseExposition(await registry.expose());
    assert.deepEqual(samples.filter((s) => s.name === 'c_total').map((s) => s.labels.a), ['1']);
  });

  it('a family without labels has one series; reset detaches earlier handles', () => {
    const gauge = new MetricsRegistry().gauge('level', 'Level.');
    const before = gauge.labels();
    before.set(3);
    assert.equal(gauge.get(), 3);
    gauge.reset();
    assert.equal(gauge.get(), 0);
    before.set(9);
    assert.equal(gauge.get(), 0, 'a handle taken before reset no longer feeds the family');
    gauge.labels().inc(2);
    assert.equal(gauge.get(), 2);
  });

  it('histogram series put each value in the first bucket it fits, NaN and large values in +Inf', async () => {
    const registry = new MetricsRegistry();
    const histogram = registry.histogram('d_seconds', 'D.', ['op'], [0.1, 1]);
    const series = histogram.labels('x');
    for (const value of [0.1, 0.5, 1, 2, Number.NaN]) series.observe(value);
    const { samples } = parseExposition(await registry.expose());
    assert.equal(valueOf(samples, 'd_seconds_bucket', { op: 'x', le: '0.1' }), 1);
    assert.equal(valueOf(samples, 'd_seconds_bucket', { op: 'x', le: '1' }), 3);
    assert.equal(valueOf(samples, 'd_seconds_bucket', { op: 'x', le: '+Inf' }), 5);
    assert.equal(histogram.get({ op: 'x' }).count, 5);
  });
});

describe('store latency wrapper', () => {
  it('makes one timed function per method, and times a method replaced at run time', async () => {
    const registry = new MetricsRegistry();
    const store: { get(id: string): Promise<string>; size: number } = { async get(id) { return `a:${id}`; }, size: 3 };
    const wrapped = createStoreMetrics(registry).instrument('things', store);
    assert.equal(wrapped.get, wrapped.get, 'the wrapper is made once, not at every read');
    assert.equal(await wrapped.get('1'), 'a:1');
    store.get = async (id) => `b:${id}`;
    assert.equal(await wrapped.get('2'), 'b:2');
    assert.equal(wrapped.size, 3);
    const { samples } = parseExposition(await registry.expose());
    assert.equal(valueOf(samples, 'passkey_store_operation_duration_seconds_count', { store: 'things', operation: 'get', outcome: 'ok' }), 2);
  });

  it('hands the caller the promise the store returned, and has timed it by the time the caller resumes', async () => {
    const registry = new MetricsRegistry();
    const answer = Promise.resolve('stored');
    const refusal = Promise.reject(new Error('refused'));
    refusal.catch(() => undefined);
    const wrapped = createStoreMetrics(registry).instrument('own', { find: () => answer, fail: () => refusal });
    assert.equal(wrapped.find(), answer);
    assert.equal(await wrapped.find(), 'stored');
    // Read synchronously right after the caller resumed (exposition would add turns of its own).
    const latency = registry.get('passkey_store_operation_duration_seconds') as Histogram;
    const count = (operation: string, outcome: string) => latency.get({ store: 'own', operation, outcome }).count;
    assert.equal(count('find', 'ok'), 2);
    await assert.rejects(wrapped.fail(), /refused/);
    assert.equal(count('fail', 'error'), 1);
  });

  it('creates the ok series only when a call succeeds, and times synchronous results and throws', async () => {
    const registry = new MetricsRegistry();
    const store = {
      fail(): never { throw new Error('sync failure'); },
      now(): number { return 7; },
    };
    const wrapped = createStoreMetrics(registry).instrument('sync', store);
    assert.throws(() => wrapped.fail(), /sync failure/);
    assert.equal(wrapped.now(), 7);
    const { samples } = parseExposition(await registry.expose());
    const series = samples.filter((s) => s.name === 'passkey_store_operation_duration_seconds_count');
    assert.deepEqual(series.map((s) => `${s.labels.operation}:${s.labels.outcome}:${s.value}`).sort(), ['fail:error:1', 'now:ok:1']);
  });
});
