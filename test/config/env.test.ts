// The environment (src/config/env.ts): every variable that overrides a key comes from the schema's `env`,
// parsed by one rule, and the settings only the environment gives read their bounds from the schema.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Problems } from '../../src/config/checks.js';
import { applyEnvOverrides, ENV_OVERRIDES, logLevelOf, metadataCheckIntervalMs } from '../../src/config/env.js';
import { LOG_LEVELS } from '../../src/util/log.js';

describe('environment overrides', () => {
  it('are the keys the schema marks, each typed by its schema', () => {
    const byName = new Map(ENV_OVERRIDES.map((o) => [o.name, o]));
    assert.equal(byName.size, ENV_OVERRIDES.length);
    assert.deepEqual(byName.get('PASSKEY_PORT'), { name: 'PASSKEY_PORT', key: ['listen', 'port'], type: 'integer' });
    assert.deepEqual(byName.get('PASSKEY_ADMIN_PORT')?.type, 'integer');
    assert.deepEqual(byName.get('PASSKEY_ADMIN_ENABLED'), {
      name: 'PASSKEY_ADMIN_ENABLED',
      key: ['admin', 'enabled'],
      type: 'boolean',
    });
    assert.deepEqual(byName.get('PASSKEY_RATE_LIMIT_STORE')?.key, ['rateLimits', 'store']);
  });

  it('read every boolean by one rule, the admin variables too', () => {
    for (const [text, value] of [
      ['yes', true],
      ['0', false],
      ['ON', true],
      ['false', false],
    ] as const) {
      const raw: Record<string, unknown> = {};
      const problems = new Problems();
      applyEnvOverrides(raw, { PASSKEY_ADMIN_ENABLED: text, PASSKEY_LOCAL_ENABLED: text }, problems);
      assert.deepEqual(raw, { local: { enabled: value }, admin: { enabled: value } });
      assert.deepEqual(problems.list, []);
      assert.equal(problems.sources.get('admin.enabled'), 'PASSKEY_ADMIN_ENABLED');
    }
  });
});

describe('settings only the environment gives', () => {
  it('the log level: one of the logger levels, any case; anything else info', () => {
    for (const level of LOG_LEVELS) assert.equal(logLevelOf({ PASSKEY_LOG_LEVEL: ` ${level.toUpperCase()} ` }), level);
    assert.equal(logLevelOf({ PASSKEY_LOG_LEVEL: 'loud' }), 'info');
    assert.equal(logLevelOf({}), 'info');
  });

  it('the metadata check interval: milliseconds in the bounds, else a problem naming the variable', () => {
    const problems: string[] = [];
    assert.equal(metadataCheckIntervalMs({}, problems), 60_000);
    assert.equal(metadataCheckIntervalMs({ PASSKEY_METADATA_CHECK_INTERVAL_MS: ' 0 ' }, problems), 0);
    assert.equal(metadataCheckIntervalMs({ PASSKEY_METADATA_CHECK_INTERVAL_MS: '86400000' }, problems), 86_400_000);
    assert.deepEqual(problems, []);
    assert.equal(metadataCheckIntervalMs({ PASSKEY_METADATA_CHECK_INTERVAL_MS: '-1' }, problems), 60_000);
    assert.deepEqual(problems, [
      'PASSKEY_METADATA_CHECK_INTERVAL_MS: must be milliseconds from 0 (no periodic check) to 86400000, got "-1"',
    ]);
  });
});
