// Paired measurement of two servers: both run at once, pinned to the same core, and the generator loads
// them in alternating short slices (A B, then B A), so that a noisy neighbour or a slow disk hits both
// alike. Prints each server's CPU µs per operation per slice and the median of the per-slice ratios B / A:
// the tool for a "did this change help by 5 %?" question that the full bench's sequential rows cannot
// answer on a shared machine.
//
//   npx tsc -p tsconfig.test.json && node .build/bench/pair.js --a <server> --b <server>
//       [--op auth|reg] [--slices 10] [--seconds 2] [--flows 32] [--users <flows>] [--cpu-prof <dir>]
//
// --users: how many users the authentications take turns signing in as (default: one per flow, each signing
// in again every few milliseconds; a service's real users come back after many others, past any cache).
//
// <server>: ours | ours:thread | ours:inline | ours:secret (a relay secret asked and sent) | ours:floor<ms> (that
// `answerFloorMs`; ours:floor0 switches the answer floor off) | comparison | null, optionally
// followed by !<node flag> (repeatable) and by @<build folder> to run another build of the project (say, a worktree of the last commit
// compiled with `npx tsc -p tsconfig.test.json --outDir <folder>`), which makes a before/after pair.

import { parseArgs } from 'node:util';
import { authLoad, emptyTotals, flowUsers, latencyOf, measured, regLoad, type Totals } from './lib/flows.js';
import { pinSelf } from './lib/proc.js';
import {
  BENCH_RELAY_SECRET,
  BUILD,
  startComparison,
  startNull,
  startOurs,
  tempDir,
  type Running,
} from './lib/servers.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: 'ours' },
    b: { type: 'string', default: 'comparison' },
    op: { type: 'string', default: 'auth' },
    slices: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '2' },
    flows: { type: 'string', default: '32' },
    users: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const SLICES = Math.max(2, Math.min(100, Number(values.slices)));
const SECONDS = Math.max(0.5, Math.min(30, Number(values.seconds)));
const FLOWS = Math.max(1, Math.min(256, Number(values.flows)));
const USERS = Math.max(FLOWS, Math.min(100_000, Number(values.users ?? FLOWS)));
const SHARED_NODE_ARGS = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
if (values.op !== 'auth' && values.op !== 'reg') throw new Error('--op is auth or reg');

async function start(spec: string, dir: string): Promise<Running> {
  // `<server>!<node flag>…@<build>`: node flags for that side only (say, ours!--max-semi-space-size=4).
  const [head, build = BUILD] = spec.split('@') as [string, string | undefined];
  const [kind, ...flags] = head.split('!') as [string, ...string[]];
  const NODE_ARGS = [...SHARED_NODE_ARGS, ...flags];
  const named = (server: Running): Running => ({ ...server, name: spec });
  switch (kind) {
    case 'ours':
      return named(await startOurs(dir, NODE_ARGS, 'ours', spec, {}, build));
    case 'ours:thread':
    case 'ours:inline':
      return named(
        await startOurs(dir, NODE_ARGS, 'ours', spec, { PASSKEY_SQLITE_WRITER: kind.slice('ours:'.length) }, build),
      );
    case 'ours:secret':
      // The application asks for a relay secret, and every call of the load carries it.
      return named(await startOurs(dir, NODE_ARGS, 'ours', spec, { BENCH_RELAY_SECRET }, build));
    case 'comparison':
      return named(await startComparison(dir, NODE_ARGS));
    case 'null':
      return named(await startNull(dir, NODE_ARGS));
    default:
      if (/^ours:floor\d+$/.test(kind)) {
        const env = { PASSKEY_ANSWER_FLOOR_MS: kind.slice('ours:floor'.length) };
        return named(await startOurs(dir, NODE_ARGS, 'ours', spec, env, build));
      }
      throw new Error(`unknown server ${spec}`);
  }
}

const micros = (t: Totals) => (t.serverCpu / t.ops) * 1e6;
const median = (xs: readonly number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

pinSelf();
const dirs = [tempDir('pair-a'), tempDir('pair-b')];
const servers: Running[] = [];
try {
  servers.push(await start(values.a!, dirs[0]!.path), await start(values.b!, dirs[1]!.path));
  const users = await Promise.all(servers.map((s) => flowUsers(s, FLOWS, USERS)));
  const load = (i: number, seconds: number) =>
    values.op === 'auth' ? authLoad(servers[i]!, users[i]!, seconds, FLOWS) : regLoad(servers[i]!, FLOWS, seconds);
  for (const i of [0, 1]) await load(i, 1.5)(); // warm-up: JIT, key cache, SQLite pages
  const slices: [Totals, Totals][] = [];
  for (let s = 0; s < SLICES; s++) {
    const pair: [Totals, Totals] = [emptyTotals(), emptyTotals()];
    for (const i of s % 2 === 0 ? [0, 1] : [1, 0]) await measured(servers[i]!, pair[i]!, load(i, SECONDS));
    slices.push(pair);
  }
  const ratios = slices.map(([a, b]) => micros(b) / micros(a));
  console.log(
    `# ${values.op}: A = ${values.a}, B = ${values.b}; ${SLICES} slices of ${SECONDS} s each, ${FLOWS} flows, ${USERS} users`,
  );
  console.log('| slice | A µs/op | B µs/op | B / A |\n| ---: | ---: | ---: | ---: |');
  slices.forEach(([a, b], s) =>
    console.log(`| ${s + 1} | ${micros(a).toFixed(1)} | ${micros(b).toFixed(1)} | ${ratios[s]!.toFixed(3)} |`),
  );
  const sum = (i: 0 | 1) =>
    slices.reduce(
      (t, pair) => ({
        ...t,
        ops: t.ops + pair[i].ops,
        serverCpu: t.serverCpu + pair[i].serverCpu,
        serverSys: t.serverSys + pair[i].serverSys,
        serverFaults: t.serverFaults + pair[i].serverFaults,
        failed: t.failed + pair[i].failed,
        runs: [...t.runs, ...pair[i].runs],
      }),
      emptyTotals(),
    );
  const [a, b] = [sum(0), sum(1)];
  console.log(
    `\nA: ${micros(a).toFixed(1)} µs/op over ${a.ops} ops (${a.failed} failed); B: ${micros(b).toFixed(1)} µs/op over ${b.ops} ops (${b.failed} failed)`,
  );
  const kernel = (t: Totals) => ((t.serverSys / t.ops) * 1e6).toFixed(1);
  const faults = (t: Totals) => (t.serverFaults / t.ops).toFixed(2);
  console.log(`of which in the kernel: A ${kernel(a)} µs/op; B ${kernel(b)} µs/op`);
  console.log(`minor page faults: A ${faults(a)} per op; B ${faults(b)} per op`);
  console.log(
    `B / A: median ${median(ratios).toFixed(3)}, range ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}, totals ${(micros(b) / micros(a)).toFixed(3)}`,
  );
  const result = values.op === 'auth' ? '/api/assertion/result' : '/api/attestation/result';
  const latency = (t: Totals) => {
    const l = latencyOf(t, result);
    return `p50 ${l.p50.toFixed(1)} / p95 ${l.p95.toFixed(1)} / p99 ${l.p99.toFixed(1)} ms`;
  };
  console.log(`${result}: A ${latency(a)}; B ${latency(b)}`);
  if (values.op === 'auth') {
    // The answer floor holds every by-name options answer: it bounds a closed loop's rate (docs/decisions.md).
    const l = (t: Totals) => latencyOf(t, '/api/assertion/options');
    console.log(`/api/assertion/options: A p50 ${l(a).p50.toFixed(1)} ms; B p50 ${l(b).p50.toFixed(1)} ms`);
    const rate = (t: Totals) => (t.ops / (SLICES * SECONDS)).toFixed(0);
    console.log(`throughput: A ${rate(a)} ops/s; B ${rate(b)} ops/s (in equal slices)`);
  }
  const p99OverP50 = (x: Totals, y: Totals) => latencyOf(x, result).p99 / latencyOf(y, result).p50;
  console.log(
    `${result}: A's p99 ÷ B's p50 = ${p99OverP50(a, b).toFixed(2)}; B's p99 ÷ A's p50 = ${p99OverP50(b, a).toFixed(2)}`,
  );
  if (a.failed + b.failed > 0) process.exitCode = 1;
} finally {
  await Promise.all(servers.map((s) => s.close()));
  for (const dir of dirs) dir.remove();
}
