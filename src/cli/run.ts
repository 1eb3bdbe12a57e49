// Dispatches the command line. Each command answers an exit code: 0 done, 1 failed (a clear message on
// stderr), 2 called wrongly (with the usage). `serve` answers undefined: it runs until a signal.

import { resolve } from 'node:path';
import { runAdminCli } from '../admin/cli.js';
import { adminCliDeps } from '../compose/admin-cli.js';
import { configuredTrust, migrateConfiguredDatabase } from '../compose/commands.js';
import { defaultOpsOptions } from '../config/ops.js';
import type { ServiceConfig } from '../service-config.js';
import { loadConfig, redactUrl } from '../config/load.js';
import { initSecretsFile, LOCAL_BLOB_KEYS_ENV, rotateLocalBlobKey } from '../secrets/load.js';
import { systemRuntime } from '../util/runtime.js';
import { EXIT_OK, UsageError, type CliIo } from './io.js';
import { parseConfigArgs, report } from './common.js';
import { runMetadataCheck } from './metadata.js';
import { serveCommand } from './serve.js';
import { USAGE } from './usage.js';

type Command = (args: readonly string[], io: CliIo) => Promise<number | undefined>;

const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  'check-config': checkConfig,
  migrate,
  'local-keys': localKeys,
  secrets,
  apps,
  metadata,
  admin,
  help: async (_args, io) => {
    io.stdout.write(USAGE);
    return EXIT_OK;
  },
};

export async function runCli(argv: readonly string[], io: CliIo): Promise<number | undefined> {
  const [first, ...rest] = argv;
  // `passkey-server --config f` is `serve --config f`; `--help` and `--version` work anywhere first.
  if (first === '--help' || first === '-h') return COMMANDS.help!([], io);
  const name = first === undefined || first.startsWith('-') ? 'serve' : first;
  const args = first === undefined || first.startsWith('-') ? argv : rest;
  const command = COMMANDS[name];
  try {
    if (command === undefined) throw new UsageError(`unknown command "${name}"`);
    return await command(args, io);
  } catch (error) {
    return report(error, io);
  }
}

function configFrom(values: Record<string, string | boolean | undefined>, io: CliIo): ServiceConfig {
  const file = values.config;
  if (file === '') throw new UsageError('--config needs a file name');
  return loadConfig({ file: typeof file === 'string' ? file : undefined, env: io.env, cwd: io.cwd });
}

function noPositionals(positionals: readonly string[], command: string): void {
  if (positionals.length > 0) throw new UsageError(`${command} takes no argument "${positionals[0]}"`);
}

async function checkConfig(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseConfigArgs(args);
  noPositionals(positionals, 'check-config');
  const config = configFrom(values, io);
  // The metadata BLOBs are verified as `serve` would at start (a BLOB that does not verify is a problem).
  const source = typeof values.config === 'string' ? values.config : 'built-in defaults';
  const trust = configuredTrust(config, source, new Date(systemRuntime.now()));
  const metadata = trust.metadata.map(
    ({ clientId, info }) =>
      `  metadata:     ${clientId}: BLOB no ${info.serial}, next update ${info.nextUpdate}${info.staleAtLoad ? ' (STALE: install a newer one)' : ''}`,
  );
  const database =
    config.database.kind === 'sqlite' ? `sqlite:${config.database.path}` : redactUrl(config.database.url);
  const challenges = config.challenges.kind === 'redis' ? redactUrl(config.challenges.url) : config.challenges.kind;
  const ops = config.ops ?? defaultOpsOptions(config.dataDir);
  const admin = ops.admin.enabled
    ? `${ops.admin.host}:${ops.admin.port}${ops.admin.port === 0 ? ' (any free port)' : ''}`
    : 'disabled';
  const rule = (r: { burst: number; perSecond: number } | null) =>
    r === null ? 'none' : `${r.burst} burst, ${r.perSecond}/s`;
  const rateLimits =
    `${ops.rateLimits.store === 'memory' ? 'memory' : redactUrl(ops.rateLimits.store)}; ` +
    `per application ${rule(ops.rateLimits.perApplication)}, per address ${rule(ops.rateLimits.perAddress)}`;
  io.stdout.write(
    [
      `configuration OK (${typeof values.config === 'string' ? values.config : 'built-in defaults'})`,
      `  listen:       ${config.listen.host}:${config.listen.port}`,
      `  database:     ${database}`,
      `  challenges:   ${challenges}`,
      `  local:        ${config.local.enabled ? 'enabled (development only)' : 'disabled'}`,
      `  demo:         ${config.demo.enabled ? `${config.demo.host}:${config.demo.port}` : 'disabled'}`,
      `  admin:        ${admin}`,
      `  rate limits:  ${rateLimits}`,
      `  answer floor: ${config.answerFloorMs === 0 ? 'off' : `${config.answerFloorMs} ms`}`,
      `  secrets file: ${config.secretsFile}`,
      `  applications: ${config.applications.map((a) => a.clientId).join(', ') || '(none)'}`,
      ...metadata,
      ...relaySecretLines(config),
      '',
    ].join('\n'),
  );
  return EXIT_OK;
}

async function migrate(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseConfigArgs(args);
  noPositionals(positionals, 'migrate');
  const config = configFrom(values, io);
  const report = await migrateConfiguredDatabase(config);
  const where = config.database.kind === 'sqlite' ? config.database.path : redactUrl(config.database.url);
  if (report.applied.length === 0) {
    io.stdout.write(`database ${where} is up to date (schema version ${report.to})\n`);
  } else {
    const list = report.applied.map((m) => `${m.version} ${m.name}`).join(', ');
    io.stdout.write(`database ${where}: schema version ${report.from} → ${report.to} (applied: ${list})\n`);
  }
  return EXIT_OK;
}

async function localKeys(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseConfigArgs(args);
  if (positionals[0] !== 'rotate' || positionals.length > 1)
    throw new UsageError('usage: local-keys rotate [--config <file>]');
  const config = configFrom(values, io);
  const id = rotateLocalBlobKey(config.secretsFile, systemRuntime.randomBytes);
  io.stdout.write(
    `added local-blob key ${id} to ${config.secretsFile}; it seals new blobs from the next start, older keys still open theirs\n`,
  );
  if (io.env[LOCAL_BLOB_KEYS_ENV]) {
    io.stderr.write(`passkey-server: note: ${LOCAL_BLOB_KEYS_ENV} is set and overrides the file's local-blob keys\n`);
  }
  return EXIT_OK;
}

async function secrets(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseConfigArgs(args, { file: { type: 'string' } });
  if (positionals[0] !== 'init' || positionals.length > 1)
    throw new UsageError('usage: secrets init [--config <file>] [--file <path>]');
  if (values.file === '') throw new UsageError('--file needs a path');
  const file = typeof values.file === 'string' ? resolve(io.cwd, values.file) : configFrom(values, io).secretsFile;
  initSecretsFile(file, systemRuntime.randomBytes);
  io.stdout.write(`created the secrets file ${file} (mode 0600); give every instance the same file, keep a backup\n`);
  return EXIT_OK;
}

async function apps(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseConfigArgs(args, { json: { type: 'boolean' } });
  if (positionals[0] !== 'list' || positionals.length > 1)
    throw new UsageError('usage: apps list [--config <file>] [--json]');
  const config = configFrom(values, io);
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(config.applications, null, 2)}\n`);
    return EXIT_OK;
  }
  if (config.applications.length === 0) io.stdout.write('no applications configured\n');
  for (const app of config.applications) {
    io.stdout.write(
      [
        `${app.clientId}  ${app.name}`,
        `  domain:        ${app.domain}`,
        `  variants:      ${app.variants.join(', ')}`,
        `  origins:       ${app.origins.join(', ') || '(none)'}`,
        `  local origins: ${app.localOrigins.join(', ') || '(none)'}`,
        `  attestation:   ${app.attestation.requireTrusted ? 'trusted required' : 'any accepted'}, ${app.attestation.trustAnchors.length} anchor file(s)` +
          `${app.attestation.metadata ? ', metadata BLOB' : ''}`,
        '',
      ].join('\n'),
    );
  }
  return EXIT_OK;
}

/** `metadata check …`: the attestation module's command (src/cli/metadata.ts), with this CLI's streams and environment. */
async function metadata(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'check')
    throw new UsageError('usage: metadata check [--config <file>] [--blob <new.jwt>] [--app <clientId>] [--json]');
  return runMetadataCheck(rest, io);
}

/** `admin …`: the admin command line (src/admin/cli.ts), on the configuration's stores. */
async function admin(args: readonly string[], io: CliIo): Promise<number> {
  return runAdminCli(args, io, adminCliDeps({ env: io.env, cwd: io.cwd }));
}

/** Each application's relay secrets, and a warning for each that asks for none (the demo's gets the demo's). */
function relaySecretLines(config: ServiceConfig): string[] {
  const served = config.demo.enabled ? config.applications[0]?.clientId : undefined;
  return config.applications.map((app) => {
    const count = (app.relaySecrets ?? []).length;
    if (count > 0)
      return `  relay secrets: ${app.clientId}: ${count}${app.clientId === served ? " (+ the demo's)" : ''}`;
    if (app.clientId === served)
      return `  relay secrets: ${app.clientId}: the demo's own (made at first start in the data folder)`;
    // check-config reads the file only: a secret created through the admin API lives in the database.
    return `  WARNING:      ${app.clientId} has no relay secrets in this file: unless the admin API gave it one, anyone who knows its Client ID can call its operations (applications[].relaySecrets, or npx passkey-server admin relay-secret create)`;
  });
}
