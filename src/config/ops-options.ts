// The operations part of the configuration: the admin listener, rate limits, the audit log, the
// application cache. Proposed config keys (read by src/config/** once its owner adds them; until then
// the composition step uses the defaults with the environment). `readOpsOptions` validates the raw JSON and reports every
// problem, like the config loader does.
import { isAbsolute, join, resolve } from 'node:path';
import type { OpsOptions, RateLimitRule } from '../config.js';
import { AdminSchema, AuditSchema, keysOf, RateLimitRuleSchema, RateLimitsSchema } from '../schemas/config.js';
export type { AdminListenerOptions, OpsOptions } from '../config.js';

export function defaultOpsOptions(dataDir: string): OpsOptions {
  return {
    admin: {
      enabled: true,
      host: '127.0.0.1',
      port: 8788,
      tokensFile: join(dataDir, 'admin-tokens.json'),
      metricsRequireToken: false,
    },
    rateLimits: {
      store: 'memory',
      keyPrefix: 'passkey:rl:',
      // Generous on purpose: the four operations are called by integrators' relays, so one address carries
      // all the users of a relay; tighten per deployment (docs/operations.md).
      perApplication: { burst: 2000, perSecond: 1000 },
      perAddress: { burst: 1000, perSecond: 500 },
      applications: {},
      exemptAddresses: [],
      onStoreError: 'allow',
    },
    audit: { maxEvents: 100_000, options: 'failures' },
    applications: { cacheMs: 5000 },
    shutdownDeadlineMs: 10_000,
    requestLog: true,
  };
}

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads `{admin, rateLimits, audit, applicationCacheMs, shutdownDeadlineMs, requestLog}` from a config object (only
 * these keys; others are the config loader's). Relative paths resolve against `baseDir`. Every problem is
 * pushed to `problems` as `key.path: message`; the result holds the defaults where a value was unusable.
 */
export function readOpsOptions(raw: Raw, dataDir: string, baseDir: string, problems: string[]): OpsOptions {
  const defaults = defaultOpsOptions(dataDir);
  const known = (path: string, obj: Raw, keys: readonly string[]) => {
    for (const key of Object.keys(obj)) if (!keys.includes(key)) problems.push(`${path}.${key}: unknown key`);
  };
  const section = (name: string): Raw => {
    const value = raw[name];
    if (value === undefined) return {};
    if (!isObject(value)) {
      problems.push(`${name}: must be an object`);
      return {};
    }
    return value;
  };
  const bool = (path: string, value: unknown, fallback: boolean): boolean => {
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') {
      problems.push(`${path}: must be true or false`);
      return fallback;
    }
    return value;
  };
  const int = (path: string, value: unknown, fallback: number, min: number, max: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      problems.push(`${path}: must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return value as number;
  };
  const text = (path: string, value: unknown, fallback: string): string => {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || value === '') {
      problems.push(`${path}: must be a non-empty string`);
      return fallback;
    }
    return value;
  };
  const rule = (path: string, value: unknown, fallback: RateLimitRule | null): RateLimitRule | null => {
    if (value === undefined) return fallback;
    if (value === null) return null;
    if (!isObject(value)) {
      problems.push(`${path}: must be {"burst": n, "perSecond": n} or null`);
      return fallback;
    }
    known(path, value, keysOf(RateLimitRuleSchema));
    const { burst, perSecond } = value;
    if (typeof burst !== 'number' || !Number.isFinite(burst) || burst < 1)
      problems.push(`${path}.burst: must be a number >= 1`);
    if (typeof perSecond !== 'number' || !Number.isFinite(perSecond) || perSecond <= 0)
      problems.push(`${path}.perSecond: must be a number > 0`);
    return typeof burst === 'number' && typeof perSecond === 'number' ? { burst, perSecond } : fallback;
  };

  const admin = section('admin');
  known('admin', admin, keysOf(AdminSchema));
  const tokensFile = text('admin.tokensFile', admin.tokensFile, defaults.admin.tokensFile);

  const limits = section('rateLimits');
  known('rateLimits', limits, keysOf(RateLimitsSchema));
  const store = text('rateLimits.store', limits.store, defaults.rateLimits.store);
  if (store !== 'memory' && !/^rediss?:\/\//.test(store))
    problems.push('rateLimits.store: must be "memory" or a redis:// URL');
  const applications: Record<string, RateLimitRule | null> = {};
  if (limits.applications !== undefined) {
    if (!isObject(limits.applications)) problems.push('rateLimits.applications: must be an object of Client ID → rule');
    else
      for (const [id, value] of Object.entries(limits.applications))
        applications[id] = rule(`rateLimits.applications.${id}`, value, null);
  }
  let exemptAddresses: string[] = [];
  if (limits.exemptAddresses !== undefined) {
    if (!Array.isArray(limits.exemptAddresses) || !limits.exemptAddresses.every((a) => typeof a === 'string'))
      problems.push('rateLimits.exemptAddresses: must be an array of addresses');
    else exemptAddresses = limits.exemptAddresses as string[];
  }
  const onStoreError = limits.onStoreError === undefined ? 'allow' : limits.onStoreError;
  if (onStoreError !== 'allow' && onStoreError !== 'deny')
    problems.push('rateLimits.onStoreError: must be "allow" or "deny"');

  const audit = section('audit');
  known('audit', audit, keysOf(AuditSchema));
  const auditOptions = audit.options === undefined ? 'failures' : audit.options;
  if (auditOptions !== 'failures' && auditOptions !== 'all')
    problems.push('audit.options: must be "failures" or "all"');

  return {
    admin: {
      enabled: bool('admin.enabled', admin.enabled, defaults.admin.enabled),
      host: text('admin.host', admin.host, defaults.admin.host),
      port: int('admin.port', admin.port, defaults.admin.port, 0, 65_535),
      tokensFile: isAbsolute(tokensFile) ? tokensFile : resolve(baseDir, tokensFile),
      metricsRequireToken: bool(
        'admin.metricsRequireToken',
        admin.metricsRequireToken,
        defaults.admin.metricsRequireToken,
      ),
    },
    rateLimits: {
      store,
      keyPrefix: text('rateLimits.keyPrefix', limits.keyPrefix, defaults.rateLimits.keyPrefix),
      perApplication: rule('rateLimits.perApplication', limits.perApplication, defaults.rateLimits.perApplication),
      perAddress: rule('rateLimits.perAddress', limits.perAddress, defaults.rateLimits.perAddress),
      applications,
      exemptAddresses,
      onStoreError: onStoreError === 'deny' ? 'deny' : 'allow',
    },
    audit: {
      maxEvents: int('audit.maxEvents', audit.maxEvents, defaults.audit.maxEvents, 100, 10_000_000),
      options: auditOptions === 'all' ? 'all' : 'failures',
    },
    applications: {
      cacheMs: int('applicationCacheMs', raw.applicationCacheMs, defaults.applications.cacheMs, 0, 600_000),
    },
    shutdownDeadlineMs: int('shutdownDeadlineMs', raw.shutdownDeadlineMs, defaults.shutdownDeadlineMs, 0, 600_000),
    requestLog: bool('requestLog', raw.requestLog, defaults.requestLog),
  };
}

/** Environment overrides of single ops settings (documented in docs/operations.md). */
export const OPS_ENV = {
  PASSKEY_ADMIN_ENABLED: 'admin.enabled',
  PASSKEY_ADMIN_HOST: 'admin.host',
  PASSKEY_ADMIN_PORT: 'admin.port',
  PASSKEY_ADMIN_TOKENS_FILE: 'admin.tokensFile',
  PASSKEY_RATE_LIMIT_STORE: 'rateLimits.store',
} as const;

/** Applies the environment overrides; problems are pushed like readOpsOptions does (`NAME: message`). */
export function applyOpsEnv(
  options: OpsOptions,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  problems: string[],
): OpsOptions {
  let admin = options.admin;
  let rateLimits = options.rateLimits;
  const enabled = env.PASSKEY_ADMIN_ENABLED;
  if (enabled !== undefined) {
    if (enabled === 'true' || enabled === 'false') admin = { ...admin, enabled: enabled === 'true' };
    else problems.push('PASSKEY_ADMIN_ENABLED: must be true or false');
  }
  if (env.PASSKEY_ADMIN_HOST !== undefined) {
    if (env.PASSKEY_ADMIN_HOST === '') problems.push('PASSKEY_ADMIN_HOST: must not be empty');
    else admin = { ...admin, host: env.PASSKEY_ADMIN_HOST };
  }
  const port = env.PASSKEY_ADMIN_PORT;
  if (port !== undefined) {
    if (/^\d{1,5}$/.test(port) && Number(port) <= 65_535) admin = { ...admin, port: Number(port) };
    else problems.push('PASSKEY_ADMIN_PORT: must be 0-65535 (0: any free port)');
  }
  const tokensFile = env.PASSKEY_ADMIN_TOKENS_FILE;
  if (tokensFile !== undefined) {
    if (tokensFile === '') problems.push('PASSKEY_ADMIN_TOKENS_FILE: must not be empty');
    else admin = { ...admin, tokensFile: isAbsolute(tokensFile) ? tokensFile : resolve(cwd, tokensFile) };
  }
  const store = env.PASSKEY_RATE_LIMIT_STORE;
  if (store !== undefined) {
    if (store === 'memory' || /^rediss?:\/\//.test(store)) rateLimits = { ...rateLimits, store };
    else problems.push('PASSKEY_RATE_LIMIT_STORE: must be "memory" or a redis:// URL');
  }
  return { ...options, admin, rateLimits };
}

/**
 * How often every instance stats its metadata BLOB files and reloads a changed one (src/applications/metadata-watch.ts):
 * default every 60 s, 0 = never (SIGHUP and POST /admin/metadata/reload still reload). Only an environment
 * variable for now: a config-file key needs a field of OpsOptions in src/config.ts and a key of the loader.
 */
export const METADATA_CHECK_ENV = 'PASSKEY_METADATA_CHECK_INTERVAL_MS';
export const DEFAULT_METADATA_CHECK_INTERVAL_MS = 60_000;
const MAX_METADATA_CHECK_INTERVAL_MS = 86_400_000;

/** The interval from the environment; a bad value is pushed to `problems` (`NAME: message`) and the default returned. */
export function metadataCheckIntervalMs(env: Readonly<Record<string, string | undefined>>, problems: string[]): number {
  const text = env[METADATA_CHECK_ENV]?.trim();
  if (text === undefined || text === '') return DEFAULT_METADATA_CHECK_INTERVAL_MS;
  const value = /^[0-9]{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(value <= MAX_METADATA_CHECK_INTERVAL_MS)) {
    problems.push(
      `${METADATA_CHECK_ENV}: must be milliseconds from 0 (no periodic check) to ${MAX_METADATA_CHECK_INTERVAL_MS}, got ${JSON.stringify(env[METADATA_CHECK_ENV])}`,
    );
    return DEFAULT_METADATA_CHECK_INTERVAL_MS;
  }
  return value;
}
