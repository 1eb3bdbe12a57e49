// The environment: the variables that override single keys of the config file (each key's `env` in
// src/schemas/config.ts), and the settings only the environment gives. src/config/env.ts reads them.
import { ConfigFileSchema } from './config.js';
import { integer, opt } from './config-keys.js';
import { type TSchema, Type } from './typebox.js';
import { literals } from './values.js';

/** Settings only the environment gives (no key of the file): read by src/config/ and src/secrets/load.ts. */
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

/**
 * The OpenTelemetry variables the trace export reads, by OpenTelemetry's own names (src/config/tracing.ts,
 * which also holds the rules between them). Without an endpoint there are no traces.
 */
export const TracingEnvironmentSchema = Type.Object({
  OTEL_EXPORTER_OTLP_ENDPOINT: opt(
    Type.String({
      description:
        "The collector's OTLP/HTTP base URL (`http://` or `https://`); spans go to `<it>/v1/traces`. Setting it turns traces on.",
    }),
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: opt(
    Type.String({ description: 'The full traces URL, used as it is (wins over the one above).' }),
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: opt(
    literals(['http/protobuf', 'http/json'], {
      default: 'http/protobuf',
      description: '`http/protobuf` (default) or `http/json`; `grpc` is not offered and stops the start.',
    }),
  ),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: opt(
    literals(['http/protobuf', 'http/json'], { description: 'The same for the traces; wins over the one above.' }),
  ),
  OTEL_EXPORTER_OTLP_HEADERS: opt(
    Type.String({
      description: 'Headers sent to the collector, `key=value,key2=value2` (values percent-encoded).',
    }),
  ),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: opt(
    Type.String({ description: 'More headers for the traces, in the same form (win over the ones above).' }),
  ),
  OTEL_SERVICE_NAME: opt(
    Type.String({
      default: 'passkey-server',
      description: "The resource's `service.name` (default `passkey-server`).",
    }),
  ),
  OTEL_SDK_DISABLED: opt(Type.String({ description: '`true`: no traces, whatever else is set.' })),
  OTEL_TRACES_EXPORTER: opt(
    literals(['otlp', 'none'], {
      default: 'otlp',
      description: '`otlp` (default) or `none` (no traces); anything else stops the start.',
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
