// `serve`: starts the service (and the demo when configured) and runs until SIGINT or SIGTERM, then shuts
// down gracefully: stop accepting, let in-flight requests finish, stop the demo, close the stores.
// SIGHUP reloads the metadata BLOBs (e.g. after `metadata check --blob`) without a restart.

import { startService, type RunningService } from '../main.js';
import { EXIT_FAILURE, UsageError, type CliIo } from './io.js';
import { parseConfigArgs, report } from './common.js';

export async function serveCommand(args: readonly string[], io: CliIo): Promise<number | undefined> {
  const { values, positionals } = parseConfigArgs(args, {
    host: { type: 'string' },
    port: { type: 'string', short: 'p' },
    'no-demo': { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError(`serve takes no argument "${positionals[0]}"`);
  if (values.config === '') throw new UsageError('--config needs a file name');
  // Flags are the strongest overrides: they win over the environment, which wins over the file.
  const env: Record<string, string | undefined> = { ...io.env };
  if (typeof values.host === 'string') {
    if (values.host === '') throw new UsageError('--host needs a value');
    env.PASSKEY_HOST = values.host;
  }
  if (typeof values.port === 'string') {
    if (!/^[0-9]{1,5}$/.test(values.port) || Number(values.port) > 65535) throw new UsageError(`--port must be 0-65535 (0: any free port), got "${values.port}"`);
    env.PASSKEY_PORT = values.port;
  }
  if (values['no-demo'] === true) env.PASSKEY_DEMO_ENABLED = 'false';

  // Signals are handled from the start: one arriving while the service starts stops it once started.
  const starting = startService({
    configFile: typeof values.config === 'string' ? values.config : undefined,
    env,
    cwd: io.cwd,
    stdout: io.stdout,
    stderr: io.stderr,
  });
  const handlers = handleSignals(starting, io);
  try {
    await starting;
  } catch (error) {
    handlers.remove();
    throw error;
  }
  return undefined;
}

function handleSignals(starting: Promise<RunningService>, io: CliIo): { remove(): void } {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      io.stderr.write(`passkey-server: ${signal} again, exiting without waiting\n`);
      process.exit(EXIT_FAILURE);
    }
    stopping = true;
    io.stderr.write(`passkey-server: ${signal} received, shutting down\n`);
    starting.then((running) => running.close()).then(
      () => process.exit(0),
      (error: unknown) => process.exit(report(error, io)),
    );
  };
  // A reload never stops the service: a BLOB that does not verify leaves the previous one in use (logged).
  const reload = () => {
    if (stopping) return;
    io.stderr.write('passkey-server: SIGHUP received, reloading the metadata BLOBs\n');
    starting.then((running) => running.reloadMetadata()).then(
      (result) => io.stderr.write(`passkey-server: metadata reload ${result.ok ? 'done' : 'FAILED (the previous BLOB stays in use; see the log)'}` +
        `${result.changed ? ', a newer BLOB is in use' : ', no BLOB changed'}\n`),
      (error: unknown) => io.stderr.write(`passkey-server: metadata reload failed: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', reload);
  return {
    remove: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.off('SIGHUP', reload);
    },
  };
}
