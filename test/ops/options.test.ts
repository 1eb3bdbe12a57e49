import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultOpsOptions, readOpsOptions } from '../../src/config/ops-options.js';

describe('ops configuration keys (readOpsOptions)', () => {
  it('gives the defaults for an empty configuration', () => {
    const problems: string[] = [];
    assert.deepEqual(readOpsOptions({}, '/data', '/etc/passkey', problems), defaultOpsOptions('/data'));
    assert.deepEqual(problems, []);
    assert.equal(defaultOpsOptions('/data').admin.host, '127.0.0.1');
    assert.equal(defaultOpsOptions('/data').admin.tokensFile, '/data/admin-tokens.json');
  });

  it('reads every key, resolving a relative token file against the config folder', () => {
    const problems: string[] = [];
    const options = readOpsOptions(
      {
        admin: { enabled: false, host: '0.0.0.0', port: 9000, tokensFile: 'tokens.json', metricsRequireToken: true },
        rateLimits: {
          store: 'redis://cache:6379',
          keyPrefix: 'p:',
          perApplication: null,
          perAddress: { burst: 5, perSecond: 0.5 },
          applications: { big: { burst: 1000, perSecond: 100 }, free: null },
          exemptAddresses: ['10.0.0.1'],
          onStoreError: 'deny',
        },
        audit: { maxEvents: 500, options: 'all' },
        applicationCacheMs: 0,
        shutdownDeadlineMs: 30000,
        requestLog: false,
        listen: { port: 1 },
      },
      '/data',
      '/etc/passkey',
      problems,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(options, {
      admin: {
        enabled: false,
        host: '0.0.0.0',
        port: 9000,
        tokensFile: '/etc/passkey/tokens.json',
        metricsRequireToken: true,
      },
      rateLimits: {
        store: 'redis://cache:6379',
        keyPrefix: 'p:',
        perApplication: null,
        perAddress: { burst: 5, perSecond: 0.5 },
        applications: { big: { burst: 1000, perSecond: 100 }, free: null },
        exemptAddresses: ['10.0.0.1'],
        onStoreError: 'deny',
      },
      audit: { maxEvents: 500, options: 'all' },
      applications: { cacheMs: 0 },
      shutdownDeadlineMs: 30000,
      requestLog: false,
    });
  });

  it('reports every problem at once, with its key path', () => {
    const problems: string[] = [];
    readOpsOptions(
      {
        admin: { port: 70000, bogus: 1, enabled: 'yes' },
        rateLimits: {
          store: 'mysql://x',
          perApplication: { burst: 0, perSecond: -1 },
          perAddress: 5,
          onStoreError: 'maybe',
          applications: { a: { burst: 1 } },
        },
        audit: { options: 'some' },
        shutdownDeadlineMs: -1,
      },
      '/data',
      '/etc',
      problems,
    );
    for (const expected of [
      'admin.port',
      'admin.bogus',
      'admin.enabled',
      'rateLimits.store',
      'rateLimits.perApplication.burst',
      'rateLimits.perApplication.perSecond',
      'rateLimits.perAddress',
      'rateLimits.onStoreError',
      'rateLimits.applications.a.perSecond',
      'audit.options',
      'shutdownDeadlineMs',
    ]) {
      assert.ok(
        problems.some((p) => p.startsWith(`${expected}:`)),
        `${expected} in ${problems.join(' | ')}`,
      );
    }
  });
});

describe('ops environment overrides (applyOpsEnv)', () => {
  it('overrides single settings and reports bad values', async () => {
    const { applyOpsEnv } = await import('../../src/config/ops-options.js');
    const problems: string[] = [];
    const options = applyOpsEnv(
      defaultOpsOptions('/data'),
      {
        PASSKEY_ADMIN_ENABLED: 'false',
        PASSKEY_ADMIN_HOST: '10.0.0.5',
        PASSKEY_ADMIN_PORT: '0',
        PASSKEY_ADMIN_TOKENS_FILE: 'keys/t.json',
        PASSKEY_RATE_LIMIT_STORE: 'redis://cache:6379',
      },
      '/srv',
      problems,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(options.admin, {
      enabled: false,
      host: '10.0.0.5',
      port: 0,
      tokensFile: '/srv/keys/t.json',
      metricsRequireToken: false,
    });
    assert.equal(options.rateLimits.store, 'redis://cache:6379');
    const bad: string[] = [];
    applyOpsEnv(
      defaultOpsOptions('/data'),
      { PASSKEY_ADMIN_ENABLED: 'yes', PASSKEY_ADMIN_PORT: '99999', PASSKEY_RATE_LIMIT_STORE: 'mysql://x' },
      '/srv',
      bad,
    );
    assert.deepEqual(
      bad.map((p) => p.split(':')[0]),
      ['PASSKEY_ADMIN_ENABLED', 'PASSKEY_ADMIN_PORT', 'PASSKEY_RATE_LIMIT_STORE'],
    );
  });
});
