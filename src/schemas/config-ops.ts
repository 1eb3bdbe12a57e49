// The operations keys of the config file: the admin listener, rate limits, the audit log, the application
// cache, the shutdown deadline and the request log (src/config/ops.ts turns them into OpsOptions).
import { integer, type Notes, opt, port, section, text } from './config-keys.js';
import { Type } from './typebox.js';
import { literals } from './values.js';

const RULE = '{"burst": n, "perSecond": n}';
export const RateLimitRuleSchema = Type.Object(
  { burst: Type.Number({ minimum: 1 }), perSecond: Type.Number({ exclusiveMinimum: 0 }) },
  { additionalProperties: false },
);
const rule = (notes: Notes) =>
  Type.Union([RateLimitRuleSchema, Type.Null()], { detail: `must be ${RULE} or null`, ...notes });

export const AdminSchema = section(
  {
    enabled: opt(
      Type.Boolean({ default: true, env: 'PASSKEY_ADMIN_ENABLED', description: 'Start the admin listener.' }),
    ),
    host: opt(
      text(1, undefined, {
        default: '127.0.0.1',
        env: 'PASSKEY_ADMIN_HOST',
        description: 'Its address. Keep it off the internet.',
      }),
    ),
    port: opt(
      port({
        default: 8788,
        env: 'PASSKEY_ADMIN_PORT',
        defaultText: '`8788` next to the default service port `8787`; otherwise `0`',
        description:
          "Its port (0: any free port; the bound address is printed). **When the service listens on port 0, the admin listener does too**, unless `PASSKEY_ADMIN_PORT` is set, so that services started in parallel (tests) never fight over one port. Set it explicitly in production when the service is not on 8787. It may not be the service's or the demo's address.",
      }),
    ),
    tokensFile: opt(
      text(1, undefined, {
        env: 'PASSKEY_ADMIN_TOKENS_FILE',
        defaultText: '`<dataDir>/admin-tokens.json`',
        description: 'Admin token hashes (made by `npx passkey-server admin token create`).',
      }),
    ),
    metricsRequireToken: opt(
      Type.Boolean({ default: false, description: 'Require an admin token on `/metrics` too.' }),
    ),
    allowedHosts: opt(
      Type.Array(text(1, 255, {}), {
        default: [],
        description:
          'Host names the admin listener answers for besides the loopback forms (`localhost`, `127.0.0.1`, `[::1]`) and `host`: a request whose `Host` header names another is refused with `403 HOST_NOT_ALLOWED` (DNS rebinding). Add the name you reach it by when that is neither, e.g. behind a private proxy.',
      }),
    ),
  },
  { description: 'The admin listener (health, readiness, metrics, OpenAPI, admin API).' },
);
export const RateLimitsSchema = section(
  {
    store: opt(
      text(1, undefined, {
        pattern: '^(memory|rediss?://.*)$',
        detail: 'must be "memory" or a redis:// URL',
        default: 'memory',
        env: 'PASSKEY_RATE_LIMIT_STORE',
        description: '`memory` (one instance) or a `redis://` URL shared by every instance.',
      }),
    ),
    keyPrefix: opt(text(1, undefined, { default: 'passkey:rl:', description: 'Redis key prefix.' })),
    perApplication: opt(
      rule({
        default: { burst: 2000, perSecond: 1000 },
        description:
          'One bucket per Client ID (all its callers together), counting only calls that passed its relay secret check; `null`: none.',
      }),
    ),
    perAddress: opt(
      rule({
        default: { burst: 1000, perSecond: 500 },
        description: 'One bucket per caller address (IPv6: per /64); `null`: none.',
      }),
    ),
    applications: opt(
      Type.Record(Type.String(), rule({}), {
        default: {},
        description: 'Per-application overrides of `perApplication` (`null`: unlimited).',
      }),
    ),
    exemptAddresses: opt(
      Type.Array(Type.String(), { default: [], description: 'Never limited per address (e.g. your relays).' }),
    ),
    onStoreError: opt(
      literals(['allow', 'deny'], {
        default: 'allow',
        description: 'When the bucket store fails: admit (and log) or refuse with 429.',
      }),
    ),
  },
  {
    description:
      'Token buckets on the four operations; a refused request answers 429 `RATE_LIMITED` with `Retry-After` (`docs/operations.md`).',
  },
);
export const AuditSchema = section(
  {
    maxEvents: opt(
      integer(100, 10_000_000, {
        default: 100_000,
        description: 'Bound of the in-memory audit log (the SQLite and PostgreSQL logs keep everything).',
      }),
    ),
    options: opt(
      literals(['failures', 'all'], {
        default: 'failures',
        description: 'Audit options calls only when they fail, or all of them.',
      }),
    ),
  },
  { description: 'The audit log (`docs/admin.md`).' },
);

/** The operations keys (src/config/ops.ts turns them into OpsOptions). */
export const opsFields = {
  admin: opt(AdminSchema),
  rateLimits: opt(RateLimitsSchema),
  audit: opt(AuditSchema),
  applicationCacheMs: opt(
    integer(0, 600_000, {
      default: 5000,
      description: 'How long an application lookup is reused (admin changes reach other instances within this time).',
    }),
  ),
  shutdownDeadlineMs: opt(
    integer(0, 600_000, {
      default: 10_000,
      env: 'PASSKEY_SHUTDOWN_DEADLINE_MS',
      description:
        'How long graceful shutdown waits for requests in flight before cutting their connections (in a container, keep it below the stop timeout of the engine, 10 s by default, so that a stop ends before the engine kills).',
    }),
  ),
  requestLog: opt(
    Type.Boolean({ default: true, description: 'One JSON log line per request of the four operations.' }),
  ),
};
