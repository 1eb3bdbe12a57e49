// `npm run bench`: the figures of BENCHMARKS.md, bounded (about 3 minutes), loopback only, stopping by itself.
//   1. Verification in process: ours next to @simplewebauthn/server on the same inputs, beside the raw
//      node:crypto P-256 verify every verifier must pay.
//   2. Over HTTP, whole ceremonies at --flows concurrent flows: our service as shipped (SQLite, durable,
//      audit and metrics on), the comparison server (SimpleWebAuthn on Fastify, in memory) and the null
//      server (the HTTP + JSON floor), each pinned to core 0 while this generator runs on core 1; rounds
//      interleave the servers so that noise hits all of them alike.
//   3. Memory at scale: --seed credentials bulk-seeded into the service's SQLite file, then RSS under load.
// Prints the Markdown tables BENCHMARKS.md quotes and, with --json <file>, the raw numbers.
//
//   node .build/bench/run.js [--seconds 4] [--rounds 2] [--flows 32] [--seed 1000000]
//       [--verify-seconds 1.5] [--json out.json] [--only inprocess|http|seed]

import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import {
  authLoad,
  emptyTotals,
  firstKeyCose,
  flowUsers,
  latencyOf,
  measured,
  regLoad,
  type Totals,
} from './lib/flows.js';
import { runAlgorithms } from './lib/algorithms.js';
import { cpuMicrosPerOp, runInProcess, type InProcessResults } from './lib/inprocess.js';
import { CLIENT_ID, DOMAIN } from './lib/load.js';
import { coreCount, hasProc, memory, pinned, pinSelf } from './lib/proc.js';
import { seedCredentials, type SeedResult } from './lib/seed.js';
import { sqliteFile, startComparison, startNull, startOurs, tempDir, type Running } from './lib/servers.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
    flows: { type: 'string', default: '32' },
    seed: { type: 'string', default: '1000000' },
    'verify-seconds': { type: 'string', default: '1.5' },
    json: { type: 'string' },
    only: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const FLOWS = Number(values.flows);
const SEED = Number(values.seed);
const VERIFY_SECONDS = Number(values['verify-seconds']);
const only = values.only;
const runs = (section: string) => !only || only === section;
const started = performance.now();

if (!hasProc) throw new Error('the bench reads server CPU and memory from /proc: Linux only');
const isPinned = pinSelf();

interface ServerFigures {
  readonly name: string;
  readonly auth: Totals;
  readonly reg: Totals;
  idleMiB: number;
  peakMiB: number;
}

async function httpSection(): Promise<ServerFigures[]> {
  const dirs = ['ours', 'comparison', 'null'].map((label) => tempDir(label));
  const servers: Running[] = [];
  try {
    servers.push(await startOurs(dirs[0]!.path));
    servers.push(await startComparison(dirs[1]!.path));
    servers.push(await startNull(dirs[2]!.path));
    const figures: ServerFigures[] = servers.map((s) => ({
      name: s.name,
      auth: emptyTotals(),
      reg: emptyTotals(),
      idleMiB: memory(s.child.pid).rssMiB,
      peakMiB: 0,
    }));
    const users = await Promise.all(servers.map((s) => flowUsers(s, FLOWS)));
    // Warm-up (JIT, key cache, SQLite pages), not counted.
    for (const [i, server] of servers.entries()) {
      await authLoad(server, users[i]!, 1.5)();
      await regLoad(server, FLOWS, 1)();
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, server] of servers.entries()) {
        await measured(server, figures[i]!.auth, authLoad(server, users[i]!, SECONDS));
        await measured(server, figures[i]!.reg, regLoad(server, FLOWS, SECONDS));
      }
    }
    for (const [i, server] of servers.entries()) figures[i]!.peakMiB = memory(server.child.pid).peakMiB;
    return figures;
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    for (const dir of dirs) dir.remove();
  }
}

interface SeedFigures {
  readonly seed: SeedResult;
  readonly idleMiB: number;
  readonly peakMiB: number;
  readonly auth: Totals;
}

async function seedSection(): Promise<SeedFigures> {
  const dir = tempDir('seed');
  try {
    const seed = seedCredentials(sqliteFile(dir.path), SEED, CLIENT_ID, firstKeyCose(), DOMAIN);
    const server = await startOurs(dir.path);
    try {
      const idleMiB = memory(server.child.pid).rssMiB;
      const users = await flowUsers(server, FLOWS);
      await authLoad(server, users, 1.5)();
      const auth = emptyTotals();
      await measured(server, auth, authLoad(server, users, SECONDS));
      return { seed, idleMiB, peakMiB: memory(server.child.pid).peakMiB, auth };
    } finally {
      await server.close();
    }
  } finally {
    dir.remove();
  }
}

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
const perSecond = (t: Totals) => t.ops / t.seconds;
const cpuMicros = (t: Totals) => (t.serverCpu / t.ops) * 1e6;
const perCpuSecond = (t: Totals) => t.ops / t.serverCpu;

const out: string[] = [];
const print = (line = '') => {
  out.push(line);
  console.log(line);
};

const cpuModel = cpus()[0]?.model ?? 'unknown CPU';
print(`# passkey-server bench — ${new Date().toISOString()}`);
print();
const placement =
  isPinned && pinned ? 'servers pinned to core 0, generator to core 1' : 'NOT pinned (taskset missing or one core)';
print(
  `${coreCount} × ${cpuModel}, Node ${process.version}, ${placement}; ${FLOWS} concurrent flows, ` +
    `${ROUNDS} interleaved rounds of ${SECONDS} s per server and operation.`,
);
print();

let inprocess: InProcessResults | undefined;
if (runs('inprocess')) {
  inprocess = await runInProcess(VERIFY_SECONDS);
  print('## Verification in process (one core)');
  print();
  print('| Operation | ours, CPU µs | SimpleWebAuthn, CPU µs | ours per SimpleWebAuthn |');
  print('| --- | ---: | ---: | ---: |');
  print(`| raw node:crypto P-256 verify (the floor) | ${f1(cpuMicrosPerOp(inprocess.rawVerify))} | | |`);
  for (const row of inprocess.rows) {
    const [ours, theirs] = [cpuMicrosPerOp(row.ours), cpuMicrosPerOp(row.theirs)];
    print(`| ${row.operation} | ${f1(ours)} | ${f1(theirs)} | **${f2(ours / theirs)} ×** |`);
  }
  print();
  const raw = cpuMicrosPerOp(inprocess.rawVerify);
  print('## The signature check of one sign-in, per algorithm (one core)');
  print();
  print('| Algorithm, verifier | CPU µs | per ES256 |');
  print('| --- | ---: | ---: |');
  print(`| ES256, node:crypto | ${f1(raw)} | 1.00 × |`);
  for (const m of await runAlgorithms(VERIFY_SECONDS)) {
    print(`| ${m.name} | ${f1(cpuMicrosPerOp(m))} | ${f2(cpuMicrosPerOp(m) / raw)} × |`);
  }
  print();
}

let http: ServerFigures[] | undefined;
if (runs('http')) {
  http = await httpSection();
  print('## Over HTTP (server on one core)');
  print();
  print(
    '| Server | sign-ins/s | CPU µs per sign-in | sign-in p50 / p99 ms | registrations/s | CPU µs per registration | registration p50 / p99 ms | RSS idle / peak MiB |',
  );
  print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const latency = (t: Totals, path: string) => {
    const l = latencyOf(t, path);
    return `${f1(l.p50)} / ${f1(l.p99)}`;
  };
  for (const s of http) {
    print(
      `| ${s.name} | ${f0(perSecond(s.auth))} | ${f0(cpuMicros(s.auth))} | ${latency(s.auth, '/api/assertion/result')} | ` +
        `${f0(perSecond(s.reg))} | ${f0(cpuMicros(s.reg))} | ${latency(s.reg, '/api/attestation/result')} | ` +
        `${f0(s.idleMiB)} / ${f0(s.peakMiB)} |`,
    );
  }
  print();
  const [ours, comparison] = http as [ServerFigures, ServerFigures];
  print(
    `Ours per comparison, CPU per operation: sign-in **${f2(cpuMicros(ours.auth) / cpuMicros(comparison.auth))} ×**, ` +
      `registration **${f2(cpuMicros(ours.reg) / cpuMicros(comparison.reg))} ×** ` +
      `(per CPU-second: ${f2(perCpuSecond(ours.auth) / perCpuSecond(comparison.auth))} × and ` +
      `${f2(perCpuSecond(ours.reg) / perCpuSecond(comparison.reg))} × the sign-ins and registrations).`,
  );
  print();
  for (const s of http) {
    const error = s.auth.firstError ?? s.reg.firstError;
    if (error) print(`First failure at ${s.name}: ${error}`);
  }
}

let seeded: SeedFigures | undefined;
if (runs('seed') && SEED > 0) {
  seeded = await seedSection();
  print(`## Memory with ${seeded.seed.rows.toLocaleString('en')} credentials in SQLite`);
  print();
  print('| Our service | sign-ins/s | CPU µs per sign-in | RSS idle MiB | RSS peak under load MiB |');
  print('| --- | ---: | ---: | ---: | ---: |');
  print(
    `| as shipped | ${f0(perSecond(seeded.auth))} | ${f0(cpuMicros(seeded.auth))} | ${f0(seeded.idleMiB)} | ${f0(seeded.peakMiB)} |`,
  );
  if (seeded.auth.firstError) print(`First failure: ${seeded.auth.firstError}`);
  print();
}
print(`Bench took ${f0((performance.now() - started) / 1000)} s.`);

if (values.json) {
  const totals = (t: Totals) => ({ ops: t.ops, failed: t.failed, seconds: t.seconds, serverCpu: t.serverCpu });
  const raw = {
    date: new Date().toISOString(),
    cpu: cpuModel,
    node: process.version,
    flows: FLOWS,
    rounds: ROUNDS,
    seconds: SECONDS,
    inprocess,
    http: http?.map((s) => ({
      name: s.name,
      idleMiB: s.idleMiB,
      peakMiB: s.peakMiB,
      auth: totals(s.auth),
      reg: totals(s.reg),
    })),
    seeded: seeded && { ...seeded, auth: totals(seeded.auth) },
    markdown: out.join('\n'),
  };
  writeFileSync(values.json, JSON.stringify(raw, null, 2));
}
