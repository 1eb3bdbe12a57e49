// The config file's shape (docs/configuration.md), its environment overrides and the settings only the
// environment gives: every key with its type, bounds, default, meaning and the variable that overrides it.
// The loader (src/config/) validates with this schema compiled once, takes the defaults from it and keeps
// only what no shape can say; docs/configuration.md's tables and assets/config.schema.json are written from
// it (scripts/gen-config-schema.mjs). Our own keywords (dropped from the JSON Schema): `env` (the variable
// that overrides the key), `defaultText` (a default the loader computes), `patternDetail` (a pattern in
// words), `detail` (the expectation in words), `missing` (the sentence for a required key left out),
// `wordedByLoader` (the loader checks this value and words its problems itself).

import { ApplicationFileSchema } from './applications.js';
import { opsFields } from './config-ops.js';
import { WebhookDeliverySchema } from './webhook-shapes.js';
import { host, integer, opt, path, PORT_MAX, port, section, text } from './config-keys.js';
import { jsonSchema, Type, withDefaults } from './typebox.js';

export const ListenSchema = section(
  {
    host: opt(host({ default: '127.0.0.1', env: 'PASSKEY_HOST', description: 'Address of the HTTP service.' })),
    port: opt(port({ default: 8787, env: 'PASSKEY_PORT', description: 'Its port (0: any free port).' })),
  },
  { description: 'Address of the HTTP service. Either key may be left out.' },
);
export const LimitsSchema = section(
  {
    bodyBytes: opt(
      integer(1024, 16 * 1024 * 1024, {
        default: 65_536,
        env: 'PASSKEY_BODY_BYTES',
        description: 'Largest request body (larger: 413).',
      }),
    ),
    usernameLength: opt(integer(8, 4096, { default: 256, description: 'Longest `username` (including `#domain`).' })),
    displayNameLength: opt(integer(1, 4096, { default: 256, description: 'Longest `displayName`.' })),
  },
  { description: 'Request bounds.' },
);
export const DemoSchema = section(
  {
    enabled: opt(
      Type.Boolean({
        default: false,
        env: 'PASSKEY_DEMO_ENABLED',
        defaultText: '`false`; `true` in the built-in default',
        description: 'Serve the demo page.',
      }),
    ),
    host: opt(host({ default: '127.0.0.1', env: 'PASSKEY_DEMO_HOST', description: "The demo page's address." })),
    port: opt(port({ default: 8443, env: 'PASSKEY_DEMO_PORT', description: "The demo page's port." })),
    devHostnames: opt(
      Type.Array(host({ format: 'dev-hostname' }), {
        maxItems: 20,
        uniqueItems: true,
        default: [],
        description:
          'Development hostnames other than `localhost` (e.g. `"dev.example.test"`) that also serve the demo\'s local page: added to the demo\'s certificate and listed in its `/.well-known/webauthn` (`docs/demo.md`). Lower-case host names, not IP addresses, not `localhost` itself, at most 20. The application must list their origins in `localOrigins`.',
      }),
    ),
  },
  {
    description:
      'The HTTPS demo login page. It serves the **first** application of `applications` and reaches the service through the relay. With a config file it is off unless `"enabled": true`.',
  },
);
export const LocalSchema = section(
  {
    enabled: opt(
      Type.Boolean({ default: true, env: 'PASSKEY_LOCAL_ENABLED', description: 'Enable the local variant.' }),
    ),
  },
  {
    description:
      'The local (development) variant. **Switch it off in production** (`false`): it is for development only and the service warns at start while it is on.',
  },
);

export const ConfigFileSchema = Type.Object(
  {
    $schema: opt(
      Type.String({
        description:
          "Ignored (for editors: the config file's JSON Schema is `assets/config.schema.json`, in the package `node_modules/passkey-server/assets/config.schema.json`).",
      }),
    ),
    listen: opt(ListenSchema),
    database: opt(
      path({
        format: 'database',
        env: 'PASSKEY_DATABASE',
        defaultText: '`sqlite:<dataDir>/fido2.db`',
        description:
          '`sqlite:<path>` or a `postgres://` / `postgresql://` URL. A PostgreSQL URL may carry `?schema=<name>` (default `public`). See `docs/storage.md`, `docs/deployment.md`.',
      }),
    ),
    sqliteWriter: opt(
      text(1, 16, {
        format: 'sqlite-writer',
        env: 'PASSKEY_SQLITE_WRITER',
        defaultText: '`"auto"`',
        description:
          "SQLite only (ignored on PostgreSQL): how credential writes and audit rows reach the disk. All modes group-commit (the writes that arrive together share one transaction and one flush; each answer still waits for its flush). `thread`: on a writer thread, so the service never stops for a flush; `inline`: on the service's own event loop (no second JavaScript heap, no thread hand-off); `auto`: `thread` when the process may use two or more cores, `inline` when it is confined to one. See `docs/storage.md` and `docs/performance.md`.",
      }),
    ),
    challenges: opt(
      path({
        format: 'challenges',
        default: 'memory',
        env: 'PASSKEY_CHALLENGES',
        description:
          'Where pending ceremonies live: `memory` (one instance), `database` (a table of the configured database, shared by every instance on it) or a `redis://` / `rediss://` URL (may carry `?prefix=<key prefix>`). Several instances need `database` or Redis.',
      }),
    ),
    local: opt(LocalSchema),
    demo: opt(DemoSchema),
    vendor: opt(
      text(1, 64, {
        pattern: '^[A-Za-z0-9._-]{1,64}$',
        patternDetail: 'one word of letters, digits, ".", "_" or "-"',
        default: 'Vendor',
        env: 'PASSKEY_VENDOR',
        description:
          'The vendor word of the `User-agent: <vendor> AppID: <client id>` header: one word of letters, digits, `.`, `_`, `-`.',
      }),
    ),
    dataDir: opt(
      path({
        default: './data',
        env: 'PASSKEY_DATA_DIR',
        description: "Folder of generated secrets, the default SQLite file and the demo's files.",
      }),
    ),
    secretsFile: opt(
      path({
        env: 'PASSKEY_SECRETS_FILE',
        defaultText: '`<dataDir>/secrets.json`',
        description: 'The key file (see Secrets).',
      }),
    ),
    limits: opt(LimitsSchema),
    answerFloorMs: opt(
      integer(0, 1000, {
        default: 5,
        env: 'PASSKEY_ANSWER_FLOOR_MS',
        description:
          'Milliseconds after a request\'s arrival before the answers that could tell a registered user from an unknown one may leave: every assertion options call by name and every failed assertion result (not the nameless options, not a successful result, not an application with `revealUnknownUsers`). While the work takes less, both kinds of user are answered at the same time whatever it cost (`docs/decisions.md`, "Options responses"). 0 switches it off.',
      }),
    ),
    applications: Type.Array(ApplicationFileSchema, {
      maxItems: 1000,
      missing: 'is required: the list of applications (Client IDs) this service serves',
      defaultText: 'the demo application (built-in default only)',
      description:
        "The Client IDs this service serves; may be empty when the demo is off. They are written into the database's application store at every start (`docs/admin.md`).",
    }),
    webhookDelivery: opt(WebhookDeliverySchema),
    ...opsFields,
  },
  { additionalProperties: false, description: 'The passkey-server config file (docs/configuration.md).' },
);

/**
 * What `serve` runs without --config: SQLite in ./data (no `database`, so PASSKEY_DATA_DIR moves it too), memory
 * challenges, the demo on. `algorithms`: its application's (docs/demo.md, "Post-quantum passkeys").
 */
export function builtInConfig(algorithms: readonly number[]): Record<string, unknown> {
  const demoApplication = { clientId: 'demo-client', name: 'Demo IdP', domain: 'demo.localhost', algorithms };
  const urls = { origins: ['https://demo.localhost:8443'], localOrigins: ['https://localhost:8443'] };
  return {
    local: { enabled: true },
    demo: { enabled: true },
    applications: [{ ...demoApplication, ...urls, variants: ['standard', 'local'] }],
  };
}

const DEMO_PORT = DemoSchema.properties.port.default as number;

/**
 * Built-in default only: the demo application's origins name the demo's port, so when PASSKEY_DEMO_PORT
 * moves the demo, its origins move with it (port 0 is left alone: the real port is known only later).
 */
export function followDemoPort(raw: Record<string, unknown>): void {
  const { demo, applications: apps } = raw as { demo?: unknown; applications?: unknown };
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(demo) || !Array.isArray(apps) || !isObject(apps[0])) return;
  const port = demo.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port <= 0 || port > PORT_MAX || port === DEMO_PORT) return;
  const app = apps[0];
  app.origins = [`https://${String(app.domain)}:${port}`];
  app.localOrigins = [`https://localhost:${port}`];
}

/** The request bounds of a configuration that sets none. */
export const DEFAULT_LIMITS = withDefaults(LimitsSchema, {}) as {
  readonly bodyBytes: number;
  readonly usernameLength: number;
  readonly displayNameLength: number;
};

/** `answerFloorMs` of a configuration that sets none. */
export const DEFAULT_ANSWER_FLOOR_MS = ConfigFileSchema.properties.answerFloorMs.default as number;

/** The file's JSON Schema 2020-12, as assets/config.schema.json holds it. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'passkey-server configuration',
    ...jsonSchema(ConfigFileSchema),
  };
}
