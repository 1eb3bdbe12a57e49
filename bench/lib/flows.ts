// The measured workloads of the HTTP sections, shared by run.ts and pair.ts: one registered credential per
// flow, then authentications (or new registrations) at `flows` concurrent ceremonies, with the server's
// CPU read from /proc around each run.

import { keyPool } from './authenticator.js';
import { makeAgent } from './client.js';
import { authenticate, freshUsername, register, runLoad, type FlowUser, type LoadResult } from './load.js';
import { cpuSplit } from './proc.js';
import type { Running } from './servers.js';

export interface Totals {
  ops: number;
  failed: number;
  seconds: number;
  serverCpu: number;
  /** The kernel part of serverCpu (syscalls, socket I/O, fsync). */
  serverSys: number;
  /** Minor page faults of the server (memory it touched for the first time, or again after giving it back). */
  serverFaults: number;
  generatorCpu: number;
  firstError: string | null;
  runs: LoadResult[];
}

export const emptyTotals = (): Totals => ({
  ops: 0,
  failed: 0,
  seconds: 0,
  serverCpu: 0,
  serverSys: 0,
  serverFaults: 0,
  generatorCpu: 0,
  firstError: null,
  runs: [],
});

/** Runs `load` and adds its operations and the server's CPU seconds over it to `totals`. */
export async function measured(server: Running, totals: Totals, load: () => Promise<LoadResult>): Promise<void> {
  const cpu0 = cpuSplit(server.child.pid);
  const result = await load();
  const cpu1 = cpuSplit(server.child.pid);
  const cpu = cpu1.user + cpu1.system - cpu0.user - cpu0.system;
  totals.serverSys += cpu1.system - cpu0.system;
  totals.serverFaults += cpu1.faults - cpu0.faults;
  totals.ops += result.completed;
  totals.failed += result.failed;
  totals.seconds += result.seconds;
  totals.serverCpu += cpu;
  totals.generatorCpu += result.generatorCpuSeconds;
  totals.firstError ??= result.firstError;
  totals.runs.push(result);
}

const keys = keyPool(16);

/** The key pool's first COSE key (what the 1 M seeded credentials carry). */
export const firstKeyCose = (): Buffer => keys[0]!.cose;

/** One credential per flow, registered before any measurement. */
export async function flowUsers(server: Running, flows: number): Promise<FlowUser[]> {
  const agent = makeAgent(flows);
  try {
    const users: FlowUser[] = [];
    for (let i = 0; i < flows; i++) {
      const username = freshUsername(`flow${i}`);
      users.push({ username, credential: await register(agent, server, username, keys[i % keys.length]!, 'none') });
    }
    return users;
  } finally {
    agent.destroy();
  }
}

/** Authentications by every flow's own credential, for `seconds`. */
export function authLoad(server: Running, users: readonly FlowUser[], seconds: number): () => Promise<LoadResult> {
  return async () => {
    const agent = makeAgent(users.length);
    try {
      return await runLoad(users.length, seconds, (i, latencies) => authenticate(agent, server, users[i]!, latencies));
    } finally {
      agent.destroy();
    }
  };
}

/** `none` registrations of new users at `flows` concurrent ceremonies, for `seconds`. */
export function regLoad(server: Running, flows: number, seconds: number): () => Promise<LoadResult> {
  return async () => {
    const agent = makeAgent(flows);
    let n = 0;
    try {
      return await runLoad(flows, seconds, async (i, latencies) => {
        await register(agent, server, freshUsername(`reg${i}`), keys[n++ % keys.length]!, 'none', latencies);
      });
    } finally {
      agent.destroy();
    }
  };
}

/** Latency percentiles of one endpoint over every run in `totals` (the samples merged), in ms. */
export function latencyOf(totals: Totals, path: string): { p50: number; p95: number; p99: number } {
  const all: number[] = [];
  for (const run of totals.runs) all.push(...run.latencies.samples(path));
  all.sort((a, b) => a - b);
  const at = (q: number) =>
    all.length === 0 ? NaN : all[Math.min(all.length - 1, Math.floor((q / 100) * all.length))]!;
  return { p50: at(50), p95: at(95), p99: at(99) };
}
