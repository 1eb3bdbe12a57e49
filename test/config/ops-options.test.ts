import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Problems } from '../../src/config/checks.js';
import { validateConfig } from '../../src/config/load.js';
import { defaultOpsOptions } from '../../src/config/ops.js';

const app = { clientId: 'a', name: 'A', domain: 'idp.example.test', origins: ['https://idp.example.test'] };

/** The operations options of a configuration whose file is in /etc/passkey and whose data is in /data. */
function opsOf(raw: Record<string, unknown>): { ops: unknown; problems: string[] } {
  const problems = new Problems();
  const config = validateConfig({ dataDir: '/data', applications: [app], ...raw }, problems, (_key, value) =>
    value.startsWith('/') ? value : join('/etc/passkey', value),
  );
  return { ops: config?.ops, problems: problems.list };
}

describe('ops configuration keys', () => {
  it('gives the defaults for an empty configuration', () => {
    assert.deepEqual(opsOf({ listen: { port: 8787 } }), { ops: defaultOpsOptions('/data'), problems: [] });
    assert.equal(defaultOpsOptions('/data').admin.host, '127.0.0.1');
    assert.equal(defaultOpsOptions('/data').admin.tokensFile, '/data/admin-tokens.json');
  });

  it('reads every key, resolving a relative token file against the config folder', () => {
    const { ops, problems } = opsOf({
      admin: {
        enabled: false,
        host: '0.0.0.0',
        port: 9000,
        tokensFile: 'tokens.json',
        metricsRequireToken: true,
        allowedHosts: ['admin.internal.example'],
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
      applicationCacheMs: 0,
      shutdownDeadlineMs: 30000,
      requestLog: false,
      listen: { port: 1 },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(ops, {
      admin: {
        enabled: false,
        host: '0.0.0.0',
        port: 9000,
        tokensFile: '/etc/passkey/tokens.json',
        metricsRequireToken: true,
        allowedHosts: ['admin.internal.example'],
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
    const { problems } = opsOf({
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
    });
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
