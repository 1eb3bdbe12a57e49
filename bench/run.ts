// `npm run bench`: the whole benchmark, bounded (about 3 minutes), loopback only, stopping by itself.
//   1. Floor: raw node:crypto P-256 verify with a reused KeyObject (in process), and a null HTTP server.
//   2. Verification in process: ours next to @simplewebauthn/server on the same inputs.
//   3. Over HTTP, full flows at --flows concurrent ceremonies: our service (SQLite, durable), the
//      comparison server (SimpleWebAuthn on Fastify, in memory) and the null server, each pinned to core 0
//      while this generator runs on core 1; rounds interleave the servers so that noise hits all of them.
//   3b. Cost ledger (bench/lib/ledger.ts): the CPU of each step of one authentication and one `none`
//      registration, in process on the service's own modules; printed after section 3, whose figures give
//      the budget the targets leave and the "HTTP app and glue" remainder. Alone: --only ledger (which also
//      measures the section-2 verification figures it refers to, briefly, without printing section 2).
//   4. Memory at scale: --seed credentials bulk-seeded into SQLite, then RSS and authentications again.
// Prints Markdown tables (the figures of BENCHMARKS.md) and, with --json <file>, the raw numbers.
//
//   npx tsc -p tsconfig.test.json && node .build/bench/run.js [--seconds 4] [--rounds 2] [--flows 32]
//       [--seed 1000000] [--verify-seconds 1.5] [--ledger-seconds 0.3] [--json out.json] [--cpu-prof <dir>]
//       [--only inprocess|http|ledger|seed] [--skip-scale]

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
import { cpuMicrosPerOp, opsPerSecond, runInProcess, type InProcessResults } from './lib/inprocess.js';
import { ledgerReport, runLedger, type LedgerContext, type LedgerResults, type LedgerSummary } from './lib/ledger.js';
import { CLIENT_ID, DOMAIN } from './lib/load.js';
import { coreCount, hasProc, memory, pinned, pinSelf } from './lib/proc.js';
import { seedCredentials, type SeedResult } from './lib/seed.js';
import {
  BUILD,
  sqliteFile,
  startComparison,
  startNull,
  startOurs,
  startOursWithoutHooks,
  tempDir,
  type Running,
} from './lib/servers.js';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
    flows: { type: 'string', default: '32' },
    seed: { type: 'string', default: '1000000' },
    'verify-seconds': { type: 'string', default: '1.5' },
    'ledger-seconds': { type: 'string', default: '0.3' },
    json: { type: 'string' },
    'cpu-prof': { type: 'string' },
    only: { type: 'string' },
    'skip-scale': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const FLOWS = Number(values.flows);
const SEED = Number(values.seed);
const VERIFY_SECONDS = Number(values['verify-seconds']);
const LEDGER_SECONDS = Number(values['ledger-seconds']);
const PROFILE_ARGS = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
const only = values.only;
const started = performance.now();

if (!hasProc) throw new Error('the bench reads server CPU and memory from /proc: Linux only');
const isPinned = pinSelf();

// ---------------------------------------------------------------------------------------------------
// HTTP measurements

interface ServerFigures {
  readonly name: string;
  readonly auth: Totals;
  readonly reg: Totals;
  idleMiB: number;
  peakMiB: number;
}

/** The service with the writer thread forced: what "auto" runs on a host where the process has two or more cores. */
const OURS_THREAD = 'our service, sqliteWriter "thread" (diagnostic: the default with 2+ cores)';

async function httpSection(): Promise<ServerFigures[]> {
  const dirs = ['null', 'comparison', 'ours', 'thread', 'plain', 'sync'].map((label) => tempDir(label));
  // Diagnostic: the same service with its SQLite file in memory (tmpfs), where fsync costs nothing.
  const shm = existsSync('/dev/shm') ? tempDir('tmpfs', '/dev/shm') : undefined;
  if (shm) dirs.push(shm);
  const servers: Running[] = [];
  try {
    servers.push(await startNull(dirs[0]!.path, PROFILE_ARGS));
    servers.push(await startComparison(dirs[1]!.path, PROFILE_ARGS));
    // As shipped: sqliteWriter "auto", which on this one pinned core is the inline writer (docs/storage.md).
    servers.push(await startOurs(dirs[2]!.path, PROFILE_ARGS));
    servers.push(
      await startOurs(dirs[3]!.path, PROFILE_ARGS, 'ours-thread', OURS_THREAD, { PASSKEY_SQLITE_WRITER: 'thread' }),
    );
    // Without hooks, with the writer the service runs here (inline), so that the gap to "our service" is the hooks.
    servers.push(await startOursWithoutHooks(dirs[4]!.path, PROFILE_ARGS, 'inline'));
    servers.push(await startOursWithoutHooks(dirs[5]!.path, PROFILE_ARGS, 'none'));
    if (shm)
      servers.push(
        await startOurs(shm.path, PROFILE_ARGS, 'ours-tmpfs', 'ours, SQLite on tmpfs (diagnostic: fsync free)'),
      );
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
  readonly label: string;
  readonly seed: SeedResult;
  readonly idleMiB: number;
  readonly afterMiB: number;
  readonly peakMiB: number;
  readonly auth: Totals;
}

/** Smaller V8 young generation: the peak RSS under load is mostly its growth (BENCHMARKS.md). */
const SMALL_YOUNG_GENERATION = '--max-semi-space-size=4';

async function seedSection(): Promise<SeedFigures[]> {
  const dir = tempDir('seed');
  const results: SeedFigures[] = [];
  try {
    const seed = seedCredentials(sqliteFile(dir.path), SEED, CLIENT_ID, firstKeyCose(), DOMAIN);
    const variants: readonly (readonly [string, readonly string[], Record<string, string>])[] = [
      ['as shipped', [], {}],
      [`node ${SMALL_YOUNG_GENERATION}`, [SMALL_YOUNG_GENERATION], {}],
      ['sqliteWriter "thread" (the default with 2+ cores)', [], { PASSKEY_SQLITE_WRITER: 'thread' }],
    ];
    for (const [label, nodeArgs, env] of variants) {
      const server = await startOurs(dir.path, nodeArgs, 'ours-seeded', 'our service', env);
      try {
        const idleMiB = memory(server.child.pid).rssMiB;
        const users = await flowUsers(server, FLOWS);
        await authLoad(server, users, 1.5)();
        const auth = emptyTotals();
        await measured(server, auth, authLoad(server, users, SECONDS));
        const { rssMiB, peakMiB } = memory(server.child.pid);
        results.push({ label, seed, idleMiB, afterMiB: rssMiB, peakMiB, auth });
      } finally {
        await server.close();
      }
    }
    return results;
  } finally {
    dir.remove();
  }
}

// ---------------------------------------------------------------------------------------------------
// Report

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
const perSecond = (t: Totals) => t.ops / t.seconds;
const cpuMicros = (t: Totals) => (t.serverCpu / t.ops) * 1e6;
const sysMicros = (t: Totals) => (t.serverSys / t.ops) * 1e6;
const perCpuSecond = (t: Totals) => t.ops / t.serverCpu;
const share = (cpu: number, t: Totals) => `${f0((100 * cpu) / t.seconds)} %`;

const out: string[] = [];
const print = (line = '') => {
  out.push(line);
  console.log(line);
};

const cpuModel = cpus()[0]?.model ?? 'unknown CPU';
print(`# passkey-server bench — ${new Date().toISOString()}`);
print();
print(
  `${coreCount} × ${cpuModel}, Node ${process.version}, ${isPinned && pinned ? 'servers pinned to core 0, generator to core 1 (taskset)' : 'NOT pinned (taskset missing or one core)'}; ` +
    `${FLOWS} concurrent flows, ${ROUNDS} interleaved rounds of ${SECONDS} s per server and operation.`,
);
print();

let inprocess: InProcessResults | undefined;
if (!only || only === 'inprocess' || only === 'http') {
  inprocess = await runInProcess(VERIFY_SECONDS);
  if (only !== 'http') {
    print('## 1–2. Verification in process (generator core)');
    print();
    print(
      '| Operation | Ours ops/s | Ours CPU µs/op | SimpleWebAuthn ops/s | SimpleWebAuthn CPU µs/op | CPU ratio (theirs/ours) |',
    );
    print('| --- | ---: | ---: | ---: | ---: | ---: |');
    print(
      `| raw node:crypto P-256 verify (floor) | ${f0(opsPerSecond(inprocess.rawVerify))} | ${f1(cpuMicrosPerOp(inprocess.rawVerify))} | | | |`,
    );
    print(
      `| COSE key import (now only at first use: packed self, first authentication) | ${f0(opsPerSecond(inprocess.keyImport))} | ${f1(cpuMicrosPerOp(inprocess.keyImport))} | | | |`,
    );
    print(
      `| P-256 on-curve check (what registration pays now) | ${f0(opsPerSecond(inprocess.onCurve))} | ${f1(cpuMicrosPerOp(inprocess.onCurve))} | | | |`,
    );
    for (const row of inprocess.rows) {
      print(
        `| ${row.operation} | ${f0(opsPerSecond(row.ours))} | ${f1(cpuMicrosPerOp(row.ours))} | ${f0(opsPerSecond(row.theirs))} | ${f1(cpuMicrosPerOp(row.theirs))} | **${f2(cpuMicrosPerOp(row.theirs) / cpuMicrosPerOp(row.ours))}×** |`,
      );
      if (row.oursNoCache) {
        print(
          `| authentication, ours importing the COSE key every time | ${f0(opsPerSecond(row.oursNoCache))} | ${f1(cpuMicrosPerOp(row.oursNoCache))} | ${f0(opsPerSecond(row.theirs))} | ${f1(cpuMicrosPerOp(row.theirs))} | ${f2(cpuMicrosPerOp(row.theirs) / cpuMicrosPerOp(row.oursNoCache))}× |`,
        );
      }
    }
    print();
  }
}

// 3b. The cost ledger, measured here (in process, before any server starts) and printed after section 3.
let ledger: LedgerResults | undefined;
let ledgerNote: string | undefined;
if (!only || only === 'ledger') {
  if (!inprocess) {
    // Alone, the ledger still refers to section 2's verification figures: measured briefly, not printed.
    const verifySeconds = Math.min(VERIFY_SECONDS, 0.5);
    inprocess = await runInProcess(verifySeconds);
    ledgerNote = `Section 2's figures (raw verify, our verification) measured for this table only, ${verifySeconds} s per operation.`;
  }
  ledger = await runLedger({ seconds: LEDGER_SECONDS });
}

let http: ServerFigures[] | undefined;
if (!only || only === 'http') {
  http = await httpSection();
  print('## 3. Over HTTP (server on core 0, generator on core 1)');
  print();
  print(
    '| Server | auth/s | server CPU µs/auth (kernel part) | auth per server CPU-s | reg/s | server CPU µs/reg (kernel part) | reg per server CPU-s | server CPU share (auth, reg) | generator CPU share (auth, reg) | RSS idle / peak MiB | failed |',
  );
  print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const s of http) {
    print(
      `| ${s.name} | ${f0(perSecond(s.auth))} | ${f0(cpuMicros(s.auth))} (${f0(sysMicros(s.auth))}) | ${f0(perCpuSecond(s.auth))} | ${f0(perSecond(s.reg))} | ${f0(cpuMicros(s.reg))} (${f0(sysMicros(s.reg))}) | ${f0(perCpuSecond(s.reg))} | ` +
        `${share(s.auth.serverCpu, s.auth)}, ${share(s.reg.serverCpu, s.reg)} | ${share(s.auth.generatorCpu, s.auth)}, ${share(s.reg.generatorCpu, s.reg)} | ${f0(s.idleMiB)} / ${f0(s.peakMiB)} | ${s.auth.failed + s.reg.failed} |`,
    );
  }
  print();
  print('Latency per endpoint, ms (p50 / p95 / p99):');
  print();
  print('| Server | attestation/options | attestation/result | assertion/options | assertion/result |');
  print('| --- | ---: | ---: | ---: | ---: |');
  for (const s of http) {
    const cell = (t: Totals, path: string) => {
      const l = latencyOf(t, path);
      return `${f1(l.p50)} / ${f1(l.p95)} / ${f1(l.p99)}`;
    };
    print(
      `| ${s.name} | ${cell(s.reg, '/api/attestation/options')} | ${cell(s.reg, '/api/attestation/result')} | ${cell(s.auth, '/api/assertion/options')} | ${cell(s.auth, '/api/assertion/result')} |`,
    );
  }
  print();
  for (const s of http) {
    const error = s.auth.firstError ?? s.reg.firstError;
    if (error) print(`First failure at ${s.name}: ${error}`);
  }
}

let ledgerSummary: LedgerSummary | undefined;
if (ledger && inprocess) {
  const regNone = inprocess.rows.find((r) => r.operation === 'registration (none)')!;
  const authRow = inprocess.rows.find((r) => r.operation.startsWith('authentication'))!;
  const context: { -readonly [K in keyof LedgerContext]: LedgerContext[K] } = {
    verification: {
      rawVerify: cpuMicrosPerOp(inprocess.rawVerify),
      authentication: cpuMicrosPerOp(authRow.ours),
      registrationNone: cpuMicrosPerOp(regNone.ours),
      ...(ledgerNote ? { note: ledgerNote } : {}),
    },
  };
  const server = (name: string) => http?.find((s) => s.name === name);
  const [nul, cmp, ours] = [server('null server'), server('SimpleWebAuthn + Fastify'), server('our service')];
  if (nul && cmp && ours) {
    context.http = {
      nullAuth: cpuMicros(nul.auth),
      nullReg: cpuMicros(nul.reg),
      comparisonAuth: cpuMicros(cmp.auth),
      comparisonReg: cpuMicros(cmp.reg),
      oursAuth: cpuMicros(ours.auth),
      oursReg: cpuMicros(ours.reg),
    };
  }
  const report = ledgerReport(ledger, context);
  ledgerSummary = report.summary;
  for (const line of report.lines) print(line);
}

let seededRuns: SeedFigures[] | undefined;
if ((!only || only === 'seed') && SEED > 0) {
  seededRuns = await seedSection();
  const first = seededRuns[0]!;
  print(`## 4. Memory at scale: ${first.seed.rows.toLocaleString('en')} credentials in SQLite`);
  print();
  print(
    `Seeded in ${f1(first.seed.seconds)} s (one transaction, one prepared INSERT, indexes built after), file ${f0(first.seed.fileMiB)} MiB.`,
  );
  print();
  print(
    '| Our service | auth/s | server CPU µs/auth (kernel part) | RSS idle MiB | RSS after load MiB | RSS peak MiB | failed |',
  );
  print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of seededRuns) {
    print(
      `| ${r.label} | ${f0(perSecond(r.auth))} | ${f0(cpuMicros(r.auth))} (${f0(sysMicros(r.auth))}) | ${f0(r.idleMiB)} | ${f0(r.afterMiB)} | ${f0(r.peakMiB)} | ${r.auth.failed} |`,
    );
    if (r.auth.firstError) print(`First failure (${r.label}): ${r.auth.firstError}`);
  }
  print();
}
const seeded = seededRuns?.[0];

// ---------------------------------------------------------------------------------------------------
// 5. bench/scale.ts (the scale engineer's): SQLite vs PostgreSQL + Redis, 1 and 2 instances. It needs
// PostgreSQL and Redis; when they are not reachable the section says so and the bench goes on.

if (!only && !values['skip-scale']) {
  print('## 5. Scale: SQLite vs PostgreSQL + Redis (bench/scale.ts, not pinned, 5 s per setup)');
  print();
  // This process is pinned to the generator core and children inherit that: give scale.ts both cores back.
  const script = [join(BUILD, 'bench', 'scale.js'), '--seconds', '5'];
  const [command, args] = pinned
    ? ['taskset', ['-c', `0-${coreCount - 1}`, process.execPath, ...script]]
    : [process.execPath, script];
  const scale = spawnSync(command, args, { encoding: 'utf8', timeout: 150_000, env: process.env });
  const table = (scale.stdout ?? '').split('\n').filter((line) => line.startsWith('|'));
  if (scale.status === 0 && table.length > 0) for (const line of table) print(line);
  else
    print(
      `Skipped: bench/scale.ts ${scale.error ? `did not finish (${scale.error.message})` : `exited ${scale.status}`}: ${(scale.stderr ?? '').trim().split('\n').slice(-1)[0] ?? ''}`,
    );
  print();
}

// ---------------------------------------------------------------------------------------------------
// Targets, as ratios from this run

if (http && inprocess) {
  const [nul, cmp, ours, thread, plain, sync] = http as [
    ServerFigures,
    ServerFigures,
    ServerFigures,
    ServerFigures,
    ServerFigures,
    ServerFigures,
  ];
  const raw = cpuMicrosPerOp(inprocess.rawVerify);
  const regNone = inprocess.rows.find((r) => r.operation === 'registration (none)')!;
  const authRow = inprocess.rows.find((r) => r.operation.startsWith('authentication'))!;
  const cmpP50 = latencyOf(cmp.auth, '/api/assertion/result').p50;
  const verdict = (met: boolean) => (met ? 'met' : 'not met');
  const t1 = (s: ServerFigures) => cpuMicros(s.auth) / (cpuMicros(nul.auth) + raw);
  const t2 = (s: ServerFigures) => perCpuSecond(s.auth) / perCpuSecond(cmp.auth);
  const t3 = (s: ServerFigures) => perCpuSecond(s.reg) / perCpuSecond(cmp.reg);
  const t5 = (s: ServerFigures) => latencyOf(s.auth, '/api/assertion/result').p99 / cmpP50;
  const inAuth = cpuMicrosPerOp(authRow.theirs) / cpuMicrosPerOp(authRow.ours);
  const inReg = cpuMicrosPerOp(regNone.theirs) / cpuMicrosPerOp(regNone.ours);
  const rows: [string, (s: ServerFigures) => string][] = [
    [
      'Server CPU per authentication ≤ 1.35 × (null-server CPU per authentication + one raw verify)',
      (s) =>
        `${f0(cpuMicros(s.auth))} µs vs ${f0(cpuMicros(nul.auth))} + ${f0(raw)} µs → **${f2(t1(s))}×** ${verdict(t1(s) <= 1.35)}`,
    ],
    [
      'Authentications per server CPU-second ≥ 2.5 × comparison',
      (s) =>
        `${f0(perCpuSecond(s.auth))} vs ${f0(perCpuSecond(cmp.auth))} → **${f2(t2(s))}×** ${verdict(t2(s) >= 2.5)} (per wall second ${f2(perSecond(s.auth) / perSecond(cmp.auth))}×)`,
    ],
    [
      'Registration (none) ≥ 3 × comparison, per server CPU-second',
      (s) =>
        `${f0(perCpuSecond(s.reg))} vs ${f0(perCpuSecond(cmp.reg))} → **${f2(t3(s))}×** ${verdict(t3(s) >= 3)} (per wall second ${f2(perSecond(s.reg) / perSecond(cmp.reg))}×)`,
    ],
    [
      `p99 of assertion/result at ${FLOWS} flows < comparison's p50`,
      (s) =>
        `${f1(latencyOf(s.auth, '/api/assertion/result').p99)} ms vs ${f1(cmpP50)} ms → **${f2(t5(s))}×** ${verdict(t5(s) < 1)}`,
    ],
  ];
  print('## Targets (ratios from this run)');
  print();
  // The best any server could do here that does what the ledger (section 3b) measured, on top of the floor.
  const auth = ledgerSummary?.authentication;
  const reg = ledgerSummary?.registration;
  const ceilings = [
    auth
      ? `floor + ledger: ${f0(cpuMicros(nul.auth) + raw + auth.sum)} µs → **${f2((cpuMicros(nul.auth) + raw + auth.sum) / (cpuMicros(nul.auth) + raw))}×**`
      : '(ledger not run)',
    auth
      ? `comparison ÷ (floor + ledger): **${f2(cpuMicros(cmp.auth) / (cpuMicros(nul.auth) + raw + auth.sum))}×**`
      : '(ledger not run)',
    reg
      ? `comparison ÷ (null + ledger): **${f2(cpuMicros(cmp.reg) / (cpuMicros(nul.reg) + reg.sum))}×**; comparison ÷ null alone: ${f2(cpuMicros(cmp.reg) / cpuMicros(nul.reg))}×`
      : '(ledger not run)',
    '',
  ];
  print(
    `| Target | ${ours.name} | ${thread.name} | ${plain.name} | ${sync.name} | best possible with the ledger's steps (3b) |`,
  );
  print('| --- | --- | --- | --- | --- | --- |');
  for (const [i, [target, cell]] of rows.entries())
    print(`| ${target} | ${cell(ours)} | ${cell(thread)} | ${cell(plain)} | ${cell(sync)} | ${ceilings[i]} |`);
  const theirsPerRaw = cpuMicrosPerOp(authRow.theirs) / raw;
  print(
    `| Verification in process ≥ 5 × SimpleWebAuthn (CPU per operation) | authentication **${f2(inAuth)}×** ${verdict(inAuth >= 5)}, registration (none) **${f2(inReg)}×** ${verdict(inReg >= 5)} | (same code) | (same code) | (same code) | authentication: SimpleWebAuthn ÷ one raw verify = **${f2(theirsPerRaw)}×** (a verifier costs at least one verify) |`,
  );
  if (seededRuns) {
    const [shipped, ...others] = seededRuns as [SeedFigures, ...SeedFigures[]];
    const other = (r: SeedFigures | undefined) =>
      r
        ? `${r.label}: peak **${f0(r.peakMiB)} MiB** ${verdict(r.peakMiB <= 100)}, ${f0(perSecond(r.auth))} vs ${f0(perSecond(shipped.auth))} auth/s`
        : '';
    print(
      `| RSS ≤ 100 MiB with ${shipped.seed.rows.toLocaleString('en')} stored credentials | peak **${f0(shipped.peakMiB)} MiB** ${verdict(shipped.peakMiB <= 100)} (idle ${f0(shipped.idleMiB)}) | ${other(others[0])} | ${other(others[1])} | | |`,
    );
  }
  print();
}
print(`Bench took ${f0((performance.now() - started) / 1000)} s.`);

if (values.json) {
  const totals = (t: Totals) => ({
    ops: t.ops,
    failed: t.failed,
    seconds: t.seconds,
    serverCpu: t.serverCpu,
    serverSys: t.serverSys,
    generatorCpu: t.generatorCpu,
  });
  writeFileSync(
    values.json,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        cpu: cpuModel,
        node: process.version,
        flows: FLOWS,
        rounds: ROUNDS,
        seconds: SECONDS,
        inprocess,
        ledger: ledger && { results: ledger, summary: ledgerSummary },
        http: http?.map((s) => ({
          name: s.name,
          idleMiB: s.idleMiB,
          peakMiB: s.peakMiB,
          auth: totals(s.auth),
          reg: totals(s.reg),
          latency: Object.fromEntries(
            ['/api/attestation/options', '/api/attestation/result']
              .map((p) => [p, latencyOf(s.reg, p)])
              .concat(['/api/assertion/options', '/api/assertion/result'].map((p) => [p, latencyOf(s.auth, p)])),
          ),
        })),
        seeded: seeded && { ...seeded, auth: totals(seeded.auth) },
        seededRuns: seededRuns?.map((r) => ({ ...r, auth: totals(r.auth) })),
        markdown: out.join('\n'),
      },
      null,
      2,
    ),
  );
}
