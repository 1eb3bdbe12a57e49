// loadConfig: defaults, every validation rule, every problem at once, relative paths, env overrides.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { defaultOpsOptions, type OpsOptions } from '../../src/config/ops.js';
import type { ServiceConfig } from '../../src/service-config.js';
import { DEFAULT_ALGORITHMS } from '../../src/schemas/values.js';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { ANCHOR_PEM, assertProblem, minimalApp, problemsOf, tempDir, writeFile } from './support.js';

function loadFile(
  content: unknown,
  env: Record<string, string> = {},
  name = 'config.json',
): { config: ServiceConfig; dir: string } {
  const dir = tempDir();
  const file = writeFile(dir, name, content);
  return { config: loadConfig({ file, env, cwd: tempDir() }), dir };
}

function problemsOfFile(content: unknown, env: Record<string, string> = {}): readonly string[] {
  const dir = tempDir();
  const file = writeFile(dir, 'config.json', content);
  return problemsOf(() => loadConfig({ file, env, cwd: dir }));
}

/** The operations defaults of a data folder, with the admin port the loader decides. */
function defaultOps(dataDir: string, adminPort: number): OpsOptions {
  const ops = defaultOpsOptions(dataDir);
  return { ...ops, admin: { ...ops.admin, port: adminPort } };
}

const DEFAULT_POLICY = {
  trustAnchors: [],
  requireTrusted: false,
  metadata: null,
  metadataRoots: [],
  enforceStatusAtAuthentication: false,
  aaguidAllow: [],
  aaguidDeny: [],
};

describe('loadConfig without a file: the built-in default', () => {
  it('is SQLite in ./data, memory challenges, 127.0.0.1:8787, local on, demo on 127.0.0.1:8443, one demo application', () => {
    const cwd = tempDir();
    const config = loadConfig({ env: {}, cwd });
    assert.deepEqual(config, {
      listen: { host: '127.0.0.1', port: 8787 },
      database: { kind: 'sqlite', path: join(cwd, 'data', 'fido2.db') },
      challenges: { kind: 'memory' },
      local: { enabled: true },
      demo: { enabled: true, host: '127.0.0.1', port: 8443, devHostnames: [] },
      vendor: 'Vendor',
      dataDir: join(cwd, 'data'),
      secretsFile: join(cwd, 'data', 'secrets.json'),
      limits: { bodyBytes: 65536, usernameLength: 256, displayNameLength: 256 },
      answerFloorMs: 5,
      applications: [
        {
          clientId: 'demo-client',
          name: 'Demo IdP',
          icon: '',
          domain: 'demo.localhost',
          origins: ['https://demo.localhost:8443'],
          variants: ['standard', 'local'],
          localOrigins: ['https://localhost:8443'],
          timeoutMs: 180000,
          // The demo offers post-quantum passkeys: ML-DSA-44/65/87 after the classical algorithms (issue 25).
          algorithms: [...DEFAULT_ALGORITHMS, -48, -49, -50],
          userVerification: null,
          counterPolicy: 'strict',
          revealUnknownUsers: false,
          allowCrossOrigin: false,
          maxPasskeysPerUser: 100,
          attestation: DEFAULT_POLICY,
        },
      ],
      ops: defaultOps(join(cwd, 'data'), 8788),
    } satisfies ServiceConfig);
  });

  it("the demo application's origins follow PASSKEY_DEMO_PORT", () => {
    const config = loadConfig({ env: { PASSKEY_DEMO_PORT: '9443' }, cwd: tempDir() });
    assert.equal(config.demo.port, 9443);
    assert.deepEqual(config.applications[0]?.origins, ['https://demo.localhost:9443']);
    assert.deepEqual(config.applications[0]?.localOrigins, ['https://localhost:9443']);
    assert.deepEqual(loadConfig({ env: { PASSKEY_DEMO_PORT: '0' }, cwd: tempDir() }).applications[0]?.origins, [
      'https://demo.localhost:8443',
    ]);
  });

  it('takes environment overrides too', () => {
    const cwd = tempDir();
    const config = loadConfig({
      env: { PASSKEY_PORT: '0', PASSKEY_DEMO_ENABLED: 'false', PASSKEY_DATA_DIR: 'var' },
      cwd,
    });
    assert.equal(config.listen.port, 0);
    assert.equal(config.demo.enabled, false);
    assert.equal(config.dataDir, join(cwd, 'var'));
    assert.equal(config.secretsFile, join(cwd, 'var', 'secrets.json'));
    // The default database lives in dataDir, so it moves with it.
    assert.deepEqual(config.database, { kind: 'sqlite', path: join(cwd, 'var', 'fido2.db') });
  });
});

describe('loadConfig with a file', () => {
  it('reads the example of docs/decisions.md exactly', () => {
    const dir = tempDir();
    writeFile(dir, 'roots/vendor.pem', ANCHOR_PEM);
    const file = writeFile(dir, 'config.json', {
      listen: { host: '127.0.0.1', port: 8787 },
      database: 'sqlite:./data/fido2.db',
      challenges: 'memory',
      local: { enabled: true },
      applications: [
        {
          clientId: 'demo-client',
          name: 'Demo IdP',
          domain: 'idp.example.test',
          origins: ['https://idp.example.test'],
          variants: ['standard', 'local'],
          localOrigins: ['https://localhost:8443'],
          attestation: { trustAnchors: ['./roots/vendor.pem'], requireTrusted: false, metadata: null },
        },
      ],
    });
    const config = loadConfig({ file, env: {}, cwd: tempDir() });
    assert.deepEqual(config.database, { kind: 'sqlite', path: join(dir, 'data', 'fido2.db') });
    assert.deepEqual(config.applications[0]?.attestation, {
      ...DEFAULT_POLICY,
      trustAnchors: [join(dir, 'roots', 'vendor.pem')],
    });
    assert.deepEqual(config.applications[0]?.localOrigins, ['https://localhost:8443']);
    assert.equal(config.demo.enabled, false, 'a config file turns the demo on explicitly');
  });

  it('fills every optional key with its default', () => {
    const { config, dir } = loadFile({ applications: [minimalApp()] });
    assert.deepEqual(config, {
      listen: { host: '127.0.0.1', port: 8787 },
      database: { kind: 'sqlite', path: join(dir, 'data', 'fido2.db') },
      challenges: { kind: 'memory' },
      local: { enabled: true },
      demo: { enabled: false, host: '127.0.0.1', port: 8443, devHostnames: [] },
      vendor: 'Vendor',
      dataDir: join(dir, 'data'),
      secretsFile: join(dir, 'data', 'secrets.json'),
      limits: { bodyBytes: 65536, usernameLength: 256, displayNameLength: 256 },
      answerFloorMs: 5,
      applications: [
        {
          clientId: 'app-1',
          name: 'App One',
          icon: '',
          domain: 'idp.example.test',
          origins: ['https://idp.example.test'],
          variants: ['standard', 'local'],
          localOrigins: ['https://localhost'],
          timeoutMs: 180000,
          algorithms: [...DEFAULT_ALGORITHMS],
          userVerification: null,
          counterPolicy: 'strict',
          revealUnknownUsers: false,
          allowCrossOrigin: false,
          maxPasskeysPerUser: 100,
          attestation: DEFAULT_POLICY,
        },
      ],
      ops: defaultOps(join(dir, 'data'), 8788),
    } satisfies ServiceConfig);
  });

  it('reads every key of ours', () => {
    const dir = tempDir();
    writeFile(dir, 'pki/a.pem', ANCHOR_PEM + ANCHOR_PEM);
    writeFile(dir, 'mds/blob.jwt', 'eyJ.eyJ.sig');
    const file = writeFile(dir, 'etc/config.json', {
      $schema: './config.schema.json',
      listen: { host: '0.0.0.0', port: 9000 },
      database: 'postgres://fido:secret@db.internal:5432/fido2',
      challenges: 'redis://cache.internal:6379/0',
      local: { enabled: false },
      demo: { enabled: true, host: '127.0.0.1', port: 0, devHostnames: ['dev.acme.test'] },
      vendor: 'Acme',
      dataDir: '/var/lib/passkey',
      secretsFile: '../secrets/keys.json',
      admin: {
        enabled: true,
        host: '10.0.0.2',
        port: 9100,
        tokensFile: '../secrets/admin-tokens.json',
        metricsRequireToken: true,
      },
      rateLimits: {
        store: 'redis://cache.internal:6379/1',
        keyPrefix: 'acme:rl:',
        perApplication: { burst: 50, perSecond: 10 },
        perAddress: null,
        applications: { 'acme-web': { burst: 500, perSecond: 100 } },
        exemptAddresses: ['10.0.0.7'],
        onStoreError: 'deny',
      },
      audit: { maxEvents: 5000, options: 'all' },
      applicationCacheMs: 1000,
      shutdownDeadlineMs: 20000,
      requestLog: false,
      webhookDelivery: { allowLoopbackHttp: true, allowPrivateAddresses: true, maxAttempts: 3, timeoutMs: 2000 },
      limits: { bodyBytes: 32768, usernameLength: 128, displayNameLength: 64 },
      answerFloorMs: 12,
      applications: [
        {
          clientId: 'acme-web',
          name: 'Acme',
          icon: 'https://acme.example/icon.png',
          domain: 'acme.example',
          origins: ['https://acme.example', 'https://login.acme.example:8443'],
          variants: ['standard'],
          localOrigins: ['https://dev.acme.test:3000', 'http://localhost'],
          timeoutMs: 60000,
          algorithms: [-8, -7, -65535],
          userVerification: 'required',
          counterPolicy: 'warn',
          revealUnknownUsers: true,
          allowCrossOrigin: true,
          maxPasskeysPerUser: 500,
          topOrigins: ['https://portal.acme.example'],
          webhooks: [{ url: 'http://127.0.0.1:9/hooks', secret: 'env:ACME_HOOK', events: ['credential.created'] }],
          compromisedAuthenticators: 'refuse',
          attestation: {
            trustAnchors: ['../pki/a.pem'],
            requireTrusted: true,
            metadata: '../mds/blob.jwt',
            metadataRoots: ['../pki/a.pem'],
            enforceStatusAtAuthentication: true,
            aaguidAllow: ['CB69481E-8FF7-4039-93EC-0A2729A154A8'],
            aaguidDeny: ['00000000-0000-0000-0000-000000000001'],
          },
        },
      ],
    });
    const config = loadConfig({ file, env: {}, cwd: tempDir() });
    assert.deepEqual(config, {
      listen: { host: '0.0.0.0', port: 9000 },
      database: { kind: 'postgres', url: 'postgres://fido:secret@db.internal:5432/fido2' },
      challenges: { kind: 'redis', url: 'redis://cache.internal:6379/0' },
      local: { enabled: false },
      demo: { enabled: true, host: '127.0.0.1', port: 0, devHostnames: ['dev.acme.test'] },
      vendor: 'Acme',
      dataDir: '/var/lib/passkey',
      secretsFile: join(dir, 'secrets', 'keys.json'),
      limits: { bodyBytes: 32768, usernameLength: 128, displayNameLength: 64 },
      answerFloorMs: 12,
      webhookDelivery: { allowLoopbackHttp: true, allowPrivateAddresses: true, maxAttempts: 3, timeoutMs: 2000 },
      applications: [
        {
          clientId: 'acme-web',
          name: 'Acme',
          icon: 'https://acme.example/icon.png',
          domain: 'acme.example',
          origins: ['https://acme.example', 'https://login.acme.example:8443'],
          variants: ['standard'],
          localOrigins: ['https://dev.acme.test:3000', 'http://localhost'],
          timeoutMs: 60000,
          algorithms: [-8, -7, -65535],
          userVerification: 'required',
          counterPolicy: 'warn',
          revealUnknownUsers: true,
          allowCrossOrigin: true,
          maxPasskeysPerUser: 500,
          topOrigins: ['https://portal.acme.example'],
          webhooks: [{ url: 'http://127.0.0.1:9/hooks', secret: 'env:ACME_HOOK', events: ['credential.created'] }],
          compromisedAuthenticators: 'refuse',
          attestation: {
            trustAnchors: [join(dir, 'pki', 'a.pem')],
            requireTrusted: true,
            metadata: join(dir, 'mds', 'blob.jwt'),
            metadataRoots: [join(dir, 'pki', 'a.pem')],
            enforceStatusAtAuthentication: true,
            aaguidAllow: ['cb69481e-8ff7-4039-93ec-0a2729a154a8'],
            aaguidDeny: ['00000000-0000-0000-0000-000000000001'],
          },
        },
      ],
      ops: {
        admin: {
          enabled: true,
          host: '10.0.0.2',
          port: 9100,
          tokensFile: join(dir, 'secrets', 'admin-tokens.json'),
          metricsRequireToken: true,
          allowedHosts: [],
        },
        rateLimits: {
          store: 'redis://cache.internal:6379/1',
          keyPrefix: 'acme:rl:',
          perApplication: { burst: 50, perSecond: 10 },
          perAddress: null,
          applications: { 'acme-web': { burst: 500, perSecond: 100 } },
          exemptAddresses: ['10.0.0.7'],
          onStoreError: 'deny',
        },
        audit: { maxEvents: 5000, options: 'all' },
        applications: { cacheMs: 1000 },
        shutdownDeadlineMs: 20000,
        requestLog: false,
      },
    } satisfies ServiceConfig);
  });

  it("resolves relative paths against the config file's folder, not the working directory", () => {
    const { config, dir } = loadFile(
      { dataDir: 'state', database: 'sqlite:db/x.db', applications: [minimalApp()] },
      {},
      'nested/config.json',
    );
    assert.equal(config.dataDir, join(dir, 'nested', 'state'));
    assert.equal(config.secretsFile, join(dir, 'nested', 'state', 'secrets.json'));
    assert.deepEqual(config.database, { kind: 'sqlite', path: join(dir, 'nested', 'db', 'x.db') });
  });

  it('accepts challenges "database" and postgresql:// and rediss:// URLs', () => {
    assert.deepEqual(loadFile({ challenges: 'database', applications: [minimalApp()] }).config.challenges, {
      kind: 'database',
    });
    assert.equal(
      loadFile({ database: 'postgresql://u@h/d', applications: [minimalApp()] }).config.database.kind,
      'postgres',
    );
    assert.deepEqual(loadFile({ challenges: 'rediss://h:6380', applications: [minimalApp()] }).config.challenges, {
      kind: 'redis',
      url: 'rediss://h:6380',
    });
  });

  it('allows an empty application list when the demo is off', () => {
    assert.deepEqual(loadFile({ applications: [] }).config.applications, []);
  });

  it('a local-only application needs no standard origins', () => {
    const app = loadFile({ applications: [minimalApp({ origins: undefined, variants: ['local'] })] }).config
      .applications[0];
    assert.deepEqual(app?.origins, []);
    assert.deepEqual(app?.variants, ['local']);
  });
});

describe('loadConfig: problems with the file itself', () => {
  it('a missing file', () => {
    const cwd = tempDir();
    const problems = problemsOf(() => loadConfig({ file: 'nope.json', env: {}, cwd }));
    assert.match(problems[0]!, /cannot read the config file \(ENOENT\)/);
  });

  it('a file that is not JSON', () => {
    assert.match(problemsOfFile('{ "listen": ')[0]!, /not valid JSON/);
  });

  it('a file that is not an object', () => {
    assert.match(problemsOfFile('[1, 2]')[0]!, /must hold a JSON object, not an array/);
  });

  it('the message names the file and lists each problem on its own line', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'c.json', { listen: { port: -1 }, vendor: 'two words', applications: [minimalApp()] });
    try {
      loadConfig({ file, env: {}, cwd: dir });
      assert.fail('expected a ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.match(
        error.message,
        new RegExp(`Invalid configuration \\(${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): 2 problems`),
      );
      assert.match(error.message, /\n {2}- listen\.port: /);
      assert.match(error.message, /\n {2}- vendor: /);
    }
  });
});

describe('loadConfig: every problem at once', () => {
  it('reports problems of every section and every application together', () => {
    const dir = tempDir();
    writeFile(dir, 'notes.txt', 'not a certificate');
    const problems = problemsOfFile({
      listen: { host: '', port: 70000, tls: true },
      database: 'mysql://x',
      challenges: 'memcached://x',
      local: { enabled: 'yes' },
      demo: { enabled: 1 },
      vendor: 'Big Vendor',
      limits: { bodyBytes: 10, extra: 1 },
      colour: 'blue',
      applications: [
        minimalApp({ clientId: 'dup', origins: ['https://idp.example.test/'], timeoutMs: 5 }),
        minimalApp({
          clientId: 'dup',
          domain: 'Bad_Domain',
          algorithms: [-7, 999],
          attestation: { trustAnchors: ['./missing.pem'], metadata: 7 },
        }),
        'not an object',
      ],
    });
    for (const path of [
      'listen.host',
      'listen.port',
      'listen.tls',
      'database',
      'challenges',
      'local.enabled',
      'demo.enabled',
      'vendor',
      'limits.bodyBytes',
      'limits.extra',
      'colour',
      'applications[0].origins[0]',
      'applications[0].timeoutMs',
      'applications[1].clientId',
      'applications[1].domain',
      'applications[1].algorithms[1]',
      'applications[1].attestation.trustAnchors[0]',
      'applications[1].attestation.metadata',
      'applications[2]',
    ]) {
      assertProblem(problems, path);
    }
    assert.ok(problems.length >= 19, problems.join('\n'));
  });
});

describe('loadConfig: each validation rule', () => {
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['unknown top-level key', { listn: {} }, 'listn', 'unknown key'],
    ['unknown key in listen', { listen: { prot: 1 } }, 'listen.prot', 'unknown key'],
    ['listen is not an object', { listen: 8787 }, 'listen', 'must be an object'],
    ['port not an integer', { listen: { port: 80.5 } }, 'listen.port', 'integer from 0 to 65535'],
    ['port as a string', { listen: { port: '8787' } }, 'listen.port', 'integer'],
    ['database of an unknown kind', { database: 'mongodb://x' }, 'database', '"sqlite:<path>" or a "postgres://" URL'],
    ['database sqlite without a path', { database: 'sqlite:' }, 'database', 'needs a file path'],
    ['database not a string', { database: { path: 'x' } }, 'database', 'must be a string'],
    ['postgres URL without host', { database: 'postgres://' }, 'database', 'no host'],
    ['challenges of an unknown kind', { challenges: 'sql' }, 'challenges', '"memory", "database" or a "redis://" URL'],
    ['redis URL without host', { challenges: 'redis://' }, 'challenges', 'no host'],
    ['local not an object', { local: true }, 'local', 'must be an object'],
    ['local.enabled not a boolean', { local: { enabled: 'true' } }, 'local.enabled', 'true or false'],
    ['demo.port out of range', { demo: { port: 65536 } }, 'demo.port', 'integer'],
    [
      'demo and service on the same address',
      { demo: { enabled: true, port: 8787 } },
      'demo.port',
      'cannot both listen',
    ],
    ['vendor with a space', { vendor: 'My Vendor' }, 'vendor', 'one word'],
    ['empty vendor', { vendor: '' }, 'vendor', 'must not be empty'],
    ['dataDir not a string', { dataDir: 5 }, 'dataDir', 'must be a string'],
    ['secretsFile empty', { secretsFile: '' }, 'secretsFile', 'must not be empty'],
    ['limits.bodyBytes too small', { limits: { bodyBytes: 100 } }, 'limits.bodyBytes', 'integer from 1024'],
    ['limits.usernameLength negative', { limits: { usernameLength: -1 } }, 'limits.usernameLength', 'integer'],
    ['applications missing', { applications: undefined }, 'applications', 'is required'],
    ['applications not an array', { applications: {} }, 'applications', 'must be an array'],
  ];
  for (const [title, overrides, path, words] of cases) {
    it(title, () => {
      assertProblem(problemsOfFile({ applications: [minimalApp()], ...overrides }), path, words);
    });
  }

  it('the demo needs an application', () => {
    assertProblem(
      problemsOfFile({ demo: { enabled: true }, applications: [] }),
      'demo.enabled',
      'needs an application',
    );
  });

  const appCases: Array<[string, Record<string, unknown>, string, string]> = [
    ['unknown application key', { clientID: 'x' }, 'clientID', 'unknown key'],
    ['clientId missing', { clientId: undefined }, 'clientId', 'must be a string'],
    ['clientId with a space', { clientId: 'my app' }, 'clientId', 'without spaces'],
    ['clientId too long', { clientId: 'x'.repeat(129) }, 'clientId', '1 to 128'],
    ['name empty', { name: '' }, 'name', 'must not be empty'],
    ['icon not a string', { icon: 1 }, 'icon', 'must be a string'],
    ['domain with a scheme', { domain: 'https://idp.example.test' }, 'domain', 'not a host name'],
    ['domain with a port', { domain: 'idp.example.test:443' }, 'domain', 'not a host name'],
    ['domain upper-case', { domain: 'IdP.example.test' }, 'domain', 'lower-case'],
    ['domain with a trailing dot', { domain: 'idp.example.test.' }, 'domain', 'not a host name'],
    ['domain an IP address', { domain: '192.168.1.1', origins: ['https://192.168.1.1'] }, 'domain', 'IP address'],
    ['domain localhost', { domain: 'localhost' }, 'domain', 'local variant'],
    [
      'origin with a path',
      { origins: ['https://idp.example.test/login'] },
      'origins[0]',
      'did you mean "https://idp.example.test"',
    ],
    ['origin with a trailing slash', { origins: ['https://idp.example.test/'] }, 'origins[0]', 'origin form'],
    ['origin with the default port', { origins: ['https://idp.example.test:443'] }, 'origins[0]', 'origin form'],
    ['origin upper-case', { origins: ['https://IDP.example.test'] }, 'origins[0]', 'origin form'],
    ['origin not a URL', { origins: ['idp.example.test'] }, 'origins[0]', 'not an origin'],
    ['origin over http', { origins: ['http://idp.example.test'] }, 'origins[0]', 'use https'],
    ['origin of another scheme', { origins: ['ftp://idp.example.test'] }, 'origins[0]', 'https'],
    [
      'origin outside the domain',
      { origins: ['https://evil.example'] },
      'origins[0]',
      "not on the application's domain",
    ],
    [
      'origin on a lookalike domain',
      { origins: ['https://xidp.example.test'] },
      'origins[0]',
      "not on the application's domain",
    ],
    [
      'duplicate origin',
      { origins: ['https://idp.example.test', 'https://idp.example.test'] },
      'origins[1]',
      'duplicate',
    ],
    ['standard variant without origins', { origins: [] }, 'origins', 'at least one origin'],
    ['variants empty', { variants: [] }, 'variants', 'must not be empty'],
    ['unknown variant', { variants: ['standard', 'redirect'] }, 'variants[1]', 'one of'],
    ['duplicate variant', { variants: ['local', 'local'] }, 'variants[1]', 'duplicate'],
    ['local origin with a path', { localOrigins: ['https://localhost:8443/app'] }, 'localOrigins[0]', 'origin form'],
    [
      'local origin over http off localhost',
      { localOrigins: ['http://dev.example.test'] },
      'localOrigins[0]',
      'use https',
    ],
    ['timeoutMs too short', { timeoutMs: 1000 }, 'timeoutMs', 'integer from 10000'],
    ['timeoutMs too long', { timeoutMs: 3_600_001 }, 'timeoutMs', 'integer'],
    ['timeoutMs in seconds as a string', { timeoutMs: '180' }, 'timeoutMs', 'integer'],
    ['algorithms empty', { algorithms: [] }, 'algorithms', 'must not be empty'],
    ['unsupported algorithm', { algorithms: [-7, -47] }, 'algorithms[1]', 'supported COSE algorithms'],
    ['algorithm as a name', { algorithms: ['ES256'] }, 'algorithms[0]', 'supported COSE algorithms'],
    ['duplicate algorithm', { algorithms: [-7, -7] }, 'algorithms[1]', 'duplicate'],
    ['userVerification unknown', { userVerification: 'always' }, 'userVerification', 'one of'],
    ['counterPolicy unknown', { counterPolicy: 'lenient' }, 'counterPolicy', 'one of "strict", "warn"'],
    ['revealUnknownUsers not a boolean', { revealUnknownUsers: 'no' }, 'revealUnknownUsers', 'true or false'],
    ['allowCrossOrigin not a boolean', { allowCrossOrigin: 0 }, 'allowCrossOrigin', 'true or false'],
    ['allowCrossOrigin without topOrigins', { allowCrossOrigin: true }, 'topOrigins', 'list the top-level origins'],
    [
      'allowCrossOrigin with empty topOrigins',
      { allowCrossOrigin: true, topOrigins: [] },
      'topOrigins',
      'list the top-level origins',
    ],
    [
      'topOrigins without allowCrossOrigin',
      { topOrigins: ['https://portal.example'] },
      'topOrigins',
      'allowCrossOrigin is not true',
    ],
    [
      'top origin with a path',
      { allowCrossOrigin: true, topOrigins: ['https://portal.example/app'] },
      'topOrigins[0]',
      'origin form',
    ],
    [
      'top origin over http off localhost',
      { allowCrossOrigin: true, topOrigins: ['http://portal.example'] },
      'topOrigins[0]',
      'use https',
    ],
    [
      'topOrigins not an array',
      { allowCrossOrigin: true, topOrigins: 'https://portal.example' },
      'topOrigins',
      'must be an array',
    ],
    ['attestation not an object', { attestation: 'none' }, 'attestation', 'must be an object'],
    ['unknown attestation key', { attestation: { anchors: [] } }, 'attestation.anchors', 'unknown key'],
    [
      'trust anchor file missing',
      { attestation: { trustAnchors: ['roots/none.pem'] } },
      'attestation.trustAnchors[0]',
      'ENOENT',
    ],
    ['trust anchor is a folder', { attestation: { trustAnchors: ['.'] } }, 'attestation.trustAnchors[0]', 'not a file'],
    ['metadata file missing', { attestation: { metadata: 'mds.jwt' } }, 'attestation.metadata', 'ENOENT'],
    [
      'metadata root file missing',
      { attestation: { metadata: null, metadataRoots: ['mds-root.pem'] } },
      'attestation.metadataRoots[0]',
      'ENOENT',
    ],
    [
      'enforceStatusAtAuthentication not a boolean',
      { attestation: { enforceStatusAtAuthentication: 'x' } },
      'attestation.enforceStatusAtAuthentication',
      'true or false',
    ],
    [
      'requireTrusted not a boolean',
      { attestation: { requireTrusted: 'yes' } },
      'attestation.requireTrusted',
      'true or false',
    ],
    [
      'bad AAGUID',
      { attestation: { aaguidAllow: ['cb69481e8ff7403993ec0a2729a154a8'] } },
      'attestation.aaguidAllow[0]',
      'dashed UUID',
    ],
    [
      'AAGUID in both lists',
      {
        attestation: {
          aaguidAllow: ['cb69481e-8ff7-4039-93ec-0a2729a154a8'],
          aaguidDeny: ['CB69481E-8FF7-4039-93EC-0A2729A154A8'],
        },
      },
      'attestation.aaguidDeny',
      'only one list',
    ],
  ];
  for (const [title, overrides, key, words] of appCases) {
    it(`application: ${title}`, () => {
      const problems = problemsOfFile({
        applications: [minimalApp({ clientId: 'first' }), minimalApp({ clientId: 'second', ...overrides })],
      });
      assertProblem(problems, `applications[1].${key}`, words);
    });
  }

  it('application: duplicate clientId names both entries', () => {
    const problems = problemsOfFile({
      applications: [minimalApp({ clientId: 'same' }), minimalApp(), minimalApp({ clientId: 'same', name: 'Other' })],
    });
    assertProblem(problems, 'applications[2].clientId', '"same" is already used by applications[0]');
  });

  it('application: a duplicate clientId is reported even when another entry has problems', () => {
    const problems = problemsOfFile({
      applications: [minimalApp({ clientId: 'same', domain: 'BAD' }), minimalApp({ clientId: 'same' })],
    });
    assertProblem(problems, 'applications[0].domain');
    assertProblem(problems, 'applications[1].clientId', 'already used');
  });

  it('application: a trust anchor file without a certificate, and one with a broken certificate', () => {
    const dir = tempDir();
    writeFile(dir, 'text.pem', 'hello');
    writeFile(dir, 'broken.pem', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const file = writeFile(dir, 'config.json', {
      applications: [minimalApp({ attestation: { trustAnchors: ['text.pem', 'broken.pem'] } })],
    });
    const problems = problemsOf(() => loadConfig({ file, env: {}, cwd: dir }));
    assertProblem(problems, 'applications[0].attestation.trustAnchors[0]', 'holds no PEM certificate');
    assertProblem(problems, 'applications[0].attestation.trustAnchors[1]', 'does not parse');
  });

  it('application: metadata roots without a metadata BLOB', () => {
    const dir = tempDir();
    writeFile(dir, 'mds-root.pem', ANCHOR_PEM);
    const file = writeFile(dir, 'config.json', {
      applications: [minimalApp({ attestation: { metadataRoots: ['mds-root.pem'] } })],
    });
    assertProblem(
      problemsOf(() => loadConfig({ file, env: {}, cwd: dir })),
      'applications[0].attestation.metadataRoots',
      'give the BLOB too',
    );
  });

  it('a database URL password never appears in a problem', () => {
    const problems = problemsOfFile({ database: 'mysql://admin:hunter2@db/x', applications: [minimalApp()] });
    assert.ok(!problems.join('\n').includes('hunter2'), problems.join('\n'));
  });
});

describe('loadConfig: environment overrides', () => {
  it('every variable overrides its setting in the file', () => {
    const cwd = tempDir();
    const dir = tempDir();
    const file = writeFile(dir, 'config.json', {
      listen: { host: '127.0.0.1', port: 1 },
      local: { enabled: true },
      applications: [minimalApp()],
    });
    const config = loadConfig({
      file,
      cwd,
      env: {
        PASSKEY_HOST: '0.0.0.0',
        PASSKEY_PORT: '9999',
        PASSKEY_DATABASE: 'sqlite:db/over.db',
        PASSKEY_CHALLENGES: 'redis://r:6379',
        PASSKEY_LOCAL_ENABLED: 'false',
        PASSKEY_DATA_DIR: 'd',
        PASSKEY_SECRETS_FILE: 's/keys.json',
        PASSKEY_VENDOR: 'Acme',
        PASSKEY_BODY_BYTES: '2048',
        PASSKEY_ANSWER_FLOOR_MS: '0',
        PASSKEY_DEMO_ENABLED: '1',
        PASSKEY_DEMO_HOST: '::1',
        PASSKEY_DEMO_PORT: '9443',
        PASSKEY_ADMIN_ENABLED: 'off',
        PASSKEY_ADMIN_HOST: '10.1.1.1',
        PASSKEY_ADMIN_PORT: '9101',
        PASSKEY_ADMIN_TOKENS_FILE: 't/admin.json',
        PASSKEY_RATE_LIMIT_STORE: 'redis://limits:6379',
        PASSKEY_SQLITE_WRITER: 'inline',
        PASSKEY_SHUTDOWN_DEADLINE_MS: '8000',
      },
    });
    assert.equal(config.sqliteWriter, 'inline');
    assert.equal(config.ops?.shutdownDeadlineMs, 8000);
    assert.deepEqual(config.listen, { host: '0.0.0.0', port: 9999 });
    assert.deepEqual(
      config.database,
      { kind: 'sqlite', path: join(cwd, 'db', 'over.db') },
      'env paths are relative to the working directory',
    );
    assert.deepEqual(config.challenges, { kind: 'redis', url: 'redis://r:6379' });
    assert.equal(config.local.enabled, false);
    assert.equal(config.dataDir, join(cwd, 'd'));
    assert.equal(config.secretsFile, join(cwd, 's', 'keys.json'));
    assert.equal(config.vendor, 'Acme');
    assert.equal(config.limits.bodyBytes, 2048);
    assert.equal(config.answerFloorMs, 0);
    assert.deepEqual(config.demo, { enabled: true, host: '::1', port: 9443, devHostnames: [] });
    assert.deepEqual(config.ops?.admin, {
      enabled: false,
      host: '10.1.1.1',
      port: 9101,
      tokensFile: join(cwd, 't', 'admin.json'),
      metricsRequireToken: false,
      allowedHosts: [],
    });
    assert.equal(config.ops?.rateLimits.store, 'redis://limits:6379');
  });

  it('an empty variable counts as unset', () => {
    const { config } = loadFile({ listen: { port: 1234 }, applications: [minimalApp()] }, { PASSKEY_PORT: '' });
    assert.equal(config.listen.port, 1234);
  });

  it('booleans accept true/false, 1/0, yes/no, on/off', () => {
    for (const [text, value] of [
      ['TRUE', true],
      ['0', false],
      ['yes', true],
      ['off', false],
    ] as const) {
      assert.equal(
        loadFile({ applications: [minimalApp()] }, { PASSKEY_LOCAL_ENABLED: text }).config.local.enabled,
        value,
      );
    }
  });

  it('bad values name the variable, all at once', () => {
    const problems = problemsOfFile(
      { applications: [minimalApp()] },
      {
        PASSKEY_PORT: 'eighty',
        PASSKEY_LOCAL_ENABLED: 'maybe',
        PASSKEY_DEMO_PORT: '99999',
        PASSKEY_DATABASE: 'oracle:x',
      },
    );
    assertProblem(problems, 'PASSKEY_PORT', 'whole number');
    assertProblem(problems, 'PASSKEY_LOCAL_ENABLED', 'true or false');
    assertProblem(problems, 'demo.port (from PASSKEY_DEMO_PORT)', 'integer from 0 to 65535');
    assertProblem(problems, 'database (from PASSKEY_DATABASE)', 'sqlite');
  });

  it('bad operations variables name the variable too', () => {
    const problems = problemsOfFile(
      { applications: [minimalApp()] },
      { PASSKEY_ADMIN_PORT: '70000', PASSKEY_RATE_LIMIT_STORE: 'mysql://x', PASSKEY_ADMIN_ENABLED: 'perhaps' },
    );
    assertProblem(problems, 'admin.port (from PASSKEY_ADMIN_PORT)', '0 to 65535');
    assertProblem(problems, 'rateLimits.store (from PASSKEY_RATE_LIMIT_STORE)', 'redis');
    assertProblem(problems, 'PASSKEY_ADMIN_ENABLED', 'true or false');
  });

  it('variables not in the table are ignored', () => {
    assert.equal(
      loadFile({ applications: [minimalApp()] }, { PASSKEY_COLOUR: 'blue', PORT: '1' }).config.listen.port,
      8787,
    );
  });
});

describe('loadConfig: operations keys (admin, rateLimits, audit, …)', () => {
  it('problems of the operations keys come in the same ConfigError as every other problem', () => {
    const problems = problemsOfFile({
      vendor: 'two words',
      admin: { port: 'x', colour: 'red' },
      rateLimits: { perAddress: { burst: 0, perSecond: 1 }, onStoreError: 'panic' },
      audit: { options: 'some' },
      shutdownDeadlineMs: -5,
      requestLog: 'yes',
      applications: [minimalApp()],
    });
    assertProblem(problems, 'vendor');
    for (const path of [
      'admin.port',
      'admin.colour',
      'rateLimits.perAddress.burst',
      'rateLimits.onStoreError',
      'audit.options',
      'shutdownDeadlineMs',
      'requestLog',
    ]) {
      assertProblem(problems, `${path}:`);
    }
  });

  it('a relative token file is relative to the config file; from the environment, to the working directory', () => {
    const { config, dir } = loadFile({ admin: { tokensFile: 'keys/admin.json' }, applications: [minimalApp()] });
    assert.equal(config.ops?.admin.tokensFile, join(dir, 'keys', 'admin.json'));
    const cwd = tempDir();
    const fileDir = tempDir();
    const file = writeFile(fileDir, 'config.json', {
      admin: { tokensFile: 'keys/admin.json' },
      applications: [minimalApp()],
    });
    assert.equal(
      loadConfig({ file, cwd, env: { PASSKEY_ADMIN_TOKENS_FILE: 'other.json' } }).ops?.admin.tokensFile,
      join(cwd, 'other.json'),
    );
  });

  it('the default token file is in dataDir', () => {
    const { config, dir } = loadFile({ dataDir: './state', applications: [minimalApp()] });
    assert.equal(config.ops?.admin.tokensFile, join(dir, 'state', 'admin-tokens.json'));
  });

  describe('the admin port', () => {
    const port = (content: Record<string, unknown>, env: Record<string, string> = {}) =>
      loadFile({ ...content, applications: [minimalApp()] }, env).config.ops?.admin.port;

    it('is 8788 next to the default service port 8787', () => assert.equal(port({}), 8788));
    it('is any free port (0) when the service listens on port 0, so parallel services never fight over 8788', () => {
      assert.equal(port({ listen: { port: 0 } }), 0);
      assert.equal(port({}, { PASSKEY_PORT: '0' }), 0);
      assert.equal(port({ listen: { port: 0 }, admin: { port: 9100 } }), 0, 'even when the file names one');
    });
    it('PASSKEY_ADMIN_PORT always wins', () => {
      assert.equal(port({ listen: { port: 0 } }, { PASSKEY_ADMIN_PORT: '9101' }), 9101);
      assert.equal(port({ admin: { port: 9100 } }, { PASSKEY_ADMIN_PORT: '9102' }), 9102);
    });
    it("is the file's admin.port when the service has a port of its own", () =>
      assert.equal(port({ listen: { port: 9000 }, admin: { port: 9100 } }), 9100));
    it('without admin.port, next to a service port other than 8787, it is any free port', () =>
      assert.equal(port({ listen: { port: 9000 } }), 0));
    it("cannot be the service's or the demo's address", () => {
      assertProblem(
        problemsOfFile({ listen: { port: 9000 }, admin: { port: 9000 }, applications: [minimalApp()] }),
        'admin.port',
        'service',
      );
      assertProblem(
        problemsOfFile({
          listen: { port: 9000 },
          demo: { enabled: true, port: 9443 },
          admin: { port: 9443 },
          applications: [minimalApp()],
        }),
        'admin.port',
        'demo',
      );
    });
  });

  it('the rate-limit defaults are generous (a relay carries all its users from one address)', () => {
    const { config } = loadFile({ applications: [minimalApp()] });
    assert.deepEqual(config.ops?.rateLimits.perApplication, { burst: 2000, perSecond: 1000 });
    assert.deepEqual(config.ops?.rateLimits.perAddress, { burst: 1000, perSecond: 500 });
  });
});

describe('loadConfig: sqliteWriter', () => {
  it('absent: not in the config (the stores resolve auto); "auto", "thread" and "inline" are read as written', () => {
    assert.equal(loadFile({ applications: [minimalApp()] }).config.sqliteWriter, undefined);
    assert.equal(loadFile({ sqliteWriter: 'auto', applications: [minimalApp()] }).config.sqliteWriter, 'auto');
    assert.equal(loadFile({ sqliteWriter: 'thread', applications: [minimalApp()] }).config.sqliteWriter, 'thread');
    assert.equal(loadFile({ sqliteWriter: 'inline', applications: [minimalApp()] }).config.sqliteWriter, 'inline');
  });

  it('anything else is a problem naming the key and the three values', () => {
    assertProblem(
      problemsOfFile({ sqliteWriter: 'async', applications: [minimalApp()] }),
      'sqliteWriter',
      '"auto", "thread" or "inline"',
    );
    assertProblem(problemsOfFile({ sqliteWriter: 1, applications: [minimalApp()] }), 'sqliteWriter');
    assertProblem(problemsOfFile({ applications: [minimalApp()] }, { PASSKEY_SQLITE_WRITER: 'none' }), 'sqliteWriter');
  });
});

describe('loadConfig: demo.devHostnames', () => {
  it('defaults to none, and reads a list of host names', () => {
    assert.deepEqual(loadFile({ applications: [minimalApp()] }).config.demo.devHostnames, []);
    assert.deepEqual(
      loadFile({ demo: { devHostnames: ['dev.example.test', 'idp.localhost'] }, applications: [minimalApp()] }).config
        .demo.devHostnames,
      ['dev.example.test', 'idp.localhost'],
    );
  });

  it('refuses what is not a host name, localhost itself, and duplicates', () => {
    const problems = problemsOfFile({
      demo: {
        devHostnames: ['https://dev.example.test', 'localhost', '10.0.0.1', 'Dev.Example.test', 'a.test', 'a.test', 7],
      },
      applications: [minimalApp()],
    });
    assertProblem(problems, 'demo.devHostnames[0]', 'host name');
    assertProblem(problems, 'demo.devHostnames[1]', 'always served');
    assertProblem(problems, 'demo.devHostnames[2]', 'IP address');
    assertProblem(problems, 'demo.devHostnames[3]', 'lower-case');
    assertProblem(problems, 'demo.devHostnames[5]', 'duplicate');
    assertProblem(problems, 'demo.devHostnames[6]', 'string');
    assertProblem(
      problemsOfFile({ demo: { devHostnames: 'dev.example.test' }, applications: [minimalApp()] }),
      'demo.devHostnames',
      'array',
    );
  });
});
