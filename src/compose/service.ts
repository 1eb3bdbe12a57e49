// The object graph of `serve`, built in one call: settings (src/config/serve.ts) → logger → secrets →
// trust (metadata BLOBs) → credential and challenge stores → application and audit stores → operations
// (metrics, audit, rate limits, admin listener; operations.ts) → the HTTP app in its node:http server, not
// yet listening. src/main.ts then listens and handles the signals. Nothing here reads the environment: the
// settings arrive as data from config/.
import type { Server } from 'node:http';
import type { Writable } from 'node:stream';
import { prepareTrust } from '../applications/config-directory.js';
import {
  metadataFilesOf,
  stampFilesSync,
  watchMetadataFiles,
  type MetadataWatch,
} from '../applications/metadata-watch.js';
import type { MetadataReloadReport } from '../applications/trust-reload.js';
import type { ServiceConfig } from '../service-config.js';
import { withDemoRelaySecret } from '../secrets/demo-relay-secret.js';
import { warnUnguardedApplications } from './features/relay-secrets.js';
import { loadSecrets } from '../secrets/load.js';
import { loadServeSettings, type ServeSettings } from '../config/serve.js';
import { createServiceServer } from '../http/server.js';
import { composeHooks } from '../runtime/hooks.js';
import type { ShutdownReport } from '../runtime/shutdown.js';
import { startTracing, tracedStore, type Tracing } from '../runtime/tracing.js';
import type { ServiceHooks } from '../service.js';
import { openStores } from '../stores/open.js';
import { createLogger, type LevelledLogger } from '../util/log.js';
import { systemRuntime, type Runtime } from '../util/runtime.js';
import { composeApp, type AppParts } from './app.js';
import { startOperatorFeatures, type OperatorFeatures } from './operator-features.js';
import { openOpsStores } from './stores.js';
import type { ResolveHost } from '../webhooks/destination.js';
import { webhookSecretBox } from '../webhooks/secret-box.js';

export interface ComposeOptions {
  /** Config file; without one, the built-in default. */
  readonly configFile?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Where the log goes. */
  readonly stderr: Pick<Writable, 'write'>;
  readonly runtime?: Runtime;
  /** Instrumentation and admission (metrics, audit, rate limits), when the caller wires more. */
  readonly hooks?: ServiceHooks;
  /** Resolves webhook hosts, when added and at every delivery (default: the system's resolver). */
  readonly resolveHost?: ResolveHost;
}

export interface ComposedService {
  readonly settings: ServeSettings;
  readonly config: ServiceConfig;
  /** The relay secret the demo's relay sends (its application asks for it); null without the demo. */
  readonly demoRelaySecret: string | null;
  readonly log: LevelledLogger;
  /** The clock, timers and randomness everything was built on (ComposeOptions.runtime, or the system's). */
  readonly runtime: Runtime;
  /** The service's node:http server, not listening yet. */
  readonly server: Server;
  /** The admin listener's address, or null when it is off. */
  readonly adminUrl: string | null;
  /** SQLite: the writer mode `auto` resolved to (docs/storage.md); null otherwise. */
  readonly sqliteWriter: string | null;
  reloadMetadata(): Promise<MetadataReloadReport>;
  /** Starts the periodic check of the metadata files (against their state before the BLOBs were read). */
  watchMetadata(): MetadataWatch;
  /** Readiness drains, `servers`, the service's and the admin listener finish what is in flight, every store closes. */
  shutdown(servers: readonly Server[]): Promise<ShutdownReport>;
}

export async function composeService(options: ComposeOptions): Promise<ComposedService> {
  const runtime = options.runtime ?? systemRuntime;
  const settings = loadServeSettings({ file: options.configFile, env: options.env, cwd: options.cwd });
  const log = createLogger({
    level: settings.logLevel,
    sink: options.stderr,
    clock: runtime.now,
    base: { service: 'passkey-server' },
  });
  // The demo's application asks for the demo's own relay secret (made on first start, kept in the data folder).
  const { config, demoRelaySecret } = withDemoRelaySecret(settings.config, runtime.randomBytes);
  const secrets = loadSecrets({ config, env: options.env, randomBytes: runtime.randomBytes, log });
  // Stamped before the BLOBs are read, so that one installed while they load is still seen as a change.
  const metadataBaseline = stampFilesSync(config.applications.flatMap((app) => metadataFilesOf(app.attestation)));
  const trust = prepareTrust(config.applications, new Date(runtime.now()), settings.source, { clock: runtime.now });
  for (const { clientId, info } of trust.metadata) {
    log.info(
      {
        clientId,
        metadata: info.file,
        serial: info.serial,
        nextUpdate: info.nextUpdate,
        entries: info.entries,
        revocationChecked: info.revocationChecked,
      },
      'metadata BLOB loaded',
    );
    if (!info.revocationChecked) {
      // Said once, at start: the operator may have chosen this, but should know that a BLOB signed under a
      // revoked certificate would be taken (docs/attestation.md, "Revocation of the BLOB's signing chain").
      log.info(
        { clientId, metadata: info.file, revocationChecked: false },
        "revocation of the metadata BLOB's signing chain is not checked: no attestation.metadataCrls configured (docs/attestation.md)",
      );
    }
    if (info.staleAtLoad) {
      log.warn(
        { clientId, metadata: info.file, serial: info.serial, nextUpdate: info.nextUpdate },
        'the metadata BLOB is past its nextUpdate: install a newer one (passkey-server metadata check --blob …, docs/attestation.md)',
      );
    }
  }
  const stores = await openStores(config, { clock: runtime.now });
  let ops: OperatorFeatures;
  try {
    // Instances sharing one PostgreSQL must share their secrets: the first start records fingerprints, and an
    // instance whose user-handle or local-blob keys differ refuses to start (docs/deployment.md).
    if (config.database.kind === 'postgres') {
      await (await import('../stores/postgres/open.js')).checkSharedSecrets(config.database.url, secrets);
    }
    const opsStores = await openOpsStores(config, {
      secretBox: webhookSecretBox(secrets.localBlobKeys, runtime.randomBytes),
      ...(stores.sqliteWriter ? { sqliteWriter: stores.sqliteWriter } : {}),
    });
    try {
      ops = await startOperatorFeatures({
        config,
        options: settings.ops,
        credentials: stores.credentials,
        challenges: stores.challenges,
        secrets,
        runtime,
        log,
        buildTrust: trust.buildTrust,
        trust,
        applicationStore: opsStores.applications,
        auditStore: opsStores.audit,
        relaySecretStore: opsStores.relaySecrets,
        closeStores: () => stores.close(),
        webhookSecrets: settings.webhookSecrets,
        ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
        ...(stores.sqliteWriter ? { sqliteWriter: stores.sqliteWriter } : {}),
      });
      // After seeding: the config file's applications and those created through the admin API, with the
      // secrets the admin API or CLI created for them counted.
      await warnUnguardedApplications(log, opsStores.applications, opsStores.relaySecrets, runtime.now);
      // Never a reason not to start: what is not sealed now still opens, and the next start tries again.
      const sealed = await opsStores.sealSecrets().catch((error: unknown) => {
        log.error({ event: 'webhook_secret_sealing_failed', error: String(error) }, 'webhook secrets not all sealed');
        return 0;
      });
      if (sealed > 0)
        log.info(
          { event: 'application_webhook_secrets_sealed', applications: sealed },
          'webhook signing secrets sealed',
        );
    } catch (error) {
      await opsStores.close().catch(() => undefined);
      throw adminStartError(error, settings);
    }
  } catch (error) {
    await stores.close().catch(() => undefined);
    throw error;
  }
  const running = ops;
  // Traces only when the OTEL_* variables ask (config/tracing.ts): otherwise nothing is built or wrapped.
  const tracing: Tracing | null = settings.tracing ? startTracing(settings.tracing) : null;
  const tracer = tracing?.tracer;
  const parts: AppParts = {
    config,
    applications: ops.applications,
    credentials: tracer ? tracedStore(ops.credentials, 'credentials', tracer) : ops.credentials,
    challenges: tracer ? tracedStore(ops.challenges, 'challenges', tracer) : ops.challenges,
    secrets,
    runtime,
    log,
    hooks: options.hooks ? composeHooks(ops.hooks, options.hooks) : ops.hooks,
    ...(tracer ? { extra: { tracer } } : {}),
  };
  if (settings.tracing) {
    log.info(
      { url: settings.tracing.url, protocol: settings.tracing.protocol, serviceName: settings.tracing.serviceName },
      'traces exported over OTLP',
    );
  }
  let server: Server;
  try {
    server = createServiceServer(composeApp(parts).app);
  } catch (error) {
    // The admin listener and every store are open by now: the operator features' shutdown closes them all.
    await running.shutdown([]).catch(() => undefined);
    await tracing?.shutdown().catch(() => undefined);
    throw error;
  }
  return {
    settings,
    config,
    demoRelaySecret,
    log,
    runtime,
    server,
    adminUrl: ops.admin?.url ?? null,
    sqliteWriter: stores.sqliteWriter?.mode ?? null,
    reloadMetadata: () => running.reloadMetadata(),
    watchMetadata: () =>
      watchMetadataFiles({
        files: () => running.metadataFiles(),
        intervalMs: settings.metadataCheckMs,
        baseline: metadataBaseline,
        log,
        onChange: () => running.reloadMetadata(),
      }),
    shutdown: async (servers) => {
      const report = await running.shutdown(servers);
      // The spans of the last requests go out before the process ends; a collector that is down is not an error.
      await tracing?.shutdown().catch((error: unknown) => log.warn({ error: String(error) }, 'traces not flushed'));
      return report;
    },
  };
}

/** The admin listener could not start (its port taken, its host wrong): say which setting to change. */
function adminStartError(error: unknown, settings: ServeSettings): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EADDRNOTAVAIL' && code !== 'EACCES' && code !== 'ENOTFOUND') return error;
  const hint =
    code === 'EADDRINUSE'
      ? ' (in use: choose another with admin.port or PASSKEY_ADMIN_PORT, or switch it off with PASSKEY_ADMIN_ENABLED=false)'
      : '';
  const { host, port } = settings.ops.admin;
  return new Error(`the admin listener cannot listen on ${host}:${port}: ${code}${hint}`, { cause: error });
}
