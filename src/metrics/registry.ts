// A small Prometheus registry: counters, gauges and histograms with labels, exposed in the text format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/). No dependency: the format is a few rules,
// and a client library would bring its own globals (a default registry), which this project avoids.

export type Labels = Readonly<Record<string, string>>;

/** Content-Type of the text exposition format. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Default latency buckets in seconds: 1 ms to 10 s. */
export const DEFAULT_SECONDS_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly labelNames: readonly string[];
  /** Lines of this family's samples (without HELP/TYPE). */
  samples(): string[];
}

/** Collects values only at scrape time (process metrics, pool sizes). */
export type Collector = () => void | Promise<void>;

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function formatLabels(names: readonly string[], values: readonly string[], extra?: string): string {
  const parts = names.map((name, i) => `${name}="${escapeLabelValue(values[i] ?? '')}"`);
  if (extra) parts.push(extra);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** Orders the label values as the family declares its label names; unknown or missing names are a bug. */
function labelValues(family: string, names: readonly string[], labels: Labels | undefined): string[] {
  const given = labels ?? {};
  const keys = Object.keys(given);
  if (keys.length !== names.length || !keys.every((k) => names.includes(k))) {
    throw new Error(`metric ${family}: labels {${keys.join(',')}} do not match declared {${names.join(',')}}`);
  }
  return names.map((n) => String(given[n]));
}

/** One series of a counter: a handle that callers on a hot path resolve once and keep. */
export class CounterSeries {
  value = 0;

  constructor(private readonly family: string) {}

  inc(amount = 1): void {
    if (!(amount >= 0)) throw new Error(`counter ${this.family}: cannot add ${amount}`);
    this.value += amount;
  }
}

/** One series of a gauge. */
export class GaugeSeries {
  value = 0;

  set(value: number): void {
    this.value = value;
  }

  inc(amount = 1): void {
    this.value += amount;
  }

  dec(amount = 1): void {
    this.value -= amount;
  }
}

/** One series of a histogram. */
export class HistogramSeries {
  /** Per bucket (not cumulative); the last slot is +Inf. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(private readonly buckets: readonly number[]) {
    this.counts = new Array<number>(buckets.length + 1).fill(0);
  }

  observe(value: number): void {
    // A linear scan: a dozen buckets, no closure (NaN falls through to +Inf, as `le` comparisons say).
    const buckets = this.buckets;
    let index = 0;
    while (index < buckets.length && !(value <= buckets[index]!)) index += 1;
    this.counts[index]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

/** A level of the series index: the next label's value → the next level, or the series at the last label. */
type IndexLevel<Series> = Map<string, IndexLevel<Series> | Series>;

abstract class LabelledFamily<Series> implements Family {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  /**
   * Series by label values, one Map level per label, so that finding a series (on every request) builds no
   * key string and copies nothing once it exists (the family without labels has its single series in `#only`).
   */
  #index: IndexLevel<Series> = new Map();
  #only: Series | undefined;
  /** Every series with its label values, in the order they appeared (the exposition order). */
  protected entries: { readonly values: readonly string[]; readonly series: Series }[] = [];

  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly string[]) {}

  /**
   * The series of these label values, given in the declared order of the label names (created at first use).
   * The handle stays valid until `reset()`.
   */
  labels(...values: string[]): Series {
    if (values.length !== this.labelNames.length) {
      throw new Error(`metric ${this.name}: ${values.length} label values for declared {${this.labelNames.join(',')}}`);
    }
    return this.seriesOf(values);
  }

  /** Forgets every labelled series (gauges refreshed at scrape time); handles taken before are detached. */
  reset(): void {
    this.#index = new Map();
    this.#only = undefined;
    this.entries = [];
  }

  abstract samples(): string[];

  protected abstract newSeries(): Series;

  /** The series of `labels` (an object naming every declared label), created at first use. */
  protected series(labels: Labels | undefined): Series {
    return this.seriesOf(labelValues(this.name, this.labelNames, labels));
  }

  /** The series of `labels` if it exists (never creates one). */
  protected existing(labels: Labels | undefined): Series | undefined {
    const values = labelValues(this.name, this.labelNames, labels);
    if (values.length === 0) return this.#only;
    let level: IndexLevel<Series> | Series | undefined = this.#index;
    for (const value of values) {
      if (level === undefined) return undefined;
      level = (level as IndexLevel<Series>).get(value);
    }
    return level as Series | undefined;
  }

  private seriesOf(values: readonly string[]): Series {
    const last = values.length - 1;
    if (last < 0) return this.#only ??= this.add(values);
    let level = this.#index;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as IndexLevel<Series> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(values[i]!, next);
      }
      level = next;
    }
    let series = level.get(values[last]!) as Series | undefined;
    if (series === undefined) {
      series = this.add(values);
      level.set(values[last]!, series);
    }
    return series;
  }

  private add(values: readonly string[]): Series {
    const series = this.newSeries();
    this.entries.push({ values: [...values], series });
    return series;
  }
}

export class Counter extends LabelledFamily<CounterSeries> {
  readonly type = 'counter' as const;

  inc(labels?: Labels, amount = 1): void {
    if (!(amount >= 0)) throw new Error(`counter ${this.name}: cannot add ${amount}`);
    this.series(labels).inc(amount);
  }

  /** For totals kept elsewhere (CPU seconds): sets the value, which must never go down. */
  setTotal(labels: Labels | undefined, value: number): void {
    const series = this.series(labels);
    series.value = Math.max(series.value, value);
  }

  get(labels?: Labels): number {
    return this.existing(labels)?.value ?? 0;
  }

  samples(): string[] {
    return this.entries.map(({ values, series }) =>
      `${this.name}${formatLabels(this.labelNames, values)} ${formatValue(series.value)}`);
  }

  protected newSeries(): CounterSeries {
    return new CounterSeries(this.name);
  }
}

export class Gauge extends LabelledFamily<GaugeSeries> {
  readonly type = 'gauge' as const;

  set(labels: Labels | undefined, value: number): void {
    this.series(labels).set(value);
  }

  inc(labels?: Labels, amount = 1): void {
    this.series(labels).inc(amount);
  }

  dec(labels?: Labels, amount = 1): void {
    this.series(labels).dec(amount);
  }

  get(labels?: Labels): number {
    return this.existing(labels)?.value ?? 0;
  }

  samples(): string[] {
    return this.entries.map(({ values, series }) =>
      `${this.name}${formatLabels(this.labelNames, values)} ${formatValue(series.value)}`);
  }

  protected newSeries(): GaugeSeries {
    return new GaugeSeries();
  }
}

export class Histogram extends LabelledFamily<HistogramSeries> {
  readonly type = 'histogram' as const;
  readonly buckets: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    if (labelNames.includes('le')) throw new Error(`histogram ${name}: "le" is reserved`);
    const sorted = [...buckets].filter((b) => Number.isFinite(b)).sort((a, b) => a - b);
    if (sorted.length === 0 || new Set(sorted).size !== sorted.length) throw new Error(`histogram ${name}: buckets must be distinct finite numbers`);
    this.buckets = sorted;
  }

  observe(labels: Labels | undefined, value: number): void {
    this.series(labels).observe(value);
  }

  /** Starts a timer; calling the returned function observes the elapsed seconds. */
  startTimer(labels?: Labels): (more?: Labels) => number {
    const started = performance.now();
    return (more) => {
      const seconds = (performance.now() - started) / 1000;
      this.observe({ ...labels, ...more }, seconds);
      return seconds;
    };
  }

  /** Count and sum for a series (tests, readiness summaries). */
  get(labels?: Labels): { count: number; sum: number } {
    const series = this.existing(labels);
    return { count: series?.count ?? 0, sum: series?.sum ?? 0 };
  }

  samples(): string[] {
    const lines: string[] = [];
    for (const { values, series } of this.entries) {
      let cumulative = 0;
      this.buckets.forEach((upper, i) => {
        cumulative += series.counts[i] ?? 0;
        lines.push(`${this.name}_bucket${formatLabels(this.labelNames, values, `le="${formatValue(upper)}"`)} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket${formatLabels(this.labelNames, values, 'le="+Inf"')} ${series.count}`);
      lines.push(`${this.name}_sum${formatLabels(this.labelNames, values)} ${formatValue(series.sum)}`);
      lines.push(`${this.name}_count${formatLabels(this.labelNames, values)} ${series.count}`);
    }
    return lines;
  }

  protected newSeries(): HistogramSeries {
    return new HistogramSeries(this.buckets);
  }
}

export class MetricsRegistry {
  private readonly families = new Map<string, Family>();
  private readonly collectors: Collector[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.register(new Counter(name, help, labelNames));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.register(new Gauge(name, help, labelNames));
  }

  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets: readonly number[] = DEFAULT_SECONDS_BUCKETS): Histogram {
    return this.register(new Histogram(name, help, labelNames, buckets));
  }

  /** Runs before every exposition (e.g. reads process.memoryUsage() into gauges). */
  addCollector(collector: Collector): void {
    this.collectors.push(collector);
  }

  /** Families by name, for tests and for hooks that share a family. */
  get(name: string): Family | undefined {
    return this.families.get(name);
  }

  /** The whole registry in the text exposition format 0.0.4. */
  async expose(): Promise<string> {
    for (const collect of this.collectors) await collect();
    const out: string[] = [];
    for (const family of this.families.values()) {
      out.push(`# HELP ${family.name} ${escapeHelp(family.help)}`);
      out.push(`# TYPE ${family.name} ${family.type}`);
      out.push(...family.samples());
    }
    return out.length === 0 ? '' : `${out.join('\n')}\n`;
  }

  private register<F extends Family>(family: F): F {
    if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name ${JSON.stringify(family.name)}`);
    for (const label of family.labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new Error(`metric ${family.name}: invalid label name ${JSON.stringify(label)}`);
    }
    if (new Set(family.labelNames).size !== family.labelNames.length) throw new Error(`metric ${family.name}: repeated label name`);
    if (this.families.has(family.name)) throw new Error(`metric ${family.name} is already registered`);
    this.families.set(family.name, family);
    return family;
  }
}
