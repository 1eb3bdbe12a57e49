// The environment: the variables that override single keys of the config file (each key's `env` in
// src/schemas/config.ts), and the settings only the environment gives. src/config/env.ts reads them.
import { ConfigFileSchema } from './config.js';
import { integer, opt } from './config-keys.js';
import { type TSchema, Type } from './typebox.js';
import { literals } from './values.js';

/** Settings only the environment gives (no key of the file): read by src/config/ and src/config/secrets.ts. */
export const EnvironmentSchema = Type.Object({
  PASSKEY_USER_HANDLE_KEY: opt(
    Type.String({
      description: 'The user-handle HMAC key: 32 random bytes, base64 or base64url (`openssl rand -base64 32`).',
    }),
  ),
  PASSKEY_LOCAL_BLOB_KEYS: opt(
    Type.String({
      description:
        'Local-blob keys, newest first: `<id>:<base64 32 bytes>[,<id>:<key>…]`. The first seals new blobs; all open. Ids: 1–32 of `A-Z a-z 0-9 _ -`.',
    }),
  ),
  PASSKEY_LOG_LEVEL: opt(
    literals(['debug', 'info', 'warn', 'error', 'silent'], {
      default: 'info',
      description: '`debug`, `info` (default), `warn`, `error` or `silent`; anything else: `info`.',
    }),
  ),
  PASSKEY_METADATA_CHECK_INTERVAL_MS: opt(
    integer(0, 86_400_000, {
      default: 60_000,
      detail: 'must be milliseconds from 0 (no periodic check) to 86400000',
      description:
        'How often each instance stats its metadata BLOB files and their CRL files (`attestation.metadataCrls`) and reloads when one changed (default `60000`; `0` = never, `SIGHUP` still reloads; at most `86400000`). A bad value stops the start like a configuration problem. See `docs/attestation.md`.',
    }),
  ),
});

/** A key of the file that an environment variable overrides. */
export interface EnvOverride {
  readonly name: string;
  /** Key path in the config file. */
  readonly key: readonly string[];
  readonly type: 'string' | 'integer' | 'boolean';
}

/** Every key of the schema with an `env`, in the schema's order. */
export const ENV_OVERRIDES: readonly EnvOverride[] = envOverrides(ConfigFileSchema, []);

function envOverrides(schema: TSchema, key: readonly string[]): EnvOverride[] {
  const found: EnvOverride[] = [];
  if (typeof schema.env === 'string') {
    const type = schema.type === 'integer' || schema.type === 'boolean' ? schema.type : 'string';
    found.push({ name: schema.env, key, type });
  }
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>))
    found.push(...envOverrides(child, [...key, name]));
  return found;
}
