// The service's configuration as validated data. `src/config/load.ts` turns a JSON file (plus environment
// overrides) into this shape, reporting every problem at once; everything else receives it as an argument.
// Nothing here reads the environment or the disk.

// The enumerated values come from their schemas (schemas/values.ts), as the config file's keys do
// (schemas/applications.ts): the OpenAPI document and the loader read the same lists. Types only: the
// values themselves (DEFAULT_ALGORITHMS, HINTS, ANDROID_ORIGIN_PREFIX) are imported from schemas/, so that
// every part may name these types without depending on anything at run time.
export type {
  AttestationConveyance,
  BackupEligibilityPolicy,
  Hint,
  UserVerification,
  Variant,
} from './schemas/values.js';
import type { ApplicationConfigSchema, ResolvedAttestationPolicySchema } from './schemas/applications.js';
import type { Shape } from './schemas/typebox.js';

/** An application's attestation trust policy, resolved (schemas/applications.ts, docs/attestation.md). */
export type AttestationPolicy = Shape<typeof ResolvedAttestationPolicySchema>;

/** A validated application (schemas/applications.ts, where each setting is described; docs/configuration.md). */
export type ApplicationConfig = Shape<typeof ApplicationConfigSchema>;

export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string };

export type ChallengeStoreConfig =
  | { readonly kind: 'memory' }
  | { readonly kind: 'database' }
  | { readonly kind: 'redis'; readonly url: string };

/** `sqliteWriter`: where the SQLite writes are group-committed (docs/storage.md). */
export type SqliteWriterSetting = 'auto' | 'thread' | 'inline';

export interface ServiceConfig {
  readonly listen: { readonly host: string; readonly port: number };
  readonly database: DatabaseConfig;
  /**
   * SQLite only: where credential writes and audit rows are group-committed (docs/storage.md). `thread`:
   * a writer thread, the event loop never waits for a flush; `inline`: on the event loop, without the
   * thread's second JavaScript heap; `auto` (absent = auto): `thread` when the process may run on two or
   * more cores, `inline` when it is confined to one (there the thread cannot run beside the event loop).
   */
  readonly sqliteWriter?: SqliteWriterSetting;
  readonly challenges: ChallengeStoreConfig;
  readonly local: { readonly enabled: boolean };
  /** The demo login page (served over HTTPS through the relay) that `npm start` brings up by default. */
  readonly demo: {
    readonly enabled: boolean;
    readonly host: string;
    readonly port: number;
    /**
     * Development hostnames other than localhost that also serve the demo's local page (docs/demo.md).
     * Optional (additive); absent = none.
     */
    readonly devHostnames?: readonly string[];
  };
  /** The vendor word of `User-agent: <vendor> AppID: <client id>`. */
  readonly vendor: string;
  /** Folder for generated secrets (and the default SQLite file). Absolute. */
  readonly dataDir: string;
  /** Path of the secrets file (user-handle key, local-blob keys). Absolute. */
  readonly secretsFile: string;
  readonly limits: {
    readonly bodyBytes: number;
    readonly usernameLength: number;
    readonly displayNameLength: number;
  };
  /**
   * `answerFloorMs`: the by-name assertion options and the failed assertion results leave no earlier than
   * this many milliseconds after their request arrived (src/http/answer-floor.ts); 0: off.
   */
  readonly answerFloorMs: number;
  readonly applications: readonly ApplicationConfig[];
  /** How webhook events are delivered (`webhookDelivery`); absent: the defaults (config/webhook-urls.ts). */
  readonly webhookDelivery?: {
    readonly allowLoopbackHttp: boolean;
    readonly allowPrivateAddresses: boolean;
    readonly maxAttempts: number;
    readonly timeoutMs: number;
  };
  /**
   * The operations settings (admin listener, rate limits, audit log, application cache, shutdown deadline,
   * request log), validated by the loader (src/config/ops.ts) with the environment applied. Optional
   * (additive): absent in configurations built by hand, where config/serve.ts applies the defaults.
   */
  readonly ops?: OpsOptions;
}

// ----- Operator features ("ops": admin listener, rate limits, audit): validated by src/config/ops.ts, used by src/admin and src/ratelimit -----

export interface RateLimitRule {
  /** Bucket capacity: how many requests may arrive at once after a quiet period. */
  readonly burst: number;
  /** Sustained rate: tokens added per second. */
  readonly perSecond: number;
}

/** The `rateLimits` configuration (see docs/operations.md). null switches a limit off. */
export interface RateLimitOptions {
  /** Per Client ID, all of its callers together. */
  readonly perApplication: RateLimitRule | null;
  /** Per client address (an IPv6 address counts as its /64), across applications. */
  readonly perAddress: RateLimitRule | null;
  /** Per-application overrides of `perApplication` (null: no application limit for that Client ID). */
  readonly applications?: Readonly<Record<string, RateLimitRule | null>>;
  /** Addresses never limited per address (e.g. the relay of a trusted integrator). Exact match after normalisation. */
  readonly exemptAddresses?: readonly string[];
  /** When the bucket store fails: admit (default; the failure is logged) or refuse with 429. */
  readonly onStoreError?: 'allow' | 'deny';
}

export interface AdminListenerOptions {
  readonly enabled: boolean;
  readonly host: string;
  readonly port: number;
  /** Absolute path of the admin token file (hashes only). */
  readonly tokensFile: string;
  readonly metricsRequireToken: boolean;
  /** Host names (besides loopback and `host`) the admin listener answers for (src/admin/host.ts). */
  readonly allowedHosts: readonly string[];
}

export interface OpsOptions {
  readonly admin: AdminListenerOptions;
  readonly rateLimits: RateLimitOptions & {
    /** `memory` (one instance) or a redis:// URL (shared by every instance). */
    readonly store: string;
    readonly keyPrefix: string;
  };
  readonly audit: { readonly maxEvents: number; readonly options: 'failures' | 'all' };
  readonly applications: { readonly cacheMs: number };
  /** How long graceful shutdown waits for in-flight requests. */
  readonly shutdownDeadlineMs: number;
  /** One JSON log line per request of the four operations (false if the http layer logs requests itself). */
  readonly requestLog: boolean;
}

/** A local-blob key: its id is stored in each blob, so the right key opens it (rotation). */
export interface LocalBlobKey {
  readonly id: string;
  /** 32 bytes (AES-256-GCM). */
  readonly key: Buffer;
}

/** The service's secrets (src/secrets/), from the environment or the key file. */
export interface Secrets {
  /** HMAC-SHA-256 key deriving user handles from (Client ID, username). 32 bytes. */
  readonly userHandleKey: Buffer;
  /** Newest first: the first seals, all open. */
  readonly localBlobKeys: readonly LocalBlobKey[];
}

/** The OpenTelemetry trace export (src/config/tracing.ts reads it from the OTEL_* variables). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  /** Where spans are POSTed: the traces endpoint as given, or `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  readonly url: string;
  readonly protocol: OtlpProtocol;
  /** `service.name` of the resource (default `passkey-server`). */
  readonly serviceName: string;
  /** Extra request headers for the collector (an API key, say). */
  readonly headers: Readonly<Record<string, string>>;
}
