// The key ratios of several bench runs side by side, to show how much they move between runs:
//   node .build/bench/summarize.js run1.json run2.json …   (files written by `run.js --json`)

import { readFileSync } from 'node:fs';

interface Totals {
  ops: number;
  seconds: number;
  serverCpu: number;
}
interface Server {
  name: string;
  peakMiB: number;
  auth: Totals;
  reg: Totals;
  latency: Record<string, { p50: number; p99: number }>;
}
interface M {
  ops: number;
  cpuSeconds: number;
}
interface Run {
  date: string;
  inprocess?: { rawVerify: M; keyImport?: M; rows: { operation: string; ours: M; theirs: M }[] };
  http?: Server[];
  seeded?: { peakMiB: number };
}

const micros = (m: M) => (m.cpuSeconds / m.ops) * 1e6;
const cpuPerOp = (t: Totals) => (t.serverCpu / t.ops) * 1e6;
const perCpu = (t: Totals) => t.ops / t.serverCpu;
const f2 = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(2));

const runs = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, 'utf8')) as Run);
const rows: [string, (r: Run) => number | undefined][] = [];
const server = (r: Run, prefix: string) => r.http?.find((s) => s.name.startsWith(prefix));
// Prefixes of the server names in run.ts (older runs' names still match where they are the same).
const SERVERS = [
  ['our service', 'our service'],
  ['writer thread forced', 'our service, sqliteWriter "thread"'],
  ['without hooks', 'ours without operations hooks'],
  ['one commit per write', 'ours without hooks, one commit'],
  ['tmpfs', 'ours, SQLite on tmpfs'],
] as const;
for (const [label, prefix] of SERVERS) {
  rows.push([
    `${label}: CPU/auth ÷ (null + raw verify) [≤ 1.35]`,
    (r) => {
      const s = server(r, prefix);
      const n = server(r, 'null');
      const raw = r.inprocess && micros(r.inprocess.rawVerify);
      return s && n && raw ? cpuPerOp(s.auth) / (cpuPerOp(n.auth) + raw) : undefined;
    },
  ]);
  rows.push([
    `${label}: auth per CPU-s ÷ comparison [≥ 2.5]`,
    (r) => {
      const s = server(r, prefix);
      const c = server(r, 'SimpleWebAuthn');
      return s && c ? perCpu(s.auth) / perCpu(c.auth) : undefined;
    },
  ]);
  rows.push([
    `${label}: reg per CPU-s ÷ comparison [≥ 3]`,
    (r) => {
      const s = server(r, prefix);
      const c = server(r, 'SimpleWebAuthn');
      return s && c ? perCpu(s.reg) / perCpu(c.reg) : undefined;
    },
  ]);
  rows.push([
    `${label}: p99 assertion/result ÷ comparison p50 [< 1]`,
    (r) => {
      const s = server(r, prefix);
      const c = server(r, 'SimpleWebAuthn');
      return s && c ? s.latency['/api/assertion/result']!.p99 / c.latency['/api/assertion/result']!.p50 : undefined;
    },
  ]);
}
for (const op of ['authentication (ES256)', 'registration (none)', 'registration (packed self)']) {
  rows.push([
    `in process ${op}: SimpleWebAuthn CPU ÷ ours [≥ 5]`,
    (r) => {
      const row = r.inprocess?.rows.find((x) => x.operation === op);
      return row ? micros(row.theirs) / micros(row.ours) : undefined;
    },
  ]);
}
rows.push([
  'in process: ours authentication ÷ raw verify',
  (r) => {
    const row = r.inprocess?.rows.find((x) => x.operation.startsWith('authentication'));
    return row && r.inprocess ? micros(row.ours) / micros(r.inprocess.rawVerify) : undefined;
  },
]);
rows.push(['RSS peak MiB with the seeded credentials [≤ 100]', (r) => r.seeded?.peakMiB]);

console.log(`| Ratio [target] | ${runs.map((r) => `${r.date.slice(11, 16)} UTC`).join(' | ')} |`);
console.log(`| --- | ${runs.map(() => '---:').join(' | ')} |`);
for (const [label, get] of rows) console.log(`| ${label} | ${runs.map((r) => f2(get(r))).join(' | ')} |`);
