// `serve`: its flags, then the service (src/main.ts), which runs until SIGINT or SIGTERM and then shuts
// down gracefully; SIGHUP reloads the metadata BLOBs (e.g. after `metadata check --blob`) without a restart.

import { serveUntilSignalled } from '../main.js';
import { PORT_MAX } from '../config/env.js';
import { UsageError, type CliIo } from './io.js';
import { parseConfigArgs, report } from './common.js';
import { endOfLifeWarning } from '../util/node-support.js';

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
    if (!/^[0-9]{1,5}$/.test(values.port) || Number(values.port) > PORT_MAX)
      throw new UsageError(`--port must be 0-${PORT_MAX} (0: any free port), got "${values.port}"`);
    env.PASSKEY_PORT = values.port;
  }
  if (values['no-demo'] === true) env.PASSKEY_DEMO_ENABLED = 'false';
  // A runtime past its end of life still starts, with one line that says so.
  const outdated = endOfLifeWarning(process.version, Date.now());
  if (outdated !== null) io.stderr.write(`${outdated}\n`);

  return serveUntilSignalled(
    {
      configFile: typeof values.config === 'string' ? values.config : undefined,
      env,
      cwd: io.cwd,
      stdout: io.stdout,
      stderr: io.stderr,
    },
    { exit: (code) => process.exit(code), report: (error) => report(error, io) },
  );
}
