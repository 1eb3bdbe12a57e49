// The service's configuration as validated data. `src/config/load.ts` turns a JSON file (plus environment
// overrides) into this shape, reporting every problem at once; everything else receives it as an argument.
// Nothing here reads the environment or the disk.

// The enumerated values come from their schemas (schemas/values.ts), as the config file's keys do
// (schemas/applications.ts): the OpenAPI document and the loader read the same lists.
export type { AttestationConveyance, BackupEligibilityPolicy, Hint, UserVerification, Variant } from './schemas/values.js';
export { HINTS } from './schemas/values.js';
import type { BackupEligibilityPolicy, Hint, UserVerification, Variant } from './schemas/values.js';
/** The origin of an Android app: `android:apk-key-hash:` and the base64url SHA-256 of its signing certificate. */
export const ANDROID_ORIGIN_PREFIX = 'android:apk-key-hash:';

/** COSE algorithm identifiers offered by default, in the order docs/decisions.md fixes. RS1 (-65535) only on request. */
export const DEFAULT_ALGORITHMS: readonly number[] = [-7, -35, -36, -8, -37, -38, -39, -257, -258, -259];

export const DEFAULT_TIMEOUT_MS = 180_000;

export interface AttestationPolicy {
  /** Absolute paths of PEM files whose certificates are trust anchors for attestation chains. */
  readonly trustAnchors: readonly string[];
  /** Refuse registrations whose attestation does not chain to a trust anchor. */
  readonly requireTrusted: boolean;
  /** Absolute path of a FIDO MDS3 BLOB (JWT) file, or null. */
  readonly metadata: string | null;
  /** AAGUIDs (lower-case, dashed) that may register; empty = any. */
  readonly aaguidAllow: readonly string[];
  /** AAGUIDs that may never register. */
  readonly aaguidDeny: readonly string[];
  /**
   * Absolute paths of PEM files with the roots that sign `metadata` BLOBs. Absent or empty = the bundled
   * roots of the real FIDO MDS3 (set it for the FIDO conformance tool's test MDS). Optional (additive).
   */
  readonly metadataRoots?: readonly string[];
  /**
   * Absolute paths of CRL files (PEM or DER) covering the `metadata` BLOB's signing chain. Absent or empty =
   * the chain's revocation is not checked; given = every certificate of the chain below the root needs a
   * current CRL of its issuer among them and must not be listed. Optional (additive).
   */
  readonly metadataCrls?: readonly string[];
  /**
   * Refuse authentication (AUTHENTICATOR_STATUS_NOT_ACCEPTED) by a credential whose authenticator model
   * the metadata now reports compromised or revoked. Absent = false. Optional (additive).
   */
  readonly enforceStatusAtAuthentication?: boolean;
}

export interface ApplicationConfig {
  readonly clientId: string;
  readonly name: string;
  readonly icon: string;
  /** The registered developer domain: the RP ID of the standard variant. */
  readonly domain: string;
  /**
   * Origins allowed in the standard variant (exact `scheme://host[:port]`), and Android apps as
   * `android:apk-key-hash:<base64url SHA-256 of the signing certificate>`.
   */
  readonly origins: readonly string[];
  readonly variants: readonly Variant[];
  /**
   * Origins allowed in the local variant. An entry without a port (`https://localhost`) allows any port
   * of that scheme and host.
   */
  readonly localOrigins: readonly string[];
  /** Ceremony lifetime and the `timeout` of options responses, in milliseconds. */
  readonly timeoutMs: number;
  /** COSE algorithms offered in pubKeyCredParams, in order. */
  readonly algorithms: readonly number[];
  /** Minimum user verification: `required` here overrides a weaker request. */
  readonly userVerification: UserVerification | null;
  /** `strict`: a counter that does not increase fails; `warn`: accepted, recorded as a clone warning. */
  readonly counterPolicy: 'strict' | 'warn';
  /** false: unknown users get options like known ones (no enumeration); true: CREDENTIAL_ID_NOT_FOUND. */
  readonly revealUnknownUsers: boolean;
  /** Accept a ceremony in a cross-origin frame (`clientDataJSON.crossOrigin`), embedded in one of `topOrigins`. */
  readonly allowCrossOrigin: boolean;
  /**
   * Top-level origins that may embed a cross-origin ceremony (`clientDataJSON.topOrigin`, WebAuthn L3 §7.1
   * step 10). Optional (additive); required (non-empty) when `allowCrossOrigin` is true.
   */
  readonly topOrigins?: readonly string[];
  readonly attestation: AttestationPolicy;
  /**
   * Hints the options answer when the request sends none (WebAuthn L3 §5.4.7), in order of preference.
   * Optional (additive); absent = none.
   */
  readonly hints?: readonly Hint[];
  /**
   * https origins on other registrable domains that may use `domain` as RP ID (WebAuthn L3 §5.11, related
   * origins), accepted like `origins` in the standard variant. Optional (additive); absent = none.
   */
  readonly relatedOrigins?: readonly string[];
  /** The BE flag a registration must have: any (absent), required (synced only), forbidden (device-bound only). */
  readonly backupEligibility?: BackupEligibilityPolicy;
}

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
  readonly applications: readonly ApplicationConfig[];
  /**
   * The operations settings (admin listener, rate limits, audit log, application cache, shutdown deadline,
   * request log), validated by the loader with `readOpsOptions` and with the environment applied. Optional
   * (additive): absent in configurations built by hand, where main.ts uses the defaults.
   */
  readonly ops?: OpsOptions;
}

// ----- Operations (admin listener, rate limits, audit): validated by src/config/ops-options.ts, used by src/admin and src/ratelimit -----

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
