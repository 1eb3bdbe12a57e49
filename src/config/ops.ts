// The operations keys of the config file (admin listener, rate limits, audit log, application cache,
// shutdown deadline, request log). Their meaning and validation belong to the operations module
// (`readOpsOptions`, src/config/ops-options.ts); this file feeds it the raw keys, turns its problems into the
// loader's (so they are reported together with every other problem), and decides the admin port when the
// operator did not.
import { isAbsolute } from 'node:path';
import { OPS_TOP_LEVEL_KEYS } from '../schemas/config.js';
import { readOpsOptions, type OpsOptions } from './ops-options.js';
import { DEFAULTS } from './defaults.js';
import { isObject, type JsonObject, type Problems } from './checks.js';

/** The environment variable that sets the admin port (in ENV_OVERRIDES). */
const ADMIN_PORT_ENV = 'PASSKEY_ADMIN_PORT';

export interface OpsContext {
  readonly problems: Problems;
  /** The validated data folder (the default token file lives there), or undefined when it is unusable. */
  readonly dataDir: string | undefined;
  /** The loader's path resolution: relative to the config file, or to the working directory for env values. */
  readonly resolvePath: (keyPath: string, value: string) => string;
  /** The validated service port, or undefined when it is unusable. */
  readonly listenPort: number | undefined;
}

export function readOps(top: JsonObject, ctx: OpsContext): OpsOptions | undefined {
  const { problems, resolvePath } = ctx;
  const raw: Record<string, unknown> = {};
  for (const key of OPS_TOP_LEVEL_KEYS) if (top[key] !== undefined) raw[key] = top[key];
  // The token file is resolved here, where it is known whether the file or PASSKEY_ADMIN_TOKENS_FILE gave it.
  const admin = raw.admin;
  if (
    isObject(admin) &&
    typeof admin.tokensFile === 'string' &&
    admin.tokensFile !== '' &&
    !isAbsolute(admin.tokensFile)
  ) {
    raw.admin = { ...admin, tokensFile: resolvePath('admin.tokensFile', admin.tokensFile) };
  }
  const found: string[] = [];
  const options = readOpsOptions(
    raw,
    ctx.dataDir ?? resolvePath('dataDir', DEFAULTS.dataDir),
    resolvePath('', '.'),
    found,
  );
  for (const problem of found) {
    // readOpsOptions writes `key.path: message`; re-adding it names the environment variable behind a key.
    const at = problem.indexOf(': ');
    if (at > 0) problems.add(problem.slice(0, at), problem.slice(at + 2));
    else problems.add('', problem);
  }
  if (found.length > 0 || ctx.dataDir === undefined) return undefined;
  return {
    ...options,
    admin: {
      ...options.admin,
      port: adminPort(options, isObject(admin) && admin.port !== undefined, problems, ctx.listenPort),
    },
  };
}

/**
 * Parallel services must never fight over one admin port: when the service listens on port 0 (tests), the
 * admin listener does too unless PASSKEY_ADMIN_PORT says otherwise; when the operator gave no admin port,
 * it is 8788 only next to the default service port 8787, and any free port (printed at start) otherwise.
 */
function adminPort(options: OpsOptions, given: boolean, problems: Problems, listenPort: number | undefined): number {
  const fromEnv = problems.sources.get('admin.port') === ADMIN_PORT_ENV;
  if (fromEnv) return options.admin.port;
  if (listenPort === 0) return 0;
  if (given) return options.admin.port;
  return listenPort === DEFAULTS.listen.port ? options.admin.port : 0;
}
