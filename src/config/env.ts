// The environment: the variables that override single keys of the config file (each key's `env` in
// src/schemas/config.ts, listed by ENV_OVERRIDES), the log level and the metadata check interval (the
// settings only the environment gives, src/schemas/environment.ts). One rule for every variable: an empty
// one counts as unset, a whole number is digits, a boolean is true/false, 1/0, yes/no or on/off.

import { ENV_OVERRIDES, type EnvOverride, EnvironmentSchema } from '../schemas/environment.js';
import type { LogLevel } from '../util/log.js';
import { isObject, type Problems, type Raw } from './checks.js';

export { ENV_OVERRIDES };
export type Env = Readonly<Record<string, string | undefined>>;

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

function convert(type: EnvOverride['type'], text: string): { value: unknown } | { problem: string } {
  if (type === 'string') return { value: text };
  if (type === 'integer') {
    return /^[0-9]{1,9}$/.test(text.trim())
      ? { value: Number(text.trim()) }
      : { problem: `must be a whole number, got ${JSON.stringify(text)}` };
  }
  const word = text.trim().toLowerCase();
  if (TRUE.includes(word)) return { value: true };
  if (FALSE.includes(word)) return { value: false };
  return { problem: `must be true or false (also 1/0, yes/no, on/off), got ${JSON.stringify(text)}` };
}

/**
 * Writes every set (non-empty) override into `raw` and returns the dotted key paths it set, so paths they
 * carry resolve against the working directory and problems name the variable.
 */
export function applyEnvOverrides(raw: Raw, env: Env, problems: Problems): Set<string> {
  const applied = new Set<string>();
  for (const override of ENV_OVERRIDES) {
    const text = env[override.name];
    if (text === undefined || text === '') continue;
    const converted = convert(override.type, text);
    if ('problem' in converted) {
      problems.add(override.name, converted.problem);
      continue;
    }
    let target: Raw | undefined = raw;
    for (const part of override.key.slice(0, -1)) {
      if (target[part] === undefined) target[part] = {};
      const next: unknown = target[part];
      // A parent that is not an object is reported by validation; the override is then moot.
      target = isObject(next) ? next : undefined;
      if (target === undefined) break;
    }
    if (target !== undefined) target[override.key[override.key.length - 1]!] = converted.value;
    const dotted = override.key.join('.');
    problems.sources.set(dotted, override.name);
    applied.add(dotted);
  }
  return applied;
}

/** The largest port (the schema's one bound), for the `--port` flag. */
export { PORT_MAX } from '../schemas/config-keys.js';

export const LOG_LEVEL_ENV = 'PASSKEY_LOG_LEVEL';
export const METADATA_CHECK_ENV = 'PASSKEY_METADATA_CHECK_INTERVAL_MS';

/**
 * A setting only the environment gives (src/schemas/environment.ts), or its default: a word among the
 * schema's (any case; another word: the default), or a whole number in its bounds (another value: a
 * problem `NAME: <what was expected>, got "<value>"`, and the default).
 */
export function envSetting(env: Env, name: keyof typeof EnvironmentSchema.properties, problems: string[]): unknown {
  const schema = EnvironmentSchema.properties[name] as unknown as Readonly<Record<string, unknown>>;
  const text = env[name]?.trim();
  if (text === undefined || text === '') return schema.default;
  if (Array.isArray(schema.anyOf)) {
    const word = text.toLowerCase();
    return schema.anyOf.some((literal: { const: unknown }) => literal.const === word) ? word : schema.default;
  }
  if (schema.type !== 'integer') return text;
  const value = /^[0-9]{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (value >= (schema.minimum as number) && value <= (schema.maximum as number)) return value;
  problems.push(`${name}: ${String(schema.detail)}, got ${JSON.stringify(env[name])}`);
  return schema.default;
}

/** PASSKEY_LOG_LEVEL (debug, info, warn, error, silent; anything else: info). */
export const logLevelOf = (env: Env): LogLevel => envSetting(env, LOG_LEVEL_ENV, []) as LogLevel;

/** How often every instance stats its metadata BLOB files and reloads a changed one (src/applications/metadata-watch.ts). */
export const metadataCheckIntervalMs = (env: Env, problems: string[]): number =>
  envSetting(env, METADATA_CHECK_ENV, problems) as number;

/** The process's environment: the one place of the service that reads `process.env` (for src/cli/bin.ts). */
export function processEnvironment(): Env {
  return process.env;
}
