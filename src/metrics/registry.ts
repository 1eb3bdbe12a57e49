// The one file that knows prom-client. It gives the service a registry of its own (prom-client's global
// default registry is never touched, and no default collectors run: src/metrics/process.ts names the process
// metrics we expose) and a narrow face: counters, gauges and histograms whose every use names every declared
// label, collectors run at scrape time, and the text exposition format 0.0.4.
import { Counter as PromCounter, Gauge as PromGauge, Registry } from 'prom-client';

export type Labels = Readonly<Record<string, string>>;

/** Content-Type of the text exposition format 0.0.4. */
export const EXPOSITION_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Default latency buckets in seconds: 1 ms to 10 s. */
export const DEFAULT_SECONDS_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Collects values only at scrape time (process metrics, pool sizes). */
export type Collector = () => void | Promise<void>;

export interface Counter {
  inc(labels?: Labels, amount?: number): void;
  /** One series, its labels checked once: for a caller that adds to the same series again and again. */
  series(labels?: Labels): { inc(amount?: number): void };
  /** For totals kept elsewhere (CPU seconds) in a family without labels: the value, which never goes down. */
  setTotal(value: number): void;
}

export interface Gauge {
  set(labels: Labels | undefined, value: number): void;
  inc(labels?: Labels, amount?: number): void;
  dec(labels?: Labels, amount?: number): void;
}

export interface Histogram {
  /** A value that is not a finite number is not observed (prom-client would throw on a request's path). */
  observe(labels: Labels | undefined, value: number): void;
  /** One series, its labels checked once: for a caller that observes the same series again and again. */
  series(labels?: Labels): { observe(value: number): void };
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * prom-client accepts a subset of the declared labels (the rest left out of the series); here a use that
 * does not name exactly the declared labels is a bug, refused before it creates a stray series.
 */
function checkedLabels(family: string, names: readonly string[], labels: Labels | undefined): Labels {
  const given = labels ?? {};
  const keys = Object.keys(given);
  if (keys.length !== names.length || !keys.every((key) => names.includes(key))) {
    throw new Error(`metric ${family}: labels {${keys.join(',')}} do not match declared {${names.join(',')}}`);
  }
  return given;
}

interface PendingCount {
  readonly labels: Labels;
  pending: number;
}

/**
 * The series of one family found by their label values, one Map level per declared label (no key string
 * is built, and no joined key can confuse two series); the labels are checked when a series is first made.
 */
class SeriesIndex<S> {
  readonly #root = new Map<string, unknown>();
  readonly #all: S[] = [];

  constructor(
    private readonly family: string,
    private readonly names: readonly string[],
    private readonly make: (labels: Labels) => S,
  ) {}

  get(labels: Labels | undefined): S {
    const names = this.names;
    if (labels === undefined || names.length === 0) return this.#leaf(this.#root, '', labels);
    let level = this.#root;
    for (let i = 0; i < names.length - 1; i++) {
      const value = labels[names[i]!];
      let next = level.get(value as string) as Map<string, unknown> | undefined;
      if (next === undefined) {
        checkedLabels(this.family, names, labels);
        next = new Map();
        level.set(value as string, next);
      }
      level = next;
    }
    return this.#leaf(level, labels[names[names.length - 1]!] as string, labels);
  }

  all(): readonly S[] {
    return this.#all;
  }

  #leaf(level: Map<string, unknown>, value: string, labels: Labels | undefined): S {
    const found = level.get(value) as S | undefined;
    // Every declared label was found by its value; a label beyond them is refused, not merged into the series.
    if (found !== undefined && keyCount(labels) === this.names.length) return found;
    const made = this.make({ ...checkedLabels(this.family, this.names, labels) });
    level.set(value, made);
    this.#all.push(made);
    return made;
  }
}

function keyCount(labels: Labels | undefined): number {
  let count = 0;
  for (const _ in labels) count++;
  return count;
}

interface HistogramSeries {
  readonly labels: Labels;
  /** Observations per bucket (not cumulative), in the order of the sorted bounds. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/**
 * A histogram family as prom-client's registry formats it: the values its own Histogram would hand over
 * (cumulative buckets with `le`, then +Inf, sum and count per series, in the order series were made).
 */
function histogramFamily(
  name: string,
  help: string,
  bounds: readonly number[],
  labelled: boolean,
  series: SeriesIndex<HistogramSeries>,
) {
  // A labelled series appears once something was observed in it, as prom-client's do.
  const values = () =>
    series
      .all()
      .filter((one) => !labelled || one.count > 0)
      .flatMap((one) => {
        let cumulative = 0;
        const buckets = bounds.map((le, i) => {
          cumulative += one.buckets[i]!;
          return { labels: { le }, sharedLabels: one.labels, value: cumulative, metricName: `${name}_bucket` };
        });
        return [
          ...buckets,
          { labels: { le: '+Inf' }, sharedLabels: one.labels, value: one.count, metricName: `${name}_bucket` },
          { labels: {}, sharedLabels: one.labels, value: one.sum, metricName: `${name}_sum` },
          { labels: {}, sharedLabels: one.labels, value: one.count, metricName: `${name}_count` },
        ];
      });
  return {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
  };
}

export class MetricsRegistry {
  readonly #registry = new Registry();
  readonly #collectors: Collector[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    // Each series counts in a plain number; prom-client receives what was added since the last scrape when it
    // collects. prom-client's own inc (a label hash and checks) per request was most of what metrics cost.
    const series = new SeriesIndex<PendingCount>(name, labelNames, (labels) => ({ labels, pending: 0 }));
    const counter: PromCounter = new PromCounter({
      name,
      help,
      labelNames: this.#checkedNames(name, labelNames),
      registers: [this.#registry],
      collect() {
        for (const one of series.all()) {
          if (one.pending > 0) counter.inc(one.labels, one.pending);
          one.pending = 0;
        }
      },
    });
    let total = 0;
    const add = (one: PendingCount, amount: number) => {
      if (!(amount >= 0)) throw new Error(`counter ${name}: cannot add ${amount}`);
      one.pending += amount;
    };
    return {
      inc(labels, amount = 1) {
        add(series.get(labels), amount);
      },
      series(labels) {
        const one = series.get(labels);
        return { inc: (amount = 1) => add(one, amount) };
      },
      setTotal(value) {
        if (labelNames.length > 0) throw new Error(`counter ${name}: setTotal is for families without labels`);
        if (!(value > total)) return;
        total = value;
        // Set, not added as a difference: the exposed figure is the source's own, without rounding drift.
        counter.reset();
        counter.inc(value);
      },
    };
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    const gauge = new PromGauge({
      name,
      help,
      labelNames: this.#checkedNames(name, labelNames),
      registers: [this.#registry],
    });
    return {
      set: (labels, value) => gauge.set(checkedLabels(name, labelNames, labels), value),
      inc: (labels, amount = 1) => gauge.inc(checkedLabels(name, labelNames, labels), amount),
      dec: (labels, amount = 1) => gauge.dec(checkedLabels(name, labelNames, labels), amount),
    };
  }

  histogram(
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    buckets: readonly number[] = DEFAULT_SECONDS_BUCKETS,
  ): Histogram {
    if (labelNames.includes('le')) throw new Error(`histogram ${name}: "le" is reserved`);
    const sorted = [...buckets].filter((bucket) => Number.isFinite(bucket)).sort((a, b) => a - b);
    if (sorted.length === 0 || new Set(sorted).size !== sorted.length)
      throw new Error(`histogram ${name}: buckets must be distinct finite numbers`);
    this.#checkedNames(name, labelNames);
    // Each series counts in plain numbers; prom-client formats them at scrape time. prom-client's own
    // observe (a label hash and checks, seven per authentication) was most of what a latency cost.
    const series = new SeriesIndex<HistogramSeries>(name, labelNames, (labels) => ({
      labels,
      buckets: sorted.map(() => 0),
      sum: 0,
      count: 0,
    }));
    const observe = (one: HistogramSeries, value: number) => {
      if (!Number.isFinite(value)) return;
      one.sum += value;
      one.count += 1;
      for (let i = 0; i < sorted.length; i++) {
        if (value <= sorted[i]!) {
          one.buckets[i]! += 1;
          return;
        }
      }
    };
    this.#registry.registerMetric(
      histogramFamily(name, help, sorted, labelNames.length > 0, series) as unknown as Parameters<
        Registry['registerMetric']
      >[0],
    );
    // A family without labels has its one series from the start (zeros), as prom-client's has.
    if (labelNames.length === 0) series.get(undefined);
    return {
      observe: (labels, value) => observe(series.get(labels), value),
      series(labels) {
        const one = series.get(labels);
        return { observe: (value) => observe(one, value) };
      },
    };
  }

  /** Runs before every exposition (e.g. reads process.memoryUsage() into gauges). */
  addCollector(collector: Collector): void {
    this.#collectors.push(collector);
  }

  /** The whole registry in the text exposition format 0.0.4. */
  async expose(): Promise<string> {
    for (const collect of this.#collectors) await collect();
    if (this.#registry.getMetricsAsArray().length === 0) return '';
    // prom-client separates families by an empty line, which the format ignores; without them the exposition
    // stays line for line what the service wrote before it used prom-client.
    return (await this.#registry.metrics()).replace(/\n\n/g, '\n');
  }

  /** Label names as the format allows them; `__` names are reserved to Prometheus itself. */
  #checkedNames(name: string, labelNames: readonly string[]): string[] {
    if (this.#registry.getSingleMetric(name)) throw new Error(`metric ${name} is already registered`);
    for (const label of labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith('__'))
        throw new Error(`metric ${name}: invalid label name ${JSON.stringify(label)}`);
    }
    if (new Set(labelNames).size !== labelNames.length) throw new Error(`metric ${name}: repeated label name`);
    return [...labelNames];
  }
}
