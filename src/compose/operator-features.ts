// The operator features (everything a running service has beside the four operations), built in one call
// from compose/service.ts:
//   metrics registry (+ process metrics) → instrumented stores → stored application directory (seeded from
//   the config file) → audit log → hooks (metrics, audit, rate limits) → admin listener → shutdown.
// service.ts then builds the HTTP app with `applications`, `credentials`, `challenges` and `hooks` from here.
// `reloadMetadata` swaps in newer metadata BLOBs (src/applications/trust-reload.ts); the admin API exposes it.
import { POST_QUANTUM_ALGORITHMS } from '../webauthn/cose.js';
import type { Server } from 'node:http';
import type { PreparedTrust } from '../applications/config-directory.js';
import type { ApplicationConfig, ServiceConfig } from '../service-config.js';
import { metadataFilesOf } from '../applications/metadata-watch.js';
import type { ServiceHooks } from '../service.js';
import type { Secrets } from '../service-config.js';
import type { Logger } from '../util/log.js';
import type { ApplicationStore, AuditStore, BucketStore, ChallengeStore, CredentialStore } from '../stores/types.js';
import { createMetadataReloader, type MetadataReloadReport } from '../applications/trust-reload.js';
import type { Runtime } from '../util/runtime.js';
import type { TrustEvaluator } from '../webauthn/attestation/types.js';
import { AuditLog } from '../audit/log.js';
import { MemoryAuditStore } from '../stores/memory/audit.js';
import { createAuditHooks } from '../audit/hooks.js';
import { MetricsRegistry } from '../metrics/registry.js';
import { registerProcessMetrics } from '../metrics/process.js';
import { registerSqliteWriterMetrics, type GroupCommitStats } from '../metrics/sqlite-writer.js';
import { createMetricsHooks } from '../metrics/hooks.js';
import { createStoreMetrics } from '../metrics/stores.js';
import { RecentCeremonies } from '../metrics/recent.js';
import { createRateLimitHooks } from '../ratelimit/limiter.js';
import { MemoryBucketStore } from '../stores/memory/buckets.js';
import { RedisBucketStore } from '../stores/redis/buckets.js';
import { openApiDocument } from '../admin/openapi.js';
import { MemoryApplicationStore } from '../stores/memory/applications.js';
import { StoredApplicationDirectory, seedApplications, type SeedReport } from '../applications/directory.js';
import { composeHooks } from '../runtime/hooks.js';
import { createRequestLogHooks } from '../runtime/request-log.js';
import { AdminActions } from '../admin/actions.js';
import type { OpsOptions } from '../config/ops.js';
import { Readiness, serviceStoreChecks, storeCheck, type ReadinessCheck } from '../runtime/readiness.js';
import { startAdminServer, type AdminServer } from '../admin/server.js';
import { gracefulShutdown, type ShutdownReport } from '../runtime/shutdown.js';
import { FileAdminTokenStore, type AdminTokenStore } from '../admin/tokens.js';
import type { WebhookAdmin } from '../admin/webhooks.js';
import type { Dispatcher } from '../webhooks/dispatcher.js';
import { webhookActionRules, wireWebhooks, type WebhookWiringInput } from './webhooks.js';
import { wireRelaySecrets } from './relay-secrets.js';
import type { RelaySecretStore } from '../stores/relay-secret-types.js';

export interface OperatorFeaturesInput {
  readonly config: ServiceConfig;
  readonly options: OpsOptions;
  readonly credentials: CredentialStore;
  readonly challenges: ChallengeStore;
  readonly secrets: Secrets;
  readonly runtime: Runtime;
  readonly log: Logger;
  /** service.ts passes `(policy) => loadTrustEvaluator(policy)` from src/webauthn/trust.ts. */
  readonly buildTrust: (policy: ApplicationConfig['attestation']) => TrustEvaluator;
  /**
   * The configured applications' prepared trust (service.ts passes prepareTrust's result), reloaded first by
   * `reloadMetadata`. Without it a reload rebuilds only what the directory built itself.
   */
  readonly trust?: Pick<PreparedTrust, 'reloadMetadata'>;
  /** Defaults to memory (applications then come from the config file at every start). */
  readonly applicationStore?: ApplicationStore;
  /** Defaults to memory (bounded; lost at restart). */
  readonly auditStore?: AuditStore;
  /** The relay secrets the admin API and CLI create (compose/stores.ts); defaults to memory. */
  readonly relaySecretStore?: RelaySecretStore;
  /** Between writes of relay secrets' last uses (default 10 000 ms). */
  readonly relaySecretFlushMs?: number;
  /** Defaults from options.rateLimits.store. */
  readonly bucketStore?: BucketStore;
  readonly tokens?: AdminTokenStore;
  /** More readiness checks (e.g. the database pool). */
  readonly readinessChecks?: readonly ReadinessCheck[];
  /** For /openapi.json. */
  readonly version?: string;
  /**
   * Closes the credential and challenge stores at shutdown (service.ts passes `stores.close` of openStores, which
   * closes each once). Without it the two stores' own `close` is called.
   */
  readonly closeStores?: () => Promise<void>;
  /** SQLite: the writer of openStores, whose group commit /metrics reports. */
  readonly sqliteWriter?: GroupCommitStats;
  /** The `env:<NAME>` webhook secrets config/ read at start (ServeSettings.webhookSecrets). */
  readonly webhookSecrets?: ReadonlyMap<string, string>;
  /** Between polls of the webhook outbox (default 1000 ms). */
  readonly webhookPollMs?: number;
  /** Resolves webhook hosts (default: the system's resolver; tests answer without DNS). */
  readonly resolveHost?: WebhookWiringInput['resolveHost'];
}

export interface OperatorFeatures {
  readonly registry: MetricsRegistry;
  /** The ApplicationDirectory for ServiceDeps. */
  readonly applications: StoredApplicationDirectory;
  /** The stores for ServiceDeps, timed into the store-latency histogram. */
  readonly credentials: CredentialStore;
  readonly challenges: ChallengeStore;
  /** ServiceDeps.hooks: request log, metrics, audit and rate limits. */
  readonly hooks: ServiceHooks;
  readonly audit: AuditLog;
  readonly actions: AdminActions;
  readonly webhooks: WebhookAdmin;
  /** Delivers the webhook outbox (started here, stopped at shutdown). */
  readonly dispatcher: Dispatcher;
  readonly readiness: Readiness;
  readonly seed: SeedReport;
  /** null when options.admin.enabled is false. */
  readonly admin: AdminServer | null;
  /**
   * Reads every metadata BLOB again and swaps in those that verify (configured applications, then every
   * evaluator the directory built); one that does not verify keeps the previous one. Never rejects for a BLOB.
   */
  reloadMetadata(): Promise<MetadataReloadReport>;
  /**
   * The metadata files in use (configured and admin-created applications): each BLOB and the CRL files of its
   * signing chain (`attestation.metadataCrls`), for the periodic check.
   */
  metadataFiles(): string[];
  /** Graceful shutdown: readiness fails, `servers` and the admin listener stop accepting and finish, stores close. */
  shutdown(servers: readonly Server[]): Promise<ShutdownReport>;
}

export async function startOperatorFeatures(input: OperatorFeaturesInput): Promise<OperatorFeatures> {
  const { options, runtime, log } = input;
  const registry = new MetricsRegistry();
  const stopProcessMetrics = registerProcessMetrics(registry, { now: runtime.now });
  if (input.sqliteWriter) registerSqliteWriterMetrics(registry, input.sqliteWriter);
  const storeMetrics = createStoreMetrics(registry);
  const credentials = storeMetrics.instrument('credentials', input.credentials);
  const challenges = storeMetrics.instrument('challenges', input.challenges);

  const applicationStore = storeMetrics.instrument(
    'applications',
    input.applicationStore ?? new MemoryApplicationStore(),
  );
  const seed = await seedApplications(applicationStore, input.config.applications, runtime.now());
  for (const clientId of seed.kept) {
    log.warn(
      { event: 'application_config_ignored', clientId },
      'the config file lists this application, but it was changed through the admin API or CLI since; the stored version is used',
    );
  }
  const auditStore = input.auditStore ?? new MemoryAuditStore({ maxEvents: options.audit.maxEvents });
  const audit = new AuditLog(auditStore, runtime, log);
  const invalidate = (clientId: string) => applications.invalidate(clientId);
  const relaySecrets = wireRelaySecrets({ ...input, applications: applicationStore, audit, invalidate });
  const applications = new StoredApplicationDirectory({
    store: applicationStore,
    buildTrust: input.buildTrust,
    now: runtime.now,
    cacheMs: options.applications.cacheMs,
    webhooks: input.credentials.webhooks,
    relaySecrets: relaySecrets.store,
    onRelaySecretUse: (clientId, hash) => relaySecrets.usage.note(clientId, hash),
  });

  const reloadTrust = createMetadataReloader({
    ...(input.trust ? { trust: input.trust } : {}),
    directory: applications,
    now: runtime.now,
    log,
  });
  const configuredFiles = input.config.applications.flatMap((app) => metadataFilesOf(app.attestation));

  const bucketStore =
    input.bucketStore ??
    (options.rateLimits.store === 'memory'
      ? new MemoryBucketStore()
      : await RedisBucketStore.open({ url: options.rateLimits.store, keyPrefix: options.rateLimits.keyPrefix }));

  const recent = new RecentCeremonies({ now: runtime.now, isKnownClient: (id) => applications.isKnown(id) });
  const hooks = composeHooks(
    ...(options.requestLog ? [createRequestLogHooks(log)] : []),
    createMetricsHooks(registry, { isKnownClient: (id) => applications.isKnown(id) }),
    recent.hooks,
    createAuditHooks(audit, { options: options.audit.options }),
    createRateLimitHooks(options.rateLimits, { store: bucketStore, now: runtime.now, log }),
  );

  const actions = new AdminActions({
    applications: applicationStore,
    credentials,
    audit,
    runtime,
    userHandleKey: input.secrets.userHandleKey,
    baseDir: input.config.dataDir,
    ...webhookActionRules(input.config, input.resolveHost),
    postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
    onApplicationChange: async (clientId, deleted) => {
      if (deleted) await relaySecrets.store.deleteByApplication(clientId);
      invalidate(clientId);
    },
  });

  const { webhooks, dispatcher, startDelivery, markCompromised } = wireWebhooks({
    config: input.config,
    applicationStore,
    applications,
    credentials,
    rawCredentials: input.credentials,
    audit,
    runtime,
    log,
    ...(input.webhookSecrets ? { secrets: input.webhookSecrets } : {}),
    keys: input.secrets.localBlobKeys,
    ...(input.webhookPollMs === undefined ? {} : { pollMs: input.webhookPollMs }),
    ...(input.resolveHost ? { resolveHost: input.resolveHost } : {}),
    registry,
  });
  const reloadMetadata = async (): Promise<MetadataReloadReport> => {
    const report = await reloadTrust();
    await markCompromised();
    return report;
  };

  const readiness = new Readiness([
    ...serviceStoreChecks({ credentials: input.credentials, challenges: input.challenges }),
    storeCheck('applications', applicationStore),
    storeCheck('audit', auditStore),
    { name: 'rate-limits', check: () => bucketStore.ping() },
    ...(input.readinessChecks ?? []),
  ]);

  const tokens = input.tokens ?? new FileAdminTokenStore(options.admin.tokensFile, runtime);
  const document = openApiDocument({
    limits: input.config.limits,
    ...(input.version ? { version: input.version } : {}),
  });
  let admin: AdminServer | null = null;
  if (options.admin.enabled) {
    try {
      admin = await startAdminServer({
        host: options.admin.host,
        port: options.admin.port,
        metricsRequireToken: options.admin.metricsRequireToken,
        allowedHosts: options.admin.allowedHosts,
        actions,
        audit,
        tokens,
        readiness,
        registry,
        runtime,
        log,
        openapi: () => document,
        reloadMetadata,
        overview: () => recent.report(),
        webhooks,
        relaySecrets: relaySecrets.admin,
      });
    } catch (error) {
      // The port is taken (or the host wrong): release what was opened here; service.ts reports the error.
      stopProcessMetrics();
      if (!input.bucketStore) await bucketStore.close().catch(() => undefined);
      throw error;
    }
  }

  void startDelivery();
  relaySecrets.usage.start();
  void markCompromised();
  return {
    registry,
    applications,
    credentials,
    challenges,
    hooks,
    audit,
    actions,
    webhooks,
    dispatcher,
    readiness,
    seed,
    admin,
    reloadMetadata,
    metadataFiles: () => [...new Set([...configuredFiles, ...applications.metadataFiles()])],
    shutdown: (servers) =>
      gracefulShutdown({
        servers: admin ? [...servers, admin.server] : servers,
        beforeClose: () => readiness.drain(),
        deadlineMs: options.shutdownDeadlineMs,
        log,
        closers: [
          { name: 'webhook-delivery', close: () => dispatcher.stop() },
          { name: 'relay-secrets', close: () => relaySecrets.close() },
          ...(input.closeStores
            ? [{ name: 'credentials+challenges', close: input.closeStores }]
            : [
                { name: 'credentials', close: () => input.credentials.close() },
                { name: 'challenges', close: () => input.challenges.close() },
              ]),
          { name: 'applications', close: () => applicationStore.close() },
          { name: 'audit', close: () => auditStore.close() },
          { name: 'rate-limits', close: () => bucketStore.close() },
          { name: 'process-metrics', close: async () => stopProcessMetrics() },
        ],
      }),
  };
}
