// The operations keys of the config file (admin listener, rate limits, audit log, application cache,
// shutdown deadline, request log) as OpsOptions: their shapes and defaults are the schema's
// (src/schemas/config-ops.ts); here are the token file's place and the admin port the operator left out.
import { join } from 'node:path';
import type { OpsOptions } from '../service-config.js';
import { ListenSchema } from '../schemas/config.js';
import { opsFields } from '../schemas/config-ops.js';
import { Type, withDefaults } from '../schemas/typebox.js';
import type { Problems, Raw } from './checks.js';
export type { AdminListenerOptions, OpsOptions } from '../service-config.js';

const OpsSchema = Type.Object(opsFields);
const OPS_KEYS = Object.keys(opsFields);
/** The port next to the default service port (8787), and the variable that sets it. */
const { default: ADMIN_PORT, env: ADMIN_PORT_ENV } = opsFields.admin.properties.port as unknown as {
  default: number;
  env: string;
};

const DEFAULT_LISTEN_PORT = ListenSchema.properties.port.default as number;

/** The operations options of a configuration that sets none of their keys. */
export function defaultOpsOptions(dataDir: string): OpsOptions {
  return opsOptions(withDefaults(OpsSchema, {}) as Raw, join(dataDir, 'admin-tokens.json'), ADMIN_PORT);
}

function opsOptions(ops: Raw, tokensFile: string, adminPort: number): OpsOptions {
  const { admin, rateLimits, audit, applicationCacheMs, shutdownDeadlineMs, requestLog } = ops as Raw & {
    admin: OpsOptions['admin'];
  };
  return {
    admin: { ...admin, port: adminPort, tokensFile },
    rateLimits,
    audit,
    applications: { cacheMs: applicationCacheMs },
    shutdownDeadlineMs,
    requestLog,
  } as OpsOptions;
}

export interface OpsContext {
  readonly problems: Problems;
  /** The validated data folder (the default token file lives there), or undefined when it is unusable. */
  readonly dataDir: string | undefined;
  /** The loader's path resolution: relative to the config file, or to the working directory for env values. */
  readonly resolvePath: (keyPath: string, value: string) => string;
  /** The validated service port, or undefined when it is unusable. */
  readonly listenPort: number | undefined;
}

/** The options of a configuration (`top`: with its defaults; `raw`: as written), or undefined on a problem there. */
export function readOps(top: Raw, raw: Raw, ctx: OpsContext): OpsOptions | undefined {
  if (ctx.dataDir === undefined || !OPS_KEYS.every((key) => ctx.problems.clean(key))) return undefined;
  const admin = top.admin as Raw;
  const tokensFile =
    typeof admin.tokensFile === 'string'
      ? ctx.resolvePath('admin.tokensFile', admin.tokensFile)
      : join(ctx.dataDir, 'admin-tokens.json');
  const given = typeof raw.admin === 'object' && raw.admin !== null && 'port' in raw.admin;
  return opsOptions(top, tokensFile, adminPort(admin.port as number, given, ctx));
}

/**
 * Parallel services must never fight over one admin port: when the service listens on port 0 (tests), the
 * admin listener does too unless PASSKEY_ADMIN_PORT says otherwise; when the operator gave no admin port,
 * it is 8788 only next to the default service port 8787, and any free port (printed at start) otherwise.
 */
function adminPort(port: number, given: boolean, ctx: OpsContext): number {
  if (ctx.problems.sources.get('admin.port') === ADMIN_PORT_ENV) return port;
  if (ctx.listenPort === 0) return 0;
  if (given) return port;
  return ctx.listenPort === DEFAULT_LISTEN_PORT ? port : 0;
}
