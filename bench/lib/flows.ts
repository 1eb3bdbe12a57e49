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

/**
 * The users the authentications sign in as, one credential each, registered before any measurement:
 * by default one per flow, or `count` of them (at least one per flow) so that a user signs in again only
 * after `count` - 1 others did, as on a service with many users (nothing a user's last sign-in left in a
 * cache is still there).
 */
export async function flowUsers(server: Running, flows: number, count = flows): Promise<FlowUser[]> {
  const total = Math.max(flows, count);
  const agent = makeAgent(flows);
  try {
    const users: FlowUser[] = new Array(total);
    await runEach(flows, total, async (i) => {
      const username = freshUsername(`flow${i}`);
      users[i] = { username, credential: await register(agent, server, username, keys[i % keys.length]!, 'none') };
    });
    return users;
  } finally {
    agent.destroy();
  }
}

/** `work(0)` to `work(total - 1)`, at most `flows` at once. */
async function runEach(flows: number, total: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const flow = async () => {
    while (next < total) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(flows, total) }, flow));
}

/**
 * Authentications for `seconds` at `flows` concurrent ceremonies (default: one per user); flow f signs in
 * as users f, f + flows, f + 2 × flows, … in turn.
 */
export function authLoad(
  server: Running,
  users: readonly FlowUser[],
  seconds: number,
  flows = users.length,
): () => Promise<LoadResult> {
  const turns = new Array<number>(flows).fill(0);
  return async () => {
    const agent = makeAgent(flows);
    try {
      return await runLoad(flows, seconds, (f, latencies) => {
        const mine = Math.ceil((users.length - f) / flows);
        const turn = turns[f]!;
        turns[f] = turn + 1;
        const user = users[f + flows * (turn % mine)]!;
        return authenticate(agent, server, user, latencies);
      });
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
