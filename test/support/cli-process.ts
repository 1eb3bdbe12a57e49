// The one way tests run the compiled CLI as a child process, the way an operator runs it: a command to its
// end (`runCliCommand`, `runNode` for another script), or `serve` until it is stopped (`startServe`), for
// every test that needs a process (the CLI's, the e2e and browser tests, several instances of the scale
// tests). The environment is the machine's minus any PASSKEY_* setting unless a test gives its own; every
// wait is bounded and a process that outlives its bound is killed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The build folder the tests run from (.build/), whose src/cli/bin.js is the service under test. */
export const BUILD = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(BUILD, 'src', 'cli', 'bin.js');
/** Bound on one CLI run, and on a `serve` to start or stop. */
export const LIMIT_MS = 30_000;

/** Environment without any PASSKEY_* of the machine running the tests, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('PASSKEY_') && value !== undefined) env[name] = value;
  return { ...env, ...extra };
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd?: string;
  /** The whole environment of the process. */
  readonly env: Record<string, string>;
  readonly limitMs?: number;
}

/** Runs `node <args>` to its end (killed, and the promise rejected, after the limit). */
export function runNode(args: readonly string[], options: RunOptions): Promise<CliResult> {
  const limit = options.limitMs ?? LIMIT_MS;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], { cwd: options.cwd, env: options.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${limit} ms: ${args.join(' ')}\n${stderr}`));
    }, limit);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `cli/bin.js <args>` to its end, with the machine's environment minus PASSKEY_* plus `env`. */
export function runCliCommand(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; limitMs?: number },
): Promise<CliResult> {
  return runNode([CLI, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    ...(options.limitMs ? { limitMs: options.limitMs } : {}),
  });
}

export interface ServeOptions {
  readonly cwd: string;
  /** Added to the base environment. */
  readonly env?: Record<string, string>;
  /** The environment to add `env` to (default: the machine's minus PASSKEY_*). */
  readonly baseEnv?: Record<string, string>;
  /** A command that execs node, such as taskset with a CPU list. */
  readonly wrapper?: readonly string[];
  /** Also wait for the admin listener's address. */
  readonly admin?: boolean;
  /** Bound on the start (default LIMIT_MS). */
  readonly startWithinMs?: number;
}

export interface ServeProcess {
  readonly child: ChildProcess;
  /** The service's address as `serve` printed it (the port actually bound). */
  readonly url: string;
  readonly port: number;
  /** The admin listener's address (when `admin` was asked for). */
  readonly adminUrl: string | null;
  stdout(): string;
  stderr(): string;
  /** Both streams, for failure messages. */
  output(): string;
  /** Whether the process is still running. */
  running(): boolean;
  /** Sends the signal (if still running) and waits for the exit code, killing it after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

/** Starts `cli/bin.js serve <args>` and resolves once it printed the address it listens on; rejects if it exits first. */
export function startServe(args: readonly string[], options: ServeOptions): Promise<ServeProcess> {
  const limit = options.startWithinMs ?? LIMIT_MS;
  return new Promise((resolve, reject) => {
    const [command, ...wrapperArgs] = [...(options.wrapper ?? []), process.execPath];
    const child = spawn(command!, [...wrapperArgs, CLI, 'serve', ...args], {
      cwd: options.cwd,
      env: { ...(options.baseEnv ?? cleanEnv()), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let started = false;
    const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    const running = () => child.exitCode === null && child.signalCode === null;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start within ${limit} ms:\n${stdout}\n${stderr}`));
    }, limit);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const service = /service listening on (http:\/\/\S+)/.exec(stdout);
      const admin = /admin listening on (http:\/\/\S+)/.exec(stdout);
      if (started || !service || (options.admin && !admin)) return;
      started = true;
      clearTimeout(timer);
      resolve({
        child,
        url: service[1]!,
        port: Number(new URL(service[1]!).port),
        adminUrl: admin?.[1] ?? null,
        stdout: () => stdout,
        stderr: () => stderr,
        output: () => `${stdout}\n${stderr}`,
        running,
        stop: async (signal = 'SIGTERM', graceMs = LIMIT_MS) => {
          if (running()) child.kill(signal);
          const guard = setTimeout(() => child.kill('SIGKILL'), graceMs);
          const code = await exited;
          clearTimeout(guard);
          return code;
        },
      });
    });
    void exited.then((code) => {
      if (started) return;
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening:\n${stdout}\n${stderr}`));
    });
  });
}

// Below Linux's ephemeral range (32768–60999): a port the kernel hands out for `listen(0)` or for an outgoing
// connection can be taken by another test between this check and the service's own listen; one below it can be
// taken only by another caller of this function, which picks at random among 12,000.
const FIXED_PORTS = { from: 20_000, to: 32_000 };

/** A port free on 127.0.0.1 right now (for a config that must name its port before the start). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = FIXED_PORTS.from + Math.floor(Math.random() * (FIXED_PORTS.to - FIXED_PORTS.from));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${FIXED_PORTS.from} and ${FIXED_PORTS.to} after 50 tries`);
}

function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
