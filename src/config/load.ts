// Turns a JSON config file (or the built-in default) plus environment overrides into a validated
// ServiceConfig, or throws a ConfigError listing every problem. The shape of every key, and its default,
// is the schema's (src/schemas/config.ts, compiled once); here are the checks no shape can say. Paths in
// the file are relative to the file; paths given by environment variables (or the built-in default) are
// relative to the working directory.

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { ApplicationConfig, ChallengeStoreConfig, DatabaseConfig, ServiceConfig } from '../service-config.js';
import { builtInConfig as builtInDefault, ConfigFileSchema, followDemoPort } from '../schemas/config.js';
import { configProblems, describe } from '../schemas/config-problems.js';
import { compile, withDefaults } from '../schemas/typebox.js';
import { checkApplication } from './application.js';
import { eachEntry, isObject, Problems, type Raw } from './checks.js';
import { applyEnvOverrides, type Env } from './env.js';
import { ConfigError } from './errors.js';
import { readOps } from './ops.js';
import { DEFAULT_OFFERED_ALGORITHMS, POST_QUANTUM_ALGORITHMS } from '../webauthn/cose.js';

export { ConfigError } from './errors.js';
export { redactUrl } from '../schemas/formats.js';

export interface LoadConfigOptions {
  /** The config file; without one, the built-in default configuration is used. */
  readonly file?: string;
  readonly env: Env;
  readonly cwd: string;
}

const CONFIG = compile(ConfigFileSchema);

/** The built-in default (src/schemas/config.ts): its demo application offers ML-DSA after the classical algorithms. */
export const builtInConfig = () => builtInDefault([...DEFAULT_OFFERED_ALGORITHMS, ...POST_QUANTUM_ALGORITHMS]);

export function loadConfig(options: LoadConfigOptions): ServiceConfig {
  const file = options.file === undefined ? undefined : resolve(options.cwd, options.file);
  const raw = file === undefined ? builtInConfig() : readJsonFile(file);
  const problems = new Problems();
  const fromEnv = applyEnvOverrides(raw, options.env, problems);
  if (file === undefined) followDemoPort(raw);
  const fileDir = file === undefined ? options.cwd : dirname(file);
  const resolvePath = (keyPath: string, value: string): string =>
    isAbsolute(value) ? value : resolve(fromEnv.has(keyPath) ? options.cwd : fileDir, value);
  const config = validateConfig(raw, problems, resolvePath, options.env);
  if (problems.list.length > 0 || config === undefined) {
    throw new ConfigError(
      problems.list.length > 0 ? problems.list : ['the configuration is unusable'],
      file ?? 'built-in defaults',
    );
  }
  return config;
}

function readJsonFile(file: string): Raw {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      [`cannot read the config file (${(error as NodeJS.ErrnoException).code ?? String(error)})`],
      file,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`the config file is not valid JSON: ${(error as Error).message}`], file);
  }
  if (!isObject(value))
    throw new ConfigError([`the config file must hold a JSON object, not ${describe(value)}`], file);
  return value;
}

/**
 * Validates a raw configuration object; records every problem in `problems` and returns the config only
 * when there are none. `resolvePath(keyPath, value)` makes a written path absolute.
 */
export function validateConfig(
  raw: unknown,
  problems: Problems,
  resolvePath: (keyPath: string, value: string) => string,
  env?: Env,
): ServiceConfig | undefined {
  problems.addAll(configProblems(CONFIG.failures(raw), raw));
  if (!isObject(raw)) return undefined;
  const top = withDefaults(ConfigFileSchema, raw) as Raw;
  const ok = (key: string) => problems.clean(key);
  const listen = ok('listen') ? (top.listen as ServiceConfig['listen']) : undefined;
  const dataDir = ok('dataDir') ? resolvePath('dataDir', top.dataDir as string) : undefined;
  const secretsFile =
    typeof raw.secretsFile === 'string'
      ? ok('secretsFile')
        ? resolvePath('secretsFile', raw.secretsFile)
        : undefined
      : dataDir && join(dataDir, 'secrets.json');
  const database =
    typeof raw.database !== 'string'
      ? dataDir === undefined
        ? undefined
        : { kind: 'sqlite' as const, path: join(dataDir, 'fido2.db') }
      : ok('database')
        ? readDatabase(raw.database, resolvePath)
        : undefined;
  const challenges = ok('challenges') ? readChallenges(top.challenges as string) : undefined;
  const sqliteWriter =
    typeof raw.sqliteWriter === 'string' && ok('sqliteWriter')
      ? (raw.sqliteWriter as ServiceConfig['sqliteWriter'])
      : undefined;
  const demo = top.demo as Raw;
  eachEntry(problems, 'demo.devHostnames', demo?.devHostnames);
  const applications = readApplications(problems, top, raw, resolvePath, env);
  const ops = readOps(top, raw, { problems, dataDir, resolvePath, listenPort: listen?.port });
  const demoOn = ok('demo') && demo.enabled === true;
  if (demoOn && applications?.length === 0) {
    problems.add('demo.enabled', 'the demo needs an application to serve (it serves the first of applications)');
  }
  const same = (a: { host: unknown; port: unknown }, b: { host: unknown; port: unknown } | undefined) =>
    b !== undefined && a.port === b.port && a.host === b.host;
  if (demoOn && listen !== undefined && demo.port !== 0 && same(demo as never, listen)) {
    problems.add('demo.port', `the demo and the service cannot both listen on ${listen.host}:${listen.port}`);
  }
  if (ops?.admin.enabled && ops.admin.port !== 0) {
    const { host, port } = ops.admin;
    if (same(ops.admin, listen))
      problems.add('admin.port', `the admin listener and the service cannot both listen on ${host}:${port}`);
    if (demoOn && same(ops.admin, demo as never))
      problems.add('admin.port', `the admin listener and the demo cannot both listen on ${host}:${port}`);
  }
  if (problems.list.length > 0 || dataDir === undefined || secretsFile === undefined) return undefined;
  const { enabled, host, port, devHostnames } = demo as ServiceConfig['demo'];
  return {
    listen: { host: listen!.host, port: listen!.port },
    database: database!,
    ...(sqliteWriter ? { sqliteWriter } : {}),
    challenges: challenges!,
    local: { enabled: (top.local as Raw).enabled as boolean },
    demo: { enabled, host, port, devHostnames: devHostnames ?? [] },
    vendor: top.vendor as string,
    dataDir,
    secretsFile,
    limits: top.limits as ServiceConfig['limits'],
    answerFloorMs: top.answerFloorMs as number,
    applications: applications!,
    ...(raw.webhookDelivery === undefined
      ? {}
      : { webhookDelivery: top.webhookDelivery as NonNullable<ServiceConfig['webhookDelivery']> }),
    ops: ops!,
  };
}

/** `database`, its form checked by the schema (src/schemas/formats.ts): a SQLite file or a PostgreSQL URL. */
function readDatabase(text: string, resolvePath: (keyPath: string, value: string) => string): DatabaseConfig {
  return text.startsWith('sqlite:')
    ? { kind: 'sqlite', path: resolvePath('database', text.slice('sqlite:'.length)) }
    : { kind: 'postgres', url: text };
}

/** `challenges`, its form checked by the schema: memory, the database or a Redis URL. */
const readChallenges = (text: string): ChallengeStoreConfig =>
  text === 'memory' || text === 'database' ? { kind: text } : { kind: 'redis', url: text };

function readApplications(
  problems: Problems,
  top: Raw,
  raw: Raw,
  resolvePath: (keyPath: string, value: string) => string,
  env: Env | undefined,
): ApplicationConfig[] | undefined {
  if (!Array.isArray(top.applications) || !Array.isArray(raw.applications)) return undefined;
  const written = raw.applications as unknown[];
  const delivery = isObject(top.webhookDelivery) ? top.webhookDelivery : {};
  const webhookRules = {
    allowLoopbackHttp: delivery.allowLoopbackHttp === true,
    allowPrivateAddresses: delivery.allowPrivateAddresses === true,
  };
  const apps = top.applications.map((app: unknown, index) => {
    const path = `applications[${index}]`;
    return isObject(app) && isObject(written[index])
      ? checkApplication(
          { problems, resolvePath, webhookRules, ...(env ? { env } : {}) },
          path,
          app,
          written[index] as Raw,
        )
      : undefined;
  });
  // Duplicates are checked by Client ID (two entries may differ elsewhere), and on the raw entries so that
  // they are reported even when another entry has problems of its own.
  const seen = new Map<string, number>();
  written.forEach((entry, index) => {
    const clientId = isObject(entry) && typeof entry.clientId === 'string' ? entry.clientId : undefined;
    if (clientId === undefined) return;
    const first = seen.get(clientId);
    if (first === undefined) seen.set(clientId, index);
    else
      problems.add(
        `applications[${index}].clientId`,
        `${JSON.stringify(clientId)} is already used by applications[${first}]`,
      );
  });
  return apps.every((app) => app !== undefined) ? (apps as ApplicationConfig[]) : undefined;
}
