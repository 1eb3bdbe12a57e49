// The config file's shape (docs/configuration.md): every key the loader knows, its type, bounds and
// meaning. The loader (config/load.ts, config/ops-options.ts, config/application.ts) takes its known keys
// from here, and `assets/config.schema.json` (for editors, through the file's `$schema` key) is this schema
// written out. The validation itself stays hand-written there: it reports every problem at once, names the
// environment variable behind a value, and checks what no shape can say (origins under the domain, files
// that must exist and parse, ports that must differ, URLs with credentials redacted in messages).

import { jsonSchema, Type } from './typebox.js';
import { ApplicationFileSchema } from './applications.js';

const object = (properties: Parameters<typeof Type.Object>[0], description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description === undefined ? {} : { description }) });
const port = (description?: string) =>
  Type.Integer({ minimum: 0, maximum: 65_535, ...(description === undefined ? {} : { description }) });
const path = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });
const integer = (minimum: number, maximum: number, description?: string) =>
  Type.Integer({ minimum, maximum, ...(description === undefined ? {} : { description }) });

export const ListenSchema = object({
  host: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
  port: Type.Optional(port()),
});
export const LimitsSchema = object({
  bodyBytes: Type.Optional(integer(1024, 16 * 1024 * 1024, 'Largest request body, in bytes.')),
  usernameLength: Type.Optional(integer(8, 4096)),
  displayNameLength: Type.Optional(integer(1, 4096)),
});
export const DemoSchema = object({
  enabled: Type.Optional(Type.Boolean()),
  host: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
  port: Type.Optional(port()),
  devHostnames: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
      maxItems: 20,
      description: "Development hostnames other than localhost that also serve the demo's local page (docs/demo.md).",
    }),
  ),
});
export const LocalSchema = object({ enabled: Type.Optional(Type.Boolean()) });

export const RateLimitRuleSchema = object({
  burst: Type.Number({ minimum: 1 }),
  perSecond: Type.Number({ exclusiveMinimum: 0 }),
});
const RateLimitRule = Type.Union([RateLimitRuleSchema, Type.Null()], {
  description: '{"burst": n, "perSecond": n}, or null: no limit.',
});

export const AdminSchema = object(
  {
    enabled: Type.Optional(Type.Boolean()),
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(port()),
    tokensFile: Type.Optional(path('Admin token hashes (default `<dataDir>/admin-tokens.json`).')),
    metricsRequireToken: Type.Optional(Type.Boolean()),
  },
  'The admin listener (health, readiness, metrics, OpenAPI, admin API).',
);
export const RateLimitsSchema = object({
  store: Type.Optional(
    Type.String({ minLength: 1, pattern: '^(memory|rediss?://.*)$', description: '`memory` or a redis:// URL.' }),
  ),
  keyPrefix: Type.Optional(Type.String({ minLength: 1 })),
  perApplication: Type.Optional(RateLimitRule),
  perAddress: Type.Optional(RateLimitRule),
  applications: Type.Optional(Type.Record(Type.String(), RateLimitRule, { description: 'Client ID → rule.' })),
  exemptAddresses: Type.Optional(Type.Array(Type.String())),
  onStoreError: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny')])),
});
export const AuditSchema = object({
  maxEvents: Type.Optional(integer(100, 10_000_000)),
  options: Type.Optional(Type.Union([Type.Literal('failures'), Type.Literal('all')])),
});

/** The operations keys (config/ops-options.ts reads them). */
const opsFields = {
  admin: Type.Optional(AdminSchema),
  rateLimits: Type.Optional(RateLimitsSchema),
  audit: Type.Optional(AuditSchema),
  applicationCacheMs: Type.Optional(integer(0, 600_000)),
  shutdownDeadlineMs: Type.Optional(integer(0, 600_000)),
  requestLog: Type.Optional(Type.Boolean()),
};
export const OPS_TOP_LEVEL_KEYS = Object.keys(opsFields) as (keyof typeof opsFields)[];

export const ConfigFileSchema = object(
  {
    $schema: Type.Optional(Type.String({ description: 'Ignored (for editors).' })),
    listen: Type.Optional(ListenSchema),
    database: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        pattern: '^(sqlite:.+|postgres(ql)?://.*)$',
        description: '`sqlite:<path>` or a `postgres://` URL.',
      }),
    ),
    sqliteWriter: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('thread'), Type.Literal('inline')])),
    challenges: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        pattern: '^(memory|database|rediss?://.*)$',
        description: '`memory`, `database` or a `redis://` URL.',
      }),
    ),
    local: Type.Optional(LocalSchema),
    demo: Type.Optional(DemoSchema),
    vendor: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9._-]{1,64}$',
        description: 'The vendor word of `User-agent: <vendor> AppID: <client id>`.',
      }),
    ),
    dataDir: Type.Optional(path("Folder of generated secrets, the default SQLite file and the demo's files.")),
    secretsFile: Type.Optional(path('The key file (default `<dataDir>/secrets.json`).')),
    limits: Type.Optional(LimitsSchema),
    applications: Type.Array(ApplicationFileSchema, { description: 'The Client IDs this service serves.' }),
    ...opsFields,
  },
  'The passkey-server config file (docs/configuration.md).',
);

/** The file's JSON Schema 2020-12, as assets/config.schema.json holds it. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'passkey-server configuration',
    ...jsonSchema(ConfigFileSchema),
  };
}

/** The keys a config file may hold at the top level; any other is a typo the loader reports. */
export const TOP_LEVEL_KEYS = Object.keys(ConfigFileSchema.properties);
/** The keys of an object of the config file, by its top-level key (listen, demo, limits, admin …). */
export function keysOf(schema: { readonly properties: Readonly<Record<string, unknown>> }): string[] {
  return Object.keys(schema.properties);
}
