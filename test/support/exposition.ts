// A strict reader of the Prometheus text format 0.0.4 for tests: every line must be a comment
// (# HELP / # TYPE) or a sample `name{label="value",…} number`; returns samples by series.
export interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

export function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  if (text !== '' && !text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n').slice(0, -1)) {
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (!name || !type || !['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type))
        throw new Error(`bad TYPE line: ${line}`);
      if (types.has(name)) throw new Error(`TYPE repeated for ${name}`);
      types.set(name, type);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`bad sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const body = match[3] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const start = LABEL.lastIndex;
      const label = LABEL.exec(body);
      if (!label || label.index !== start) throw new Error(`bad labels in: ${line}`);
      labels[label[1]!] = label[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    const raw = match[4]!;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    if (Number.isNaN(value) && raw !== 'NaN') throw new Error(`bad value in: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  return { samples, types };
}

export function valueOf(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
