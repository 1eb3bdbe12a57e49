// Shared by the commands: option parsing and the one way failures are printed.
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/load.js';
import { SecretsError } from '../secrets/load.js';
import { logLevelOf } from '../config/env.js';
import { EXIT_FAILURE, EXIT_USAGE, UsageError, type CliIo } from './io.js';
import { USAGE } from './usage.js';

/** Prints what went wrong, never a stack trace for the expected failures. */
export function report(error: unknown, io: CliIo): number {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
    io.stderr.write(`passkey-server: ${(error as Error).message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (error instanceof ConfigError || error instanceof SecretsError) {
    io.stderr.write(`passkey-server: ${error.message}\n`);
    return EXIT_FAILURE;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`passkey-server: ${message}\n`);
  // An unexpected failure (a bug, not bad input): the stack helps whoever reports it.
  if (error instanceof Error && error.stack && logLevelOf(io.env) === 'debug') io.stderr.write(`${error.stack}\n`);
  return EXIT_FAILURE;
}

/** The options every configuration-reading command takes. */
export function parseConfigArgs(
  args: readonly string[],
  extra: Record<string, { type: 'string' | 'boolean'; short?: string }> = {},
) {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { config: { type: 'string', short: 'c' }, ...extra },
    strict: true,
    allowPositionals: true,
  });
  return { values: values as Record<string, string | boolean | undefined>, positionals };
}
