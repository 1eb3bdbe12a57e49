// Runs the compiled CLI as a child process, the way an operator runs it, for the tests of `serve` and the
// other commands: with the machine's environment minus any PASSKEY_* setting, bounded in time.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli.js');
/** Bound on one CLI run, and on a `serve` to start or stop. */
export const LIMIT_MS = 30_000;

/** Environment without any PASSKEY_* of the machine running the tests, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('PASSKEY_') && value !== undefined) env[name] = value;
  return { ...env, ...extra };
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `cli.js <args>` to its end (killed, and the promise rejected, after LIMIT_MS). */
export function runCliCommand(args: readonly string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: cleanEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`timed out: ${args.join(' ')}\n${stderr}`)); }, LIMIT_MS);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}
