// The composition root: load config → secrets → trust (metadata) → stores → operations (application
// store, audit, metrics, rate limits, admin listener) → build the app → listen → (demo) → the periodic
// metadata check. Everything the service uses is created here once and passed down; nothing else reads the
// environment or the disk (except the metadata reload, which reads the configured BLOB and CRL files again).

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import { applyOpsEnv, defaultOpsOptions, metadataCheckIntervalMs, type OpsOptions } from './config/ops-options.js';
import { composeHooks } from './runtime/hooks.js';
import { openOpsStores } from './applications/open.js';
import { startOperations, type Ops } from './compose/operations.js';
import { prepareTrust } from './applications/config-directory.js';
import type { ServiceConfig } from './config.js';
import { ConfigError, loadConfig } from './config/load.js';
import { buildApp } from './http/app.js';
import { createServiceServer } from './http/server.js';
import { createLogger, LOG_LEVELS, type LevelledLogger, type LogLevel } from './util/log.js';
import { metadataFilesOf, stampFilesSync, watchMetadataFiles } from './applications/metadata-watch.js';
import { loadSecrets } from './config/secrets.js';
import type { ServiceDeps, ServiceHooks } from './service.js';
import { openStores } from './stores/open.js';
import type { MetadataReloadReport } from './applications/trust-reload.js';
import { systemRuntime, type Runtime } from './util/runtime.js';

export interface StartOptions {
  /** Config file; without one, the built-in default. */
  readonly configFile?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Where the addresses and the local-variant warning are printed. */
  readonly stdout: Pick<Writable, 'write'>;
  readonly stderr: Pick<Writable, 'write'>;
  readonly runtime?: Runtime;
  /** Instrumentation and admission (metrics, audit, rate limits), when the caller wires them. */
  readonly hooks?: ServiceHooks;
}

export interface RunningService {
  readonly config: ServiceConfig;
  /** The service's base address with the port actually bound, e.g. http://127.0.0.1:8787. */
  readonly url: string;
  readonly demoUrls: readonly string[];
  /** The admin listener's address (health, readiness, metrics, admin API), or null when it is off. */
  readonly adminUrl: string | null;
  /** The demo's development CA certificate (to trust once), or null without the demo. */
  readonly demoCaPath: string | null;
  /**
   * Reads the metadata BLOB of every application that names one again (at the runtime clock's time) and
   * swaps in each that verifies, so the next ceremony uses it; one that does not verify keeps the previous
   * BLOB, is logged as an error and makes the report's `ok` false. Never rejects for a BLOB problem.
   * Also triggered by SIGHUP (`serve`), the periodic file check and POST /admin/metadata/reload.
   */
  reloadMetadata(): Promise<MetadataReloadReport>;
  /** Stops accepting, lets in-flight requests finish (bounded), stops the demo, closes the stores. */
  close(): Promise<void>;
}

/** How long in-flight requests may take to finish when a start fails half-way (normal shutdown: ops.shutdown). */
const SHUTDOWN_GRACE_MS = 10_000;

const WARNING_LINES = [
  'WARNING: the LOCAL variant is ENABLED. It is for development and testing ONLY:',
  'it stores no public keys, cannot track signature counters, and must never serve',
  'real users or production-like data. Switch it off in production with',
  '"local": {"enabled": false} in the config file, or PASSKEY_LOCAL_ENABLED=false.',
];
const WARNING_WIDTH = Math.max(...WARNING_LINES.map((line) => line.length));

export const LOCAL_VARIANT_WARNING = [
  '',
  '*'.repeat(WARNING_WIDTH + 6),
  ...WARNING_LINES.map((line) => `*  ${line.padEnd(WARNING_WIDTH)}  *`),
  '*'.repeat(WARNING_WIDTH + 6),
  '',
].join('\n');

export async function startService(options: StartOptions): Promise<RunningService> {
  const runtime = options.runtime ?? systemRuntime;
  const config = loadConfig({ file: options.configFile, env: options.env, cwd: options.cwd });
  const opsOptions = config.ops ?? opsOptionsWithoutLoader(config, options);
  const metadataCheckMs = metadataCheckInterval(options);
  const log = createLogger({ level: logLevel(options.env), sink: options.stderr, clock: runtime.now, base: { service: 'passkey-server' } });
  const secrets = loadSecrets({ config, env: options.env, randomBytes: runtime.randomBytes, log });
  // Stamped before the BLOBs are read, so that one installed while they load is still seen as a change.
  const metadataBaseline = stampFilesSync(config.applications.flatMap((app) => metadataFilesOf(app.attestation)));
  const trust = prepareTrust(config.applications, new Date(runtime.now()), options.configFile ?? 'built-in defaults', { clock: runtime.now });
  for (const { clientId, info } of trust.metadata) {
    log.info({
      clientId, metadata: info.file, serial: info.serial, nextUpdate: info.nextUpdate, entries: info.entries, revocationChecked: info.revocationChecked,
    }, 'metadata BLOB loaded');
    if (!info.revocationChecked) {
      // Said once, at start: the operator may have chosen this, but should know that a BLOB signed under a
      // revoked certificate would be taken (docs/attestation.md, "Revocation of the BLOB's signing chain").
      log.info({ clientId, metadata: info.file, revocationChecked: false },
        'revocation of the metadata BLOB\'s signing chain is not checked: no attestation.metadataCrls configured (docs/attestation.md)');
    }
    if (info.staleAtLoad) {
      log.warn({ clientId, metadata: info.file, serial: info.serial, nextUpdate: info.nextUpdate },
        'the metadata BLOB is past its nextUpdate: install a newer one (passkey-server metadata check --blob …, docs/attestation.md)');
    }
  }
  const stores = await openStores(config, { clock: runtime.now });
  let ops: Ops | undefined;
  let server: Server | undefined;
  try {
    // Instances sharing one PostgreSQL must share their secrets: the first start records fingerprints, and an
    // instance whose user-handle or local-blob keys differ refuses to start (docs/deployment.md).
    if (config.database.kind === 'postgres') {
      await (await import('./stores/postgres.js')).checkSharedSecrets(config.database.url, secrets);
    }
    const opsStores = await openOpsStores(config, stores.sqliteWriter ? { sqliteWriter: stores.sqliteWriter } : {});
    try {
      ops = await startOperations({
        config, options: opsOptions, credentials: stores.credentials, challenges: stores.challenges, secrets, runtime, log,
        buildTrust: trust.buildTrust,
        trust,
        applicationStore: opsStores.applications,
        auditStore: opsStores.audit,
        closeStores: () => stores.close(),
        ...(stores.sqliteWriter ? { sqliteWriter: stores.sqliteWriter } : {}),
      });
    } catch (error) {
      await opsStores.close().catch(() => undefined);
      throw adminStartError(error, opsOptions);
    }
    const deps: ServiceDeps = {
      config, applications: ops.applications, credentials: ops.credentials, challenges: ops.challenges, secrets, runtime, log,
      hooks: options.hooks ? composeHooks(ops.hooks, options.hooks) : ops.hooks,
    };
    const app = buildApp(deps);
    server = createServiceServer(app);
    const address = await listen(server, config.listen.host, config.listen.port);
    const url = `http://${hostForUrl(address.address)}:${address.port}`;
    options.stdout.write(`passkey-server: service listening on ${url}\n`);
    const adminUrl = ops.admin?.url ?? null;
    if (adminUrl !== null) options.stdout.write(`passkey-server: admin listening on ${adminUrl}\n`);
    log.info({
      url, adminUrl, database: config.database.kind, challenges: config.challenges.kind, applications: config.applications.length,
      rateLimitStore: opsOptions.rateLimits.store === 'memory' ? 'memory' : 'redis', metadataCheckMs,
      // auto resolves by the cores this process may use (docs/storage.md): say what it chose.
      sqliteWriter: stores.sqliteWriter?.mode ?? null,
    }, 'service started');
    if (config.local.enabled) {
      options.stderr.write(`${LOCAL_VARIANT_WARNING}\n`);
      log.warn({}, 'the local variant is enabled: development only');
    }
    const demo = config.demo.enabled ? await startDemoFor(config, address, log) : undefined;
    for (const demoUrl of demo?.urls ?? []) options.stdout.write(`passkey-server: demo page at ${demoUrl}\n`);
    if (demo) options.stdout.write(`passkey-server: demo CA certificate at ${demo.caPath} (trust it once: docs/demo.md)\n`);
    const running = ops;
    const serviceServer = server;
    const metadataWatch = watchMetadataFiles({
      files: () => running.metadataFiles(), intervalMs: metadataCheckMs, baseline: metadataBaseline, log,
      onChange: () => running.reloadMetadata(),
    });
    return {
      config,
      url,
      demoUrls: demo?.urls ?? [],
      adminUrl,
      demoCaPath: demo?.caPath ?? null,
      reloadMetadata: () => running.reloadMetadata(),
      close: once(async () => {
        log.info({}, 'shutting down');
        metadataWatch.stop();
        // Readiness drains, the service and admin listeners finish what is in flight, then every store
        // closes once (the credential and challenge stores through openStores' own close).
        await running.shutdown([serviceServer]);
        await demo?.close().catch((error: unknown) => log.error({ error }, 'demo did not close cleanly'));
        log.info({}, 'stopped');
      }),
    };
  } catch (error) {
    if (server?.listening) await closeServer(server).catch(() => undefined);
    // ops.shutdown closes every store (ours through closeStores); without ops, close ours here.
    if (ops) await ops.shutdown([]).catch(() => undefined);
    else await stores.close().catch(() => undefined);
    throw error;
  }
}

/** A configuration built without the loader (no `ops`): the defaults with the environment applied. */
function opsOptionsWithoutLoader(config: ServiceConfig, options: StartOptions): OpsOptions {
  const problems: string[] = [];
  const ops = applyOpsEnv(defaultOpsOptions(config.dataDir), options.env, options.cwd, problems);
  if (problems.length > 0) throw new ConfigError(problems, options.configFile ?? 'built-in defaults');
  return ops;
}

/** PASSKEY_METADATA_CHECK_INTERVAL_MS (a bad value stops the start like every configuration problem). */
function metadataCheckInterval(options: StartOptions): number {
  const problems: string[] = [];
  const interval = metadataCheckIntervalMs(options.env, problems);
  if (problems.length > 0) throw new ConfigError(problems, options.configFile ?? 'built-in defaults');
  return interval;
}

/** The admin listener could not start (its port taken, its host wrong): say which setting to change. */
function adminStartError(error: unknown, ops: OpsOptions): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EADDRNOTAVAIL' && code !== 'EACCES' && code !== 'ENOTFOUND') return error;
  const hint = code === 'EADDRINUSE' ? ' (in use: choose another with admin.port or PASSKEY_ADMIN_PORT, or switch it off with PASSKEY_ADMIN_ENABLED=false)' : '';
  return new Error(`the admin listener cannot listen on ${ops.admin.host}:${ops.admin.port}: ${code}${hint}`, { cause: error });
}

function logLevel(env: Readonly<Record<string, string | undefined>>): LogLevel {
  const wanted = env.PASSKEY_LOG_LEVEL?.trim().toLowerCase();
  return wanted !== undefined && (LOG_LEVELS as string[]).includes(wanted) ? (wanted as LogLevel) : 'info';
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const hint = error.code === 'EADDRINUSE' ? ' (in use: choose another with --port or PASSKEY_PORT)' : '';
      reject(new Error(`cannot listen on ${host}:${port}: ${error.code ?? error.message}${hint}`, { cause: error }));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server.address() as AddressInfo);
    });
  });
}

function hostForUrl(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
  });
  await Promise.race([closed, grace]);
  clearTimeout(timer);
  await closed;
}

interface DemoHandle {
  readonly urls: string[];
  readonly caPath: string;
  close(): Promise<void>;
}

/**
 * Starts the demo page for the first application; it talks to this service through the relay. A wildcard
 * listen address is reached over loopback.
 */
async function startDemoFor(config: ServiceConfig, address: AddressInfo, log: LevelledLogger): Promise<DemoHandle> {
  const application = config.applications[0]!;
  const loopback = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  const { startDemo } = await import('./demo/server.js');
  try {
    return await startDemo({
      serviceUrl: `http://${hostForUrl(loopback)}:${address.port}`,
      clientId: application.clientId,
      vendor: config.vendor,
      host: config.demo.host,
      port: config.demo.port,
      dataDir: config.dataDir,
      standardDomain: application.domain,
      devHostnames: config.demo.devHostnames ?? [],
      log,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the demo page could not start on ${config.demo.host}:${config.demo.port}: ${reason} ` +
      '(choose another port with PASSKEY_DEMO_PORT, or switch the demo off with PASSKEY_DEMO_ENABLED=false)', { cause: error });
  }
}

function once(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= work());
}
