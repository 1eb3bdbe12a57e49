// Turns a JSON config file (or the built-in default) plus environment overrides into a validated
// ServiceConfig, or throws a ConfigError listing every problem. Paths in the file are relative to the file;
// paths given by environment variables (or the built-in default) are relative to the working directory.
// The sections are read by storage.ts, listen.ts (listeners and demo), application.ts and ops.ts.

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { ApplicationConfig, ServiceConfig } from '../config.js';
import { readApplication } from './application.js';
import {
  describe,
  isObject,
  readArray,
  readBoolean,
  readInteger,
  readObject,
  readString,
  Problems,
  type JsonObject,
} from './checks.js';
import { builtInConfig, DEFAULTS } from './defaults.js';
import { applyEnvOverrides } from './env.js';
import { ConfigError } from './errors.js';
import { readDemo, readListen } from './listen.js';
import { readOps } from './ops.js';
import { readChallenges, readDatabase, readSqliteWriter } from './storage.js';
import { keysOf, LimitsSchema, LocalSchema, TOP_LEVEL_KEYS } from '../schemas/config.js';

export { ConfigError } from './errors.js';

export interface LoadConfigOptions {
  /** The config file; without one, the built-in default configuration is used. */
  readonly file?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export { TOP_LEVEL_KEYS };

/** `<vendor> AppID: <client id>`: the vendor word is one token. */
const VENDOR_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export function loadConfig(options: LoadConfigOptions): ServiceConfig {
  const file = options.file === undefined ? undefined : resolve(options.cwd, options.file);
  const raw = file === undefined ? builtInConfig() : readJsonFile(file);
  const problems = new Problems();
  const fromEnv = applyEnvOverrides(raw, options.env, problems);
  if (file === undefined) followDemoPort(raw);
  const fileDir = file === undefined ? options.cwd : dirname(file);
  const resolvePath = (keyPath: string, value: string): string =>
    isAbsolute(value) ? value : resolve(fromEnv.has(keyPath) ? options.cwd : fileDir, value);
  const config = validateConfig(raw, problems, resolvePath);
  if (problems.list.length > 0 || config === undefined) {
    throw new ConfigError(
      problems.list.length > 0 ? problems.list : ['the configuration is unusable'],
      file ?? 'built-in defaults',
    );
  }
  return config;
}

/**
 * Built-in default only: the demo application's origins name the demo's port, so when PASSKEY_DEMO_PORT
 * moves the demo, its origins move with it (port 0 is left alone: the real port is known only later).
 */
function followDemoPort(raw: JsonObject): void {
  const demo = raw.demo;
  const apps = raw.applications;
  if (!isObject(demo) || !Array.isArray(apps) || !isObject(apps[0])) return;
  const port = demo.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port <= 0 || port > 65535 || port === DEFAULTS.demo.port)
    return;
  const app = apps[0];
  app.origins = [`https://${String(app.domain)}:${port}`];
  app.localOrigins = [`https://localhost:${port}`];
}

function readJsonFile(file: string): JsonObject {
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
): ServiceConfig | undefined {
  const top = readObject(problems, '', raw, TOP_LEVEL_KEYS);
  if (top === undefined) return undefined;
  const listen = readListen(problems, 'listen', top.listen ?? {}, DEFAULTS.listen);
  const vendor =
    top.vendor === undefined
      ? DEFAULTS.vendor
      : readString(problems, 'vendor', top.vendor, {
          max: 64,
          pattern: VENDOR_PATTERN,
          hint: 'one word of letters, digits, ".", "_" or "-"',
        });
  const dataDirText =
    top.dataDir === undefined ? DEFAULTS.dataDir : readString(problems, 'dataDir', top.dataDir, { max: 4096 });
  const dataDir = dataDirText === undefined ? undefined : resolvePath('dataDir', dataDirText);
  const secretsText =
    top.secretsFile === undefined ? undefined : readString(problems, 'secretsFile', top.secretsFile, { max: 4096 });
  const secretsFile =
    secretsText !== undefined
      ? resolvePath('secretsFile', secretsText)
      : top.secretsFile === undefined && dataDir !== undefined
        ? join(dataDir, DEFAULTS.secretsFileName)
        : undefined;
  const database =
    top.database === undefined
      ? dataDir === undefined
        ? undefined
        : { kind: 'sqlite' as const, path: join(dataDir, DEFAULTS.databaseFile) }
      : readDatabase(problems, top.database, resolvePath);
  const challenges =
    top.challenges === undefined ? { kind: 'memory' as const } : readChallenges(problems, top.challenges);
  const sqliteWriter = top.sqliteWriter === undefined ? undefined : readSqliteWriter(problems, top.sqliteWriter);
  const local = readLocal(problems, top.local);
  const demo = readDemo(problems, top.demo);
  const limits = readLimits(problems, top.limits);
  const applications = readApplications(problems, top.applications, resolvePath);
  const ops = readOps(top, { problems, dataDir, resolvePath, listenPort: listen?.port });

  if (demo?.enabled && applications !== undefined && applications.length === 0) {
    problems.add('demo.enabled', 'the demo needs an application to serve (it serves the first of applications)');
  }
  if (
    demo?.enabled &&
    listen !== undefined &&
    demo.port !== 0 &&
    demo.port === listen.port &&
    demo.host === listen.host
  ) {
    problems.add('demo.port', `the demo and the service cannot both listen on ${listen.host}:${listen.port}`);
  }
  if (ops?.admin.enabled && ops.admin.port !== 0) {
    const { host, port } = ops.admin;
    if (listen !== undefined && port === listen.port && host === listen.host)
      problems.add('admin.port', `the admin listener and the service cannot both listen on ${host}:${port}`);
    if (demo?.enabled && port === demo.port && host === demo.host)
      problems.add('admin.port', `the admin listener and the demo cannot both listen on ${host}:${port}`);
  }
  if (
    listen === undefined ||
    vendor === undefined ||
    dataDir === undefined ||
    secretsFile === undefined ||
    database === undefined ||
    challenges === undefined ||
    local === undefined ||
    demo === undefined ||
    limits === undefined ||
    applications === undefined ||
    ops === undefined
  ) {
    return undefined;
  }
  return {
    listen,
    database,
    ...(sqliteWriter ? { sqliteWriter } : {}),
    challenges,
    local,
    demo,
    vendor,
    dataDir,
    secretsFile,
    limits,
    applications,
    ops,
  };
}
function readLocal(problems: Problems, raw: unknown): { enabled: boolean } | undefined {
  if (raw === undefined) return { enabled: DEFAULTS.localEnabled };
  const local = readObject(problems, 'local', raw, keysOf(LocalSchema));
  if (local === undefined) return undefined;
  const enabled =
    local.enabled === undefined ? DEFAULTS.localEnabled : readBoolean(problems, 'local.enabled', local.enabled);
  return enabled === undefined ? undefined : { enabled };
}
function readLimits(problems: Problems, raw: unknown): ServiceConfig['limits'] | undefined {
  const limits = readObject(problems, 'limits', raw ?? {}, keysOf(LimitsSchema));
  if (limits === undefined) return undefined;
  const read = (key: 'bodyBytes' | 'usernameLength' | 'displayNameLength', min: number, max: number) =>
    limits[key] === undefined ? DEFAULTS.limits[key] : readInteger(problems, `limits.${key}`, limits[key], min, max);
  const bodyBytes = read('bodyBytes', 1024, 16 * 1024 * 1024);
  const usernameLength = read('usernameLength', 8, 4096);
  const displayNameLength = read('displayNameLength', 1, 4096);
  return bodyBytes === undefined || usernameLength === undefined || displayNameLength === undefined
    ? undefined
    : { bodyBytes, usernameLength, displayNameLength };
}

function readApplications(
  problems: Problems,
  raw: unknown,
  resolvePath: (keyPath: string, value: string) => string,
): ApplicationConfig[] | undefined {
  if (raw === undefined) {
    problems.add('applications', 'is required: the list of applications (Client IDs) this service serves');
    return undefined;
  }
  // Duplicates are checked by Client ID (two entries may differ elsewhere), and on the raw entries so that
  // they are reported even when another entry has problems of its own.
  const apps = readArray(
    problems,
    'applications',
    raw,
    (path, value) => readApplication({ problems, resolvePath }, path, value),
    { unique: false },
  );
  const seen = new Map<string, number>();
  let duplicate = false;
  (Array.isArray(raw) ? raw : []).forEach((entry, index) => {
    const clientId = isObject(entry) && typeof entry.clientId === 'string' ? entry.clientId : undefined;
    if (clientId === undefined) return;
    const first = seen.get(clientId);
    if (first !== undefined) {
      problems.add(
        `applications[${index}].clientId`,
        `${JSON.stringify(clientId)} is already used by applications[${first}]`,
      );
      duplicate = true;
    } else {
      seen.set(clientId, index);
    }
  });
  return duplicate ? undefined : apps;
}
