// The configurations of test/config/messages.test.ts: one per message the configuration gives, each bad in
// as many places as one file can be. Paths in messages are written `<dir>` (the case's own folder).
import { ANCHOR_PEM, minimalApp } from './support.js';

export interface MessageCase {
  readonly name: string;
  /** The config file's content (JSON-encoded unless a string); undefined: the built-in configuration. */
  readonly file?: unknown;
  readonly env?: Readonly<Record<string, string>>;
}

/** Files every case's folder holds, for the attestation paths. */
export const FIXTURE_FILES: Readonly<Record<string, string>> = {
  'anchor.pem': ANCHOR_PEM,
  'text.pem': 'hello',
  'broken.pem': '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
  'blob.jwt': 'x',
  'garbage.crl': 'garbage',
  'sub/keep.txt': 'a folder',
};

const app = minimalApp;
const apps = (...entries: unknown[]) => ({ applications: entries });

export const MESSAGE_CASES: readonly MessageCase[] = [
  { name: 'not JSON', file: '{ "listen": ' },
  { name: 'not an object', file: '[1, 2]' },
  { name: 'a string', file: '"x"' },
  {
    name: 'top-level shapes',
    file: {
      listn: {},
      listen: { host: '', port: 70000, tls: true },
      database: 'mysql://admin:hunter2@db/x',
      challenges: 'memcached://x',
      local: { enabled: 'yes' },
      demo: { enabled: 1, port: 80.5, host: 7 },
      vendor: 'Big Vendor',
      dataDir: 5,
      secretsFile: '',
      limits: { bodyBytes: 10, usernameLength: -1, displayNameLength: 'x', extra: 1 },
      sqliteWriter: 'async',
      answerFloorMs: 1001,
      applications: {},
    },
  },
  {
    name: 'top-level types',
    file: {
      listen: 8787,
      local: true,
      demo: [],
      limits: null,
      sqliteWriter: 1,
      vendor: 'x'.repeat(65),
      answerFloorMs: '5',
    },
  },
  { name: 'answer floor below 0', file: { answerFloorMs: -1, ...apps(app()) } },
  { name: 'answer floor not whole', file: { answerFloorMs: 2.5, ...apps(app()) } },
  { name: 'applications missing', file: {} },
  { name: 'the demo without applications', file: { demo: { enabled: true }, applications: [] } },
  { name: 'the demo on the service address', file: { demo: { enabled: true, port: 8787 }, ...apps(app()) } },
  { name: 'database sqlite without path', file: { database: 'sqlite:', challenges: 'redis://', ...apps(app()) } },
  { name: 'database postgres without host', file: { database: 'postgres://', challenges: 'sql', ...apps(app()) } },
  { name: 'database not a URL', file: { database: 'postgres://u:pw@[x', challenges: 'redis://[x', ...apps(app()) } },
  { name: 'database not a string', file: { database: { path: 'x' }, challenges: 5, ...apps(app()) } },
  {
    name: 'dev hostnames',
    file: {
      demo: { devHostnames: ['dev_x', 'localhost', '10.0.0.1', 'Dev.example.test', 'a.test', 'a.test', 5] },
      ...apps(app()),
    },
  },
  { name: 'dev hostnames not a list', file: { demo: { devHostnames: 'dev.example.test' }, ...apps(app()) } },
  {
    name: 'too many dev hostnames',
    file: { demo: { devHostnames: Array.from({ length: 21 }, (_, i) => `d${i}.test`) }, ...apps(app()) },
  },
  {
    name: 'application shapes',
    file: apps(
      app({ clientId: 'first' }),
      app({
        clientID: 'x',
        clientId: 'my app',
        name: '',
        icon: 1,
        variants: [],
        timeoutMs: '180',
        algorithms: [],
        userVerification: 'always',
        counterPolicy: 'lenient',
        revealUnknownUsers: 'no',
        allowCrossOrigin: 0,
        hints: ['nfc', 'hybrid', 'hybrid'],
        backupEligibility: 'sometimes',
        addPasskey: 'owner',
        maxPasskeysPerUser: 0,
        attestation: 'none',
      }),
      app({
        clientId: undefined,
        name: 5,
        domain: 7,
        origins: 'x',
        localOrigins: 5,
        variants: ['standard', 'redirect', 'redirect'],
      }),
      app({
        clientId: 'x'.repeat(129),
        timeoutMs: 1000,
        algorithms: [-7, -47, 'ES256', -7],
        relatedOrigins: 5,
        topOrigins: 5,
      }),
      app({
        clientId: '',
        timeoutMs: 3_600_001,
        hints: ['hybrid', 'client-device', 'security-key', 'hybrid'],
        userVerification: null,
      }),
      'not an object',
      app({ clientId: 'first' }),
    ),
  },
  {
    name: 'domains',
    file: apps(
      app({ clientId: 'a', domain: 'https://idp.example.test' }),
      app({ clientId: 'b', domain: 'IdP.example.test' }),
      app({ clientId: 'c', domain: '192.168.1.1', origins: ['https://192.168.1.1'] }),
      app({ clientId: 'd', domain: 'localhost' }),
      app({ clientId: 'e', domain: `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.test` }),
      app({ clientId: 'f', domain: '' }),
    ),
  },
  {
    name: 'origins',
    file: apps(
      app({
        origins: [
          'https://idp.example.test/login',
          'https://idp.example.test:443',
          'idp.example.test',
          'http://idp.example.test',
          'ftp://idp.example.test',
          'https://evil.example',
          'https://xidp.example.test',
          'https://idp.example.test',
          'https://idp.example.test',
          'android:apk-key-hash:abc',
          `android:apk-key-hash:${'A'.repeat(43)}`,
          '',
          5,
        ],
        localOrigins: ['https://localhost:8443/app', 'http://dev.example.test', 'http://localhost', 'x'.repeat(2049)],
      }),
      app({ clientId: 'b', origins: [] }),
      app({ clientId: 'c', origins: [], variants: ['local'] }),
    ),
  },
  {
    name: 'cross origin',
    file: apps(
      app({ clientId: 'a', allowCrossOrigin: true }),
      app({ clientId: 'b', allowCrossOrigin: true, topOrigins: [] }),
      app({ clientId: 'c', topOrigins: ['https://portal.example'] }),
      app({
        clientId: 'd',
        allowCrossOrigin: true,
        topOrigins: ['https://portal.example/app', 'http://portal.example'],
      }),
      app({
        clientId: 'e',
        allowCrossOrigin: true,
        topOrigins: Array.from({ length: 65 }, (_, i) => `https://p${i}.example`),
      }),
    ),
  },
  {
    name: 'related origins',
    file: apps(
      app({
        relatedOrigins: [
          'http://localhost:3000',
          'https://login.idp.example.test',
          'https://idp.example.test',
          'https://other.example',
          'https://other.example',
          'https://other.example/',
        ],
      }),
    ),
  },
  {
    name: 'attestation',
    file: apps(
      app({
        clientId: 'a',
        attestation: {
          anchors: [],
          trustAnchors: ['roots/none.pem', 'sub', 'text.pem', 'broken.pem', 'anchor.pem', 'anchor.pem', 5],
        },
      }),
      app({
        clientId: 'b',
        attestation: { metadata: 'mds.jwt', metadataRoots: ['anchor.pem'], requireTrusted: 'yes' },
      }),
      app({
        clientId: 'c',
        attestation: {
          metadataRoots: ['anchor.pem'],
          metadataCrls: ['garbage.crl'],
          enforceStatusAtAuthentication: 'x',
        },
      }),
      app({ clientId: 'd', attestation: { metadata: 'blob.jwt', metadataCrls: ['garbage.crl', 'none.crl', 'sub'] } }),
      app({
        clientId: 'e',
        attestation: {
          aaguidAllow: [
            'cb69481e8ff7403993ec0a2729a154a8',
            'cb69481e-8ff7-4039-93ec-0a2729a154a8',
            'CB69481E-8FF7-4039-93EC-0A2729A154A8',
          ],
          aaguidDeny: ['CB69481E-8FF7-4039-93EC-0A2729A154A8', 5],
        },
      }),
      app({
        clientId: 'f',
        attestation: { metadata: 7, trustAnchors: 'anchor.pem', aaguidAllow: {}, metadataCrls: [] },
      }),
      app({ clientId: 'g', attestation: { metadata: 'sub', metadataRoots: 'x', aaguidDeny: null } }),
    ),
  },
  {
    name: 'environment',
    file: apps(app()),
    env: {
      PASSKEY_PORT: '80a',
      PASSKEY_LOCAL_ENABLED: 'perhaps',
      PASSKEY_DEMO_PORT: '70000',
      PASSKEY_DATABASE: 'mongodb://x',
      PASSKEY_BODY_BYTES: '-1',
      PASSKEY_DEMO_ENABLED: 'maybe',
      PASSKEY_VENDOR: 'a b',
      PASSKEY_CHALLENGES: 'sql',
      PASSKEY_SQLITE_WRITER: 'none',
      PASSKEY_HOST: 'x'.repeat(254),
      PASSKEY_ANSWER_FLOOR_MS: '1001',
    },
  },
  {
    name: 'environment of the operations keys',
    file: apps(app()),
    env: { PASSKEY_ADMIN_PORT: '70000', PASSKEY_RATE_LIMIT_STORE: 'mysql://x', PASSKEY_ADMIN_ENABLED: 'perhaps' },
  },
  {
    name: 'environment over a bad parent',
    file: { listen: 5, admin: 'x', ...apps(app()) },
    env: { PASSKEY_PORT: '1', PASSKEY_ADMIN_HOST: 'h' },
  },
  { name: 'environment over the built-in configuration', env: { PASSKEY_DEMO_PORT: '8787', PASSKEY_DATA_DIR: '' } },
  {
    name: 'operations keys',
    file: {
      admin: { port: 70000, bogus: 1, enabled: 'yes', host: '', tokensFile: 5, metricsRequireToken: 1 },
      rateLimits: {
        store: 'mysql://x',
        keyPrefix: '',
        perApplication: { burst: 0, perSecond: -1, extra: 1 },
        perAddress: 5,
        onStoreError: 'maybe',
        applications: { a: { burst: 1 }, b: null, c: 'x' },
        exemptAddresses: [1],
        other: 1,
      },
      audit: { options: 'some', maxEvents: 5, x: 1 },
      shutdownDeadlineMs: -1,
      applicationCacheMs: 'x',
      requestLog: 'yes',
      ...apps(app()),
    },
  },
  {
    name: 'operations sections of the wrong type',
    file: { admin: 5, rateLimits: [], audit: null, ...apps(app()) },
  },
  {
    name: 'operations values of the wrong type',
    file: {
      rateLimits: { applications: [], exemptAddresses: 'x', store: 5, perAddress: { burst: 'a', perSecond: 'b' } },
      ...apps(app()),
    },
  },
  { name: 'admin on the service address', file: { listen: { port: 9000 }, admin: { port: 9000 }, ...apps(app()) } },
  {
    name: 'admin on the demo address',
    file: { demo: { enabled: true, port: 9001 }, admin: { port: 9001 }, ...apps(app()) },
  },
  { name: 'metadata check interval', file: apps(app()), env: { PASSKEY_METADATA_CHECK_INTERVAL_MS: '86400001' } },
  {
    name: 'metadata check interval not a number',
    file: apps(app()),
    env: { PASSKEY_METADATA_CHECK_INTERVAL_MS: 'soon' },
  },
];
