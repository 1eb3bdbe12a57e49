// The registry wrapper around prom-client (every use names exactly the declared labels, series kept apart,
// buckets as the format says) and the store wrapper's per-method reuse and timing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry, createStoreMetrics, type Histogram, type Labels } from '../../src/metrics/index.js';
import { parseExposition, valueOf } from '../support/exposition.js';

describe('metrics registry: series by label values', () => {
  it('the same labels in any order address the same series', async () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter('hits_total', 'Hits.', ['route', 'code']);
    counter.inc({ route: '/a', code: '200' });
    counter.inc({ code: '200', route: '/a' }, 2);
    counter.inc({ route: '/a', code: '500' }, 4);
    const { samples } = parseExposition(await registry.expose());
    assert.equal(valueOf(samples, 'hits_total', { route: '/a', code: '200' }), 3);
    assert.equal(valueOf(samples, 'hits_total', { route: '/a', code: '500' }), 4);
    assert.equal(samples.filter((s) => s.name === 'hits_total').length, 2);
  });

  it('keeps label values apart that a joined key could confuse', async () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter('pairs_total', 'Pairs.', ['a', 'b']);
    counter.inc({ a: 'x,y', b: 'z' });
    counter.inc({ a: 'x', b: 'y,z' }, 5);
    counter.inc({ a: 'x,b:y', b: '' }, 7);
    const { samples } = parseExposition(await registry.expose());
    assert.equal(valueOf(samples, 'pairs_total', { a: 'x,y', b: 'z' }), 1);
    assert.equal(valueOf(samples, 'pairs_total', { a: 'x', b: 'y,z' }), 5);
    assert.equal(valueOf(samples, 'pairs_total', { a: 'x,b:y', b: '' }), 7);
  });

  it('refuses a missing or undeclared label and negative increments, and a refused call makes no series', async () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter('c_total', 'C.', ['a']);
    counter.inc({ a: '1' });
    assert.throws(() => counter.inc(), /do not match declared/);
    assert.throws(() => counter.inc({ a: '2', b: '3' }), /do not match declared/);
    assert.throws(
      () => counter.inc({ a: '1', b: '3' }),
      /do not match declared/,
      'also where the declared labels name a series',
    );
    assert.throws(() => counter.series({ a: '1', b: '3' }), /do not match declared/);
    assert.throws(() => counter.inc({ a: '2' }, -1), /cannot add/);
    const gauge = registry.gauge('g', 'G.', ['a']);
    assert.throws(() => gauge.set(undefined, 1), /do not match declared/);
    const { samples } = parseExposition(await registry.expose());
    assert.deepEqual(
      samples.filter((s) => s.name === 'c_total').map((s) => s.labels.a),
      ['1'],
    );
    assert.equal(samples.filter((s) => s.name === 'g').length, 0);
  });

  it('a series handle adds to the series the same labels address, and the exposition reads what was added', async () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter('h_total', 'H.', ['a']);
    const one = counter.series({ a: 'x' });
    one.inc();
    counter.inc({ a: 'x' }, 2);
    const read = async () => valueOf(parseExposition(await registry.expose()).samples, 'h_total', { a: 'x' });
    assert.equal(await read(), 3);
    one.inc(4);
    assert.equal(await read(), 7);
    assert.equal(await read(), 7, 'a scrape reads the total, it does not add again');
    const histogram = registry.histogram('h_seconds', 'H.', ['a'], [1]);
    histogram.series({ a: 'y' }).observe(0.5);
    histogram.observe({ a: 'y' }, 2);
    assert.equal(valueOf(parseExposition(await registry.expose()).samples, 'h_seconds_count', { a: 'y' }), 2);
  });

  it('a total read at scrape time never goes down', async () => {
    const registry = new MetricsRegistry();
    const total = registry.counter('work_seconds_total', 'Work.');
    let source = 2.5;
    registry.addCollector(() => total.setTotal(source));
    const read = async () => valueOf(parseExposition(await registry.expose()).samples, 'work_seconds_total');
    assert.equal(await read(), 2.5);
    source = 4.25;
    assert.equal(await read(), 4.25);
    source = 1;
    assert.equal(await read(), 4.25);
    assert.throws(() => registry.counter('labelled_total', 'L.', ['a']).setTotal(1), /without labels/);
  });

  it('histograms put a value in the first bucket it fits, large values only in +Inf, and skip non-numbers', async () => {
    const registry = new MetricsRegistry();
    const histogram = registry.histogram('d_seconds', 'D.', ['op'], [1, 0.1]);
    for (const value of [0.1, 0.5, 1, 2, Number.NaN, Infinity]) histogram.observe({ op: 'x' }, value);
    const { samples } = parseExposition(await registry.expose());
    assert.equal(valueOf(samples, 'd_seconds_bucket', { op: 'x', le: '0.1' }), 1);
    assert.equal(valueOf(samples, 'd_seconds_bucket', { op: 'x', le: '1' }), 3);
    assert.equal(valueOf(samples, 'd_seconds_bucket', { op: 'x', le: '+Inf' }), 4);
    assert.equal(valueOf(samples, 'd_seconds_count', { op: 'x' }), 4);
    assert.equal(valueOf(samples, 'd_seconds_sum', { op: 'x' }), 3.6);
    assert.throws(() => registry.histogram('e_seconds', 'E.', [], [1, 1]), /distinct/);
  });
});

/** A registry whose histograms also record every observation as it happens (prom-client reads are async). */
class RecordingRegistry extends MetricsRegistry {
  readonly observed: Labels[] = [];

  override histogram(
    name: string,
    help: string,
    labelNames?: readonly string[],
    buckets?: readonly number[],
  ): Histogram {
    const histogram = super.histogram(name, help, labelNames, buckets);
    return {
      observe: (labels, value) => {
        if (labels) this.observed.push(labels);
        histogram.observe(labels, value);
      },
      series: (labels) => {
        const one = histogram.series(labels);
        return {
          observe: (value) => {
            if (labels) this.observed.push(labels);
            one.observe(value);
          },
        };
      },
    };
  }
}

describe('store latency wrapper', () => {
  it('makes one timed function per method, and times a method replaced at run time', async () => {
    const registry = new MetricsRegistry();
    const store: { get(id: string): Promise<string>; size: number } = {
      async get(id) {
        return `a:${id}`;
      },
      size: 3,
    };
    const wrapped = createStoreMetrics(registry).instrument('things', store);
    assert.equal(wrapped.get, wrapped.get, 'the wrapper is made once, not at every read');
    assert.equal(await wrapped.get('1'), 'a:1');
    store.get = async (id) => `b:${id}`;
    assert.equal(await wrapped.get('2'), 'b:2');
    assert.equal(wrapped.size, 3);
    const { samples } = parseExposition(await registry.expose());
    assert.equal(
      valueOf(samples, 'passkey_store_operation_duration_seconds_count', {
        store: 'things',
        operation: 'get',
        outcome: 'ok',
      }),
      2,
    );
  });

  it('hands the caller the promise the store returned, and has timed it by the time the caller resumes', async () => {
    const registry = new RecordingRegistry();
    const answer = Promise.resolve('stored');
    const refusal = Promise.reject(new Error('refused'));
    refusal.catch(() => undefined);
    const wrapped = createStoreMetrics(registry).instrument('own', { find: () => answer, fail: () => refusal });
    assert.equal(wrapped.find(), answer);
    assert.equal(await wrapped.find(), 'stored');
    // Read synchronously right after the caller resumed (exposition would add turns of its own).
    const count = (operation: string, outcome: string) =>
      registry.observed.filter(
        (labels) => labels.store === 'own' && labels.operation === operation && labels.outcome === outcome,
      ).length;
    assert.equal(count('find', 'ok'), 2);
    await assert.rejects(wrapped.fail(), /refused/);
    assert.equal(count('fail', 'error'), 1);
  });

  it('creates the ok series only when a call succeeds, and times synchronous results and throws', async () => {
    const registry = new MetricsRegistry();
    const store = {
      fail(): never {
        throw new Error('sync failure');
      },
      now(): number {
        return 7;
      },
    };
    const wrapped = createStoreMetrics(registry).instrument('sync', store);
    assert.throws(() => wrapped.fail(), /sync failure/);
    assert.equal(wrapped.now(), 7);
    const { samples } = parseExposition(await registry.expose());
    const series = samples.filter((s) => s.name === 'passkey_store_operation_duration_seconds_count');
    assert.deepEqual(series.map((s) => `${s.labels.operation}:${s.labels.outcome}:${s.value}`).sort(), [
      'fail:error:1',
      'now:ok:1',
    ]);
  });
});
