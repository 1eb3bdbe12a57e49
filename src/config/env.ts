// Environment variables that override single settings. The table is the documentation's source: every
// variable listed here appears in docs/configuration.md (a test keeps the two in step).

import { isObject, type Json, type JsonObject, type Problems } from './checks.js';

export interface EnvOverride {
  readonly name: string;
  /** Key path in the config file. */
  readonly key: readonly string[];
  readonly type: 'string' | 'integer' | 'boolean';
}

export const ENV_OVERRIDES: readonly EnvOverride[] = [
  { name: 'PASSKEY_HOST', key: ['listen', 'host'], type: 'string' },
  { name: 'PASSKEY_PORT', key: ['listen', 'port'], type: 'integer' },
  { name: 'PASSKEY_DATABASE', key: ['database'], type: 'string' },
  { name: 'PASSKEY_CHALLENGES', key: ['challenges'], type: 'string' },
  { name: 'PASSKEY_SQLITE_WRITER', key: ['sqliteWriter'], type: 'string' },
  { name: 'PASSKEY_LOCAL_ENABLED', key: ['local', 'enabled'], type: 'boolean' },
  { name: 'PASSKEY_DATA_DIR', key: ['dataDir'], type: 'string' },
  { name: 'PASSKEY_SECRETS_FILE', key: ['secretsFile'], type: 'string' },
  { name: 'PASSKEY_VENDOR', key: ['vendor'], type: 'string' },
  { name: 'PASSKEY_BODY_BYTES', key: ['limits', 'bodyBytes'], type: 'integer' },
  { name: 'PASSKEY_DEMO_ENABLED', key: ['demo', 'enabled'], type: 'boolean' },
  { name: 'PASSKEY_DEMO_HOST', key: ['demo', 'host'], type: 'string' },
  { name: 'PASSKEY_DEMO_PORT', key: ['demo', 'port'], type: 'integer' },
  { name: 'PASSKEY_ADMIN_ENABLED', key: ['admin', 'enabled'], type: 'boolean' },
  { name: 'PASSKEY_ADMIN_HOST', key: ['admin', 'host'], type: 'string' },
  { name: 'PASSKEY_ADMIN_PORT', key: ['admin', 'port'], type: 'integer' },
  { name: 'PASSKEY_ADMIN_TOKENS_FILE', key: ['admin', 'tokensFile'], type: 'string' },
  { name: 'PASSKEY_RATE_LIMIT_STORE', key: ['rateLimits', 'store'], type: 'string' },
];

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

function convert(override: EnvOverride, text: string): { value: Json } | { problem: string } {
  if (override.type === 'string') return { value: text };
  if (override.type === 'integer') {
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
export function applyEnvOverrides(
  raw: JsonObject,
  env: Readonly<Record<string, string | undefined>>,
  problems: Problems,
): Set<string> {
  const applied = new Set<string>();
  for (const override of ENV_OVERRIDES) {
    const text = env[override.name];
    if (text === undefined || text === '') continue;
    const dotted = override.key.join('.');
    const converted = convert(override, text);
    if ('problem' in converted) {
      problems.add(override.name, converted.problem);
      continue;
    }
    const { value } = converted;
    let target: JsonObject | undefined = raw;
    for (const part of override.key.slice(0, -1)) {
      if (target[part] === undefined) target[part] = {};
      const next: Json | undefined = target[part];
      // A parent that is not an object is reported by validation; the override is then moot.
      if (!isObject(next)) {
        target = undefined;
        break;
      }
      target = next;
    }
    if (target !== undefined) target[override.key[override.key.length - 1]!] = value;
    problems.sources.set(dotted, override.name);
    applied.add(dotted);
  }
  return applied;
}

/** The process's environment: the one place of the service that reads `process.env` (for src/cli.ts). */
export function processEnvironment(): Readonly<Record<string, string | undefined>> {
  return process.env;
}
