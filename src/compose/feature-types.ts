// The operator features' contract (docs/architecture.md "Adding an operator feature"): what
// startOperatorFeatures takes and gives (compose/operator-features.ts), and what each feature module of
// compose/features/ is: its name, the config keys it reads, the admin routes it serves, the stores it needs
// (FeatureStores), what it provides to the features after it (Provided), and its parts (FeatureParts).
import type { Server } from 'node:http';
import type { AdminActions } from '../admin/actions.js';
import type { AdminHandlerDeps } from '../admin/routes.js';
import type { AdminServer } from '../admin/server.js';
import type { AdminTokenStore } from '../admin/tokens.js';
import type { WebhookAdmin } from '../admin/webhook-admin.js';
import type { PreparedTrust } from '../applications/config-directory.js';
import type { SeedReport, StoredApplicationDirectory } from '../applications/directory.js';
import type { MetadataReloadReport } from '../applications/trust-reload.js';
import type { AuditLog } from '../audit/log.js';
import type { OpsOptions } from '../config/ops.js';
import type { MetricsRegistry } from '../metrics/registry.js';
import type { GroupCommitStats } from '../metrics/sqlite-writer.js';
import type { Readiness, ReadinessCheck } from '../runtime/readiness.js';
import type { ShutdownReport } from '../runtime/shutdown.js';
import type { ServiceHooks } from '../service.js';
import type { ApplicationConfig, Secrets, ServiceConfig } from '../service-config.js';
import type { RelaySecretStore } from '../stores/relay-secret-types.js';
import type { ApplicationStore, AuditStore, BucketStore, ChallengeStore, CredentialStore } from '../stores/types.js';
import type { Logger } from '../util/log.js';
import type { Runtime } from '../util/runtime.js';
import type { TrustEvaluator } from '../webauthn/attestation/types.js';
import type { Dispatcher } from '../webhooks/dispatcher.js';
import type { RelaySecretAdmin } from '../admin/relay-secret-admin.js';
import type { RelaySecretUsage } from '../applications/relay-secret-usage.js';
import type { ResolveHost } from '../webhooks/destination.js';

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
  readonly resolveHost?: ResolveHost;
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

/** The relay secrets feature's parts (compose/features/relay-secrets.ts). */
export interface RelaySecretWiring {
  readonly store: RelaySecretStore;
  readonly usage: RelaySecretUsage;
  readonly admin: RelaySecretAdmin;
  /** Stops the recorder (writing what it holds), then closes the store. */
  close(): Promise<void>;
}

/** The webhooks feature's parts (compose/features/webhooks.ts). */
export interface WebhookWiring {
  readonly webhooks: WebhookAdmin;
  readonly dispatcher: Dispatcher;
  /** Starts delivering, and seals the stored secrets not sealed under the newest key yet; never rejects. */
  startDelivery(): Promise<void>;
}

/** The stores the features share, each the input's or a memory one (compose/feature-context.ts). */
export interface FeatureStores {
  readonly applications: ApplicationStore;
  readonly audit: AuditStore;
  readonly relaySecrets: RelaySecretStore;
}

/** What a feature hands to the features after it (by name, in the order compose/operator-features.ts lists them). */
export interface Provided {
  readonly registry: MetricsRegistry;
  /** Times a store into the store-latency histogram. */
  readonly instrument: <T extends object>(name: string, store: T) => T;
  /** The service's stores, instrumented. */
  readonly credentials: CredentialStore;
  readonly challenges: ChallengeStore;
  readonly applicationStore: ApplicationStore;
  readonly applications: StoredApplicationDirectory;
  readonly seed: SeedReport;
  readonly overview: NonNullable<AdminHandlerDeps['overview']>;
  readonly audit: AuditLog;
  readonly relaySecrets: RelaySecretWiring;
  readonly webhooks: WebhookWiring;
  /** Marks `clientIds`' passkeys (else every application's with metadata) as a metadata load does; never rejects. */
  readonly markCompromised: (clientIds?: readonly string[]) => Promise<number>;
  readonly reloadMetadata: () => Promise<MetadataReloadReport>;
  readonly metadataFiles: () => string[];
  readonly actions: AdminActions;
  readonly readiness: Readiness;
  readonly admin: AdminServer | null;
}

export interface FeatureContext {
  readonly input: OperatorFeaturesInput;
  readonly stores: FeatureStores;
  provide<K extends keyof Provided>(key: K, value: Provided[K]): void;
  /** What an earlier feature provided (throws, naming the key, if none did: the list's order is wrong). */
  need<K extends keyof Provided>(key: K): Provided[K];
}

/** A feature's share of the running service; every member optional. */
export interface FeatureParts {
  /** Joined in list order into ServiceDeps.hooks. */
  readonly hooks?: readonly ServiceHooks[];
  /** Joined in list order into /ready, after the credential and challenge stores'. */
  readonly readiness?: readonly ReadinessCheck[];
  /** Once every feature is set up and /ready is known: what may fail (a port taken); in list order. */
  open?(): Promise<void>;
  /** Once every feature opened: background work (timers, delivery); never throws. */
  start?(): void;
  /** At shutdown, after the servers, in reverse list order (a feature closes before those it needs). */
  readonly closers?: readonly { readonly name: string; readonly close: () => Promise<void> }[];
  /** A later feature failed to set up or open: release what this one opened (its closers are not run). */
  abort?(): Promise<void>;
}

/** One operator feature: a module of compose/features/ that registers itself, as fastify's plugins do. */
export interface OperatorFeature {
  readonly name: string;
  /** The config file's keys it reads (src/schemas/config.ts, config-ops.ts, applications.ts). */
  readonly configKeys: readonly string[];
  /** The admin paths it serves (rows of src/admin/routes.ts). */
  readonly routes: readonly string[];
  readonly stores: readonly (keyof FeatureStores)[];
  readonly provides: readonly (keyof Provided)[];
  setup(context: FeatureContext): FeatureParts | Promise<FeatureParts>;
}
