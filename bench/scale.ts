// Authentications per second with 1 and 2 service instances on PostgreSQL + Redis, next to one instance
// on SQLite, in the same run on the same machine. Each instance is a real `cli/bin.js serve` process; the load
// generator (this process) plays a load balancer: every authentication asks instance k for options and
// posts the result to instance k+1, so with 2 instances every ceremony crosses instances.
//
//   npx tsc -p tsconfig.test.json && node .build/bench/scale.js [--seconds 5] [--rounds 3] [--concurrency 16] [--users 20]
//
// Needs PostgreSQL and Redis as for the tests (PASSKEY_TEST_POSTGRES_URL, PASSKEY_TEST_REDIS_URL); uses a
// schema and key prefix of its own and removes them, the instances and their temp folder at the end.
// Everything (instances, PostgreSQL, Redis, the generator) shares the machine's cores: read the figures as
// relative, not as a capacity plan.

import { parseArgs } from 'node:util';
import { cpus, loadavg } from 'node:os';
import { freshPrefix, freshSchema, POSTGRES_URL, REDIS_URL } from '../test/scale/support/backends.js';
import { post, User } from '../test/scale/support/client.js';
import {
  sharedSecretsEnv,
  startInstance,
  supportsOpsConfig,
  workDir,
  type Instance,
} from '../test/scale/support/service.js';

const UNLIMITED = {
  perApplication: { burst: 1_000_000, perSecond: 1_000_000 },
  perAddress: { burst: 1_000_000, perSecond: 1_000_000 },
};

interface Scenario {
  readonly name: string;
  readonly instances: number;
  readonly backend: 'sqlite' | 'postgres+redis';
}

interface Result {
  readonly scenario: Scenario;
  /** Authentications per second of each measured window, in round order. */
  readonly rates: number[];
  failures: number;
  readonly latencies: number[];
}

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    users: { type: 'string', default: '20' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
const USERS = Number(values.users);

const SCENARIOS: readonly Scenario[] = [
  { name: 'SQLite, 1 instance', instances: 1, backend: 'sqlite' },
  { name: 'PostgreSQL + Redis, 1 instance', instances: 1, backend: 'postgres+redis' },
  { name: 'PostgreSQL + Redis, 2 instances', instances: 2, backend: 'postgres+redis' },
];

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(
  instances: readonly Instance[],
  users: readonly User[],
  seconds: number,
): Promise<{ ok: number; failed: number; latencies: number[] }> {
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let turn = 0;
  const end = Date.now() + seconds * 1000;
  const worker = async (index: number) => {
    // Each worker keeps to its own users, so one credential is never used by two workers at once
    // (concurrent uses of one credential race on its counter, which is a test, not a benchmark).
    const mine = users.filter((_, i) => i % CONCURRENCY === index);
    let n = 0;
    while (Date.now() < end) {
      const user = mine[n % mine.length]!;
      n += 1;
      const k = turn++;
      const from = instances[k % instances.length]!.url;
      const to = instances[(k + 1) % instances.length]!.url;
      const started = performance.now();
      try {
        const answer = await post(to, '/api/assertion/result', await user.signedAssertion(from), 10_000);
        if (answer.body.status === 'ok') {
          ok += 1;
          latencies.push(performance.now() - started);
        } else {
          failed += 1;
        }
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => worker(i)));
  return { ok, failed, latencies: latencies.sort((a, b) => a - b) };
}

interface Deployment {
  readonly scenario: Scenario;
  readonly instances: Instance[];
  readonly users: User[];
}

/** Starts one setup; what must be undone is added to `cleanup` as soon as it exists. */
async function deploy(scenario: Scenario, cleanup: (() => Promise<void> | void)[]): Promise<Deployment> {
  const dir = workDir('bench');
  cleanup.push(() => dir.remove());
  const schema = scenario.backend === 'postgres+redis' ? await freshSchema('bench') : undefined;
  const prefix = scenario.backend === 'postgres+redis' ? freshPrefix('bench') : undefined;
  if (schema) cleanup.push(() => schema.drop());
  if (prefix) cleanup.push(() => prefix.drop());
  const secrets = sharedSecretsEnv();
  const instances: Instance[] = [];
  for (let i = 0; i < scenario.instances; i += 1) {
    const instance = await startInstance({
      dir: dir.path,
      database: schema ? `${POSTGRES_URL}?schema=${schema.schema}` : `sqlite:${dir.path}/data/fido2.db`,
      challenges: prefix ? `${REDIS_URL}?prefix=${encodeURIComponent(prefix.prefix)}` : 'memory',
      env: { ...secrets, PASSKEY_LOG_LEVEL: 'warn' },
      name: `bench-${i}`,
      // The default rate limits (per application and per address) are below what one load generator on
      // one address sends; the benchmark measures the service, not its admission control.
      ...(supportsOpsConfig() ? { extraConfig: { rateLimits: UNLIMITED, requestLog: false } } : {}),
    });
    instances.push(instance);
    cleanup.unshift(() => instance.kill());
  }
  // At least one user per client, so that every client has credentials of its own.
  const users = Array.from({ length: Math.max(USERS, CONCURRENCY) }, () => new User());
  for (const [i, user] of users.entries()) {
    const { answer } = await user.register(instances[i % instances.length]!.url);
    if (answer.body.status !== 'ok') throw new Error(`registration failed: ${JSON.stringify(answer.body)}`);
  }
  return { scenario, instances, users };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

// Every setup runs side by side (idle ones cost nothing) and the measured windows alternate between them,
// round after round, so that a change in the machine's background load hits every setup alike.
const cleanup: (() => Promise<void> | void)[] = [];
const results: Result[] = [];
try {
  const deployments: Deployment[] = [];
  for (const scenario of SCENARIOS) deployments.push(await deploy(scenario, cleanup));
  for (const d of deployments) await measure(d.instances, d.users, 2); // warm-up: JIT, pools, key cache
  for (const d of deployments) results.push({ scenario: d.scenario, rates: [], failures: 0, latencies: [] });
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, d] of deployments.entries()) {
      const { ok, failed, latencies } = await measure(d.instances, d.users, SECONDS);
      results[i]!.rates.push(ok / SECONDS);
      results[i]!.failures += failed;
      results[i]!.latencies.push(...latencies);
    }
  }
} finally {
  for (const step of cleanup) await step();
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
console.log(
  `\nAuthentications (assertion options + result, ES256) per second — ${cpus().length} × ${cpu}, Node ${process.version}`,
);
console.log(
  `${ROUNDS} rounds × ${SECONDS} s per setup, alternating, after a 2 s warm-up; ${CONCURRENCY} concurrent clients, ${Math.max(USERS, CONCURRENCY)} users; load average at the end ${load}\n`,
);
console.log('| Setup | Authentications/s (median) | per round | p50 ms | p95 ms | p99 ms | Failed |');
console.log('| --- | ---: | --- | ---: | ---: | ---: | ---: |');
for (const r of results) {
  const sorted = r.latencies.sort((a, b) => a - b);
  console.log(
    `| ${r.scenario.name} | ${median(r.rates).toFixed(0)} | ${r.rates.map((x) => x.toFixed(0)).join(' / ')} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 95).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${r.failures} |`,
  );
}
console.log(
  `\n${JSON.stringify(results.map((r) => ({ setup: r.scenario.name, perSecond: median(r.rates), rounds: r.rates, failed: r.failures })))}`,
);
