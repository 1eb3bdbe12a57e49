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

abstract class LabelledFamily<Cell> implements Family {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  protected readonly cells = new Map<string, { values: string[]; cell: Cell }>();

  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly string[]) {}

  protected cell(labels: Labels | undefined, create: () => Cell): Cell {
    const values = labelValues(this.name, this.labelNames, labels);
    const key = JSON.stringify(values);
    let entry = this.cells.get(key);
    if (!entry) {
      entry = { values, cell: create() };
      this.cells.set(key, entry);
    }
    return entry.cell;
  }

  /** Forgets every labelled series (gauges refreshed at scrape time). */
  reset(): void {
    this.cells.clear();
  }

  abstract samples(): string[];
}

export class Counter extends LabelledFamily<{ value: number }> {
  readonly type = 'counter' as const;

  inc(labels?: Labels, amount = 1): void {
    if (!(amount >= 0)) throw new Error(`counter ${this.name}: cannot add ${amount}`);
    this.cell(labels, () => ({ value: 0 })).value += amount;
  }

  /** For totals kept elsewhere (CPU seconds): sets the value, which must never go down. */
  setTotal(labels: Labels | undefined, value: number): void {
    const cell = this.cell(labels, () => ({ value: 0 }));
    cell.value = Math.max(cell.value, value);
  }

  get(labels?: Labels): number {
    return this.cells.get(JSON.stringify(labelValues(this.name, this.labelNames, labels)))?.cell.value ?? 0;
  }

  samples(): string[] {
    return [...this.cells.values()].map(({ values, cell }) =>
      `${this.name}${formatLabels(this.labelNames, values)} ${formatValue(cell.value)}`);
  }
}

export class Gauge extends LabelledFamily<{ value: number }> {
  readonly type = 'gauge' as const;

  set(labels: Labels | undefined, value: number): void {
    this.cell(labels, () => ({ value: 0 })).value = value;
  }

  inc(labels?: Labels, amount = 1): void {
    this.cell(labels, () => ({ value: 0 })).value += amount;
  }

  dec(labels?: Labels, amount = 1): void {
    this.cell(labels, () => ({ value: 0 })).value -= amount;
  }

  get(labels?: Labels): number {
    return this.cells.get(JSON.stringify(labelValues(this.name, this.labelNames, labels)))?.cell.value ?? 0;
  }

  samples(): string[] {
    return [...this.cells.values()].map(({ values, cell }) =>
      `${this.name}${formatLabels(this.labelNames, values)} ${formatValue(cell.value)}`);
  }
}

interface HistogramCell {
  /** Per bucket (not cumulative); the last slot is +Inf. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends LabelledFamily<HistogramCell> {
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
    const cell = this.cell(labels, () => ({ counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 }));
    let index = this.buckets.findIndex((upper) => value <= upper);
    if (index < 0) index = this.buckets.length;
    cell.counts[index] = (cell.counts[index] ?? 0) + 1;
    cell.sum += value;
    cell.count += 1;
  }

  /** Starts a timer; calling the returned function observes the elapsed seconds. */
  startTimer(labels?: Labels): (more?: Labels) => number {
    const started = process.hrtime.bigint();
    return (more) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.observe({ ...labels, ...more }, seconds);
      return seconds;
    };
  }

  /** Count and sum for a series (tests, readiness summaries). */
  get(labels?: Labels): { count: number; sum: number } {
    const cell = this.cells.get(JSON.stringify(labelValues(this.name, this.labelNames, labels)))?.cell;
    return { count: cell?.count ?? 0, sum: cell?.sum ?? 0 };
  }

  samples(): string[] {
    const lines: string[] = [];
    for (const { values, cell } of this.cells.values()) {
      let cumulative = 0;
      this.buckets.forEach((upper, i) => {
        cumulative += cell.counts[i] ?? 0;
        lines.push(`${this.name}_bucket${formatLabels(this.labelNames, values, `le="${formatValue(upper)}"`)} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket${formatLabels(this.labelNames, values, 'le="+Inf"')} ${cell.count}`);
      lines.push(`${this.name}_sum${formatLabels(this.labelNames, values)} ${formatValue(cell.sum)}`);
      lines.push(`${this.name}_count${formatLabels(this.labelNames, values)} ${cell.count}`);
    }
    return lines;
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
