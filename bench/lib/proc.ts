// Reading a process's CPU time and memory from /proc, pinning processes to cores, and starting the
// servers under test as child processes. Linux only (the bench says so when /proc is missing).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

const TICKS_PER_SECOND = 100; // USER_HZ; Linux reports utime/stime in these on every architecture.

/** User + system CPU seconds the process has used so far (all its threads: JS, GC, libuv pool, SQLite). */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuSplit(pid);
  return user + system;
}

/** User and system (kernel: syscalls, fsync, network) CPU seconds so far, and the minor page faults. */
export function cpuSplit(pid: number): { user: number; system: number; faults: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; the fields after its closing ")" are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    user: Number(fields[11]) / TICKS_PER_SECOND,
    system: Number(fields[12]) / TICKS_PER_SECOND,
    faults: Number(fields[7]),
  };
}

/** Resident set now and its high-water mark, in MiB. */
export function memory(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
}

export const hasProc = existsSync('/proc/self/stat');
export const coreCount = cpus().length;
const canPin = coreCount >= 2 && spawnSync('taskset', ['-V']).status === 0;

/** The core the servers run on and the one the generator runs on (when the machine has two or more). */
export const SERVER_CORE = 0;
export const GENERATOR_CORE = 1;

/** Pins this process (the generator) to its core; returns whether pinning happened. */
export function pinSelf(): boolean {
  if (!canPin) return false;
  return spawnSync('taskset', ['-a', '-pc', String(GENERATOR_CORE), String(process.pid)]).status === 0;
}

export interface Child {
  readonly process: ChildProcess;
  readonly pid: number;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node <args>` pinned to the server core; `taskset` execs node, so the pid is node's own. */
export function startNode(args: readonly string[], env: Record<string, string>, cwd: string): Child {
  const command = canPin ? 'taskset' : process.execPath;
  const argv = canPin ? ['-c', String(SERVER_CORE), process.execPath, ...args] : [...args];
  const child = spawn(command, argv, {
    cwd,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  return {
    process: child,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export const pinned = canPin;
