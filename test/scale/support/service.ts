// Starts the real service as a child process (`src/cli/bin.js serve --config <file>`, from the same build as
// the test, through test/support/cli-process.ts), as an operator would, so that several instances, kill -9
// and restarts are real. Every wait is bounded; `kill()` kills whatever is still running.

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILD, CLI, freePort, runNode, startServe, type ServeProcess } from '../../support/cli-process.js';

export const CLIENT_ID = 'scale-client';
export const DOMAIN = 'scale.example.test';
export const ORIGIN = `https://${DOMAIN}`;
export const VENDOR = 'Vendor';

/** Secrets every instance of one deployment shares (what an operator puts in each instance's environment). */
export function sharedSecretsEnv(): Record<string, string> {
  return {
    PASSKEY_USER_HANDLE_KEY: randomBytes(32).toString('base64'),
    PASSKEY_LOCAL_BLOB_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  };
}

/** A working folder for config files and SQLite data; removed by `remove()`. */
export function workDir(label: string): { readonly path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `passkey-${label}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface InstanceSettings {
  readonly dir: string;
  /** `sqlite:<path>` or a postgres:// URL. */
  readonly database: string;
  /** `memory`, `database` or a redis:// URL. */
  readonly challenges: string;
  readonly env?: Record<string, string>;
  readonly port?: number;
  readonly name?: string;
  /** More top-level keys of the config file (e.g. `rateLimits` for a benchmark). */
  readonly extraConfig?: Record<string, unknown>;
  /** Start the admin listener too, on a free port (its tokens file in the data folder). */
  readonly admin?: boolean;
}

export interface Instance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** The admin listener's address when `admin` was asked for, else null. */
  readonly adminUrl: string | null;
  readonly process: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Whether the process is still running. */
  running(): boolean;
  /** Sends a signal and waits (bounded) for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * The environment of every instance: nothing from the test's own, and no admin listener (its default port
 * is fixed, so several instances on one machine would collide; these tests do not use it).
 */
function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', NODE_ENV: 'production', PASSKEY_ADMIN_ENABLED: 'false' };
}

/** Whether the build under test reads the operations keys (rateLimits, admin, …) of the config file. */
export function supportsOpsConfig(): boolean {
  return existsSync(join(BUILD, 'src', 'config', 'ops.js'));
}

function writeConfig(settings: InstanceSettings, port: number, name: string): string {
  const file = join(settings.dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        listen: { host: '127.0.0.1', port },
        database: settings.database,
        challenges: settings.challenges,
        local: { enabled: false },
        demo: { enabled: false },
        dataDir: join(settings.dir, 'data'),
        ...(settings.admin ? { admin: { port: 0 } } : {}),
        applications: [
          {
            clientId: CLIENT_ID,
            name: 'Scale test',
            domain: DOMAIN,
            origins: [ORIGIN],
            variants: ['standard'],
          },
        ],
        ...settings.extraConfig,
      },
      null,
      2,
    ),
  );
  return file;
}

/** Starts one instance and resolves once it listens (test/support/cli-process.ts); rejects (with its output) if it exits first. */
export async function startInstance(settings: InstanceSettings, readyWithinMs = 20_000): Promise<Instance> {
  const port = settings.port ?? (await freePort());
  const name = settings.name ?? `instance-${port}`;
  const config = writeConfig(settings, port, name);
  let served: ServeProcess;
  try {
    served = await startServe(['--config', config], {
      cwd: settings.dir,
      baseEnv: baseEnv(),
      env: { ...settings.env, ...(settings.admin ? { PASSKEY_ADMIN_ENABLED: 'true' } : {}) },
      admin: settings.admin === true,
      startWithinMs: readyWithinMs,
    });
  } catch (error) {
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return {
    name,
    port,
    url: served.url,
    adminUrl: served.adminUrl,
    process: served.child,
    output: () => served.output(),
    running: () => served.running(),
    async kill(signal = 'SIGTERM') {
      if (served.running()) await served.stop(signal, 10_000);
    },
  };
}

/** Runs the CLI once (e.g. `migrate`, or a `serve` expected to refuse) and returns its exit and output. */
export async function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<{ code: number | null; output: string }> {
  const { code, stdout, stderr } = await runNode([CLI, ...args], {
    cwd: options.cwd,
    env: { ...baseEnv(), ...options.env },
    limitMs: options.timeoutMs ?? 20_000,
  });
  return { code, output: stdout + stderr };
}

/** Writes the config an instance would get and returns its path (for `runCli`). */
export function configFile(settings: InstanceSettings, name: string): string {
  return writeConfig(settings, settings.port ?? 0, name);
}
