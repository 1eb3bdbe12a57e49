// An application's `relaySecrets` (docs/configuration.md) beyond their shape: `sha256:<hex>` entries as
// written, `env:<NAME>` entries read from the environment here and kept only as their SHA-256, so the
// secret itself never travels further than this file. A malformed entry is never echoed in its problem.
import { createHash } from 'node:crypto';
import { describe } from '../schemas/config-problems.js';
import { RELAY_SECRET_ENTRY } from '../schemas/applications.js';
import { eachEntry, type Problems } from './checks.js';

/** The environment `env:` entries read (the config file's loader passes it; the admin API does not). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** A relay secret shorter than this is refused when the service reads it (an `env:` entry). */
export const MIN_RELAY_SECRET_CHARS = 16;

const ENTRY = new RegExp(RELAY_SECRET_ENTRY);

/** A new relay secret: `prs_` and 32 random bytes, base64url (the demo's, and the admin API's alike). */
export function newRelaySecret(randomBytes: (size: number) => Buffer): string {
  return `prs_${randomBytes(32).toString('base64url')}`;
}

/** `sha256:<hex>` of a secret: how the service keeps it. */
export function relaySecretHash(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex')}`;
}

/** Checks the list at `path` (shape checked), writing each `env:` entry back as the hash of its secret. */
export function checkRelaySecrets(problems: Problems, path: string, list: unknown, env: Environment | undefined): void {
  eachEntry(problems, path, list, (at, value) => resolveEntry(problems, at, value, env));
}

function resolveEntry(problems: Problems, path: string, value: unknown, env: Environment | undefined): unknown {
  if (typeof value !== 'string' || !ENTRY.test(value)) {
    return problems.addIfAny(
      path,
      `must be "sha256:<64 lowercase hex digits>" (the SHA-256 of the secret's UTF-8 bytes) or "env:<NAME>" (an environment variable that holds the secret), got ${typeof value === 'string' ? 'another string (not shown)' : describe(value)}`,
    );
  }
  if (value.startsWith('sha256:')) return value;
  const name = value.slice('env:'.length);
  if (env === undefined) {
    return problems.addIfAny(
      path,
      'env: entries are read from the environment of the service at start and belong in the config file; here give "sha256:<hex>"',
    );
  }
  const secret = env[name];
  if (secret === undefined || secret === '')
    return problems.addIfAny(path, `names the environment variable ${name}, which is not set (or empty)`);
  if ([...secret].length < MIN_RELAY_SECRET_CHARS || secret.trim() !== secret) {
    return problems.addIfAny(
      path,
      `the secret in ${name} must be at least ${MIN_RELAY_SECRET_CHARS} characters without surrounding spaces (e.g. 32 random bytes, base64url)`,
    );
  }
  return relaySecretHash(secret);
}
