// The service's process: builds the object graph (src/compose/service.ts), listens, starts the demo page
// and the periodic metadata check, and handles the signals (SIGINT/SIGTERM stop gracefully, SIGHUP reloads
// the metadata BLOBs). It reads nothing from outside itself: config/ does, for the composition step.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import type { MetadataReloadReport } from './applications/trust-reload.js';
import { composeService, type ComposeOptions } from './compose/service.js';
import type { ServiceConfig } from './service-config.js';
import type { LevelledLogger } from './util/log.js';

export interface StartOptions extends ComposeOptions {
  /** Where the addresses and the local-variant warning are printed. */
  readonly stdout: Pick<Writable, 'write'>;
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
/** A second signal while stopping (cli/io.ts's EXIT_FAILURE). */
const EXIT_FAILURE = 1;

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
  const composed = await composeService(options);
  const { config, log, server } = composed;
  try {
    // The floor's timer thread starts, and boots, before the service listens, rather than with the first
    // floored answer, which would wait for its boot (tens of ms). Idle, it does not keep the process alive.
    if (config.answerFloorMs > 0)
      await composed.runtime.prepareTimers?.((stop) => log.warn({ code: stop.code }, stop.message));
    const address = await listen(server, config.listen.host, config.listen.port);
    const url = `http://${hostForUrl(address.address)}:${address.port}`;
    options.stdout.write(`passkey-server: service listening on ${url}\n`);
    const { adminUrl } = composed;
    if (adminUrl !== null) options.stdout.write(`passkey-server: admin listening on ${adminUrl}\n`);
    const { ops, metadataCheckMs } = composed.settings;
    log.info(
      {
        url,
        adminUrl,
        database: config.database.kind,
        challenges: config.challenges.kind,
        applications: config.applications.length,
        rateLimitStore: ops.rateLimits.store === 'memory' ? 'memory' : 'redis',
        metadataCheckMs,
        // auto resolves by the cores this process may use (docs/storage.md): say what it chose.
        sqliteWriter: composed.sqliteWriter,
      },
      'service started',
    );
    if (config.local.enabled) {
      options.stderr.write(`${LOCAL_VARIANT_WARNING}\n`);
      log.warn({}, 'the local variant is enabled: development only');
    }
    const demo = config.demo.enabled ? await startDemoFor(config, address, log, composed.demoRelaySecret) : undefined;
    for (const demoUrl of demo?.urls ?? []) options.stdout.write(`passkey-server: demo page at ${demoUrl}\n`);
    if (demo)
      options.stdout.write(`passkey-server: demo CA certificate at ${demo.caPath} (trust it once: docs/demo.md)\n`);
    const metadataWatch = composed.watchMetadata();
    return {
      config,
      url,
      demoUrls: demo?.urls ?? [],
      adminUrl,
      demoCaPath: demo?.caPath ?? null,
      reloadMetadata: () => composed.reloadMetadata(),
      close: once(async () => {
        log.info({}, 'shutting down');
        metadataWatch.stop();
        // Readiness drains, the service and admin listeners finish what is in flight, then every store
        // closes once (the credential and challenge stores through openStores' own close).
        await composed.shutdown([server]);
        await demo?.close().catch((error: unknown) => log.error({ error }, 'demo did not close cleanly'));
        log.info({}, 'stopped');
      }),
    };
  } catch (error) {
    if (server.listening) await closeServer(server).catch(() => undefined);
    // The shutdown closes every store and the admin listener.
    await composed.shutdown([]).catch(() => undefined);
    throw error;
  }
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
async function startDemoFor(
  config: ServiceConfig,
  address: AddressInfo,
  log: LevelledLogger,
  relaySecret: string | null,
): Promise<DemoHandle | undefined> {
  const application = config.applications[0]!;
  const loopback = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  // A workspace package of the repository (packages/demo), not a dependency of the service: present in a
  // clone (`npm start`), absent where the service was installed from its tarball.
  let startDemo: typeof import('@passkey-server/demo').startDemo;
  try {
    ({ startDemo } = await import('@passkey-server/demo'));
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    log.warn({}, 'demo: @passkey-server/demo is not installed (it ships with the repository only); no demo page');
    return undefined;
  }
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
      ...(relaySecret === null ? {} : { relaySecret }),
      log,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the demo page could not start on ${config.demo.host}:${config.demo.port}: ${reason} ` +
        '(choose another port with PASSKEY_DEMO_PORT, or switch the demo off with PASSKEY_DEMO_ENABLED=false)',
      { cause: error },
    );
  }
}

function once(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= work());
}

/** How the process ends once `serve` stops; injected so that the handlers stay testable. */
export interface ProcessExit {
  exit(code: number): void;
  /** Prints a failure and answers the exit code for it. */
  report(error: unknown): number;
}

/**
 * `serve`: starts the service and runs until SIGINT or SIGTERM, then shuts down gracefully (stop accepting,
 * let in-flight requests finish, stop the demo, close the stores); a second signal exits without waiting.
 * SIGHUP reloads the metadata BLOBs. Resolves once started (undefined: the process keeps running).
 */
export async function serveUntilSignalled(options: StartOptions, end: ProcessExit): Promise<undefined> {
  // Signals are handled from the start: one arriving while the service starts stops it once started.
  const starting = startService(options);
  const handlers = handleSignals(starting, options.stderr, end);
  try {
    await starting;
  } catch (error) {
    handlers.remove();
    throw error;
  }
  return undefined;
}

function handleSignals(
  starting: Promise<RunningService>,
  stderr: Pick<Writable, 'write'>,
  end: ProcessExit,
): { remove(): void } {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      stderr.write(`passkey-server: ${signal} again, exiting without waiting\n`);
      end.exit(EXIT_FAILURE);
      return;
    }
    stopping = true;
    stderr.write(`passkey-server: ${signal} received, shutting down\n`);
    starting
      .then((running) => running.close())
      .then(
        () => end.exit(0),
        (error: unknown) => end.exit(end.report(error)),
      );
  };
  // A reload never stops the service: a BLOB that does not verify leaves the previous one in use (logged).
  const reload = () => {
    if (stopping) return;
    stderr.write('passkey-server: SIGHUP received, reloading the metadata BLOBs\n');
    starting
      .then((running) => running.reloadMetadata())
      .then(
        (result) =>
          stderr.write(
            `passkey-server: metadata reload ${result.ok ? 'done' : 'FAILED (the previous BLOB stays in use; see the log)'}` +
              `${result.changed ? ', a newer BLOB is in use' : ', no BLOB changed'}\n`,
          ),
        (error: unknown) =>
          stderr.write(
            `passkey-server: metadata reload failed: ${error instanceof Error ? error.message : String(error)}\n`,
          ),
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
