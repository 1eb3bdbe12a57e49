// What a command may touch: its output streams, the environment and the working directory (injected so
// the commands stay testable and nothing reads process.* behind their back).
import type { Writable } from 'node:stream';
import { processEnvironment } from '../config/env.js';

export interface CliIo {
  readonly stdout: Pick<Writable, 'write'>;
  readonly stderr: Pick<Writable, 'write'>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** The process's own streams, environment (read by config/) and working directory. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: processEnvironment(), cwd: process.cwd() };
}

/** A mistake in how the command was called: printed with the usage hint, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
