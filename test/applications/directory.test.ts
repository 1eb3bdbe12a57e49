// seedApplications and relay secrets: an application of the config file that was changed through the admin
// API keeps its stored settings, but its relay secrets always follow the file (a rotation must reach it).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { seedApplications } from '../../src/applications/directory.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { relaySecretHash } from '../../src/config/relay-secret-entries.js';
import { applicationConfig } from '../support/harness.js';

describe('seedApplications: relay secrets follow the config file', () => {
  it('even for an application changed through the admin API since', async () => {
    const store = new MemoryApplicationStore();
    const old = relaySecretHash('prs_old-secret-0123456789abcdef');
    const next = relaySecretHash('prs_new-secret-0123456789abcdef');
    await seedApplications(store, [applicationConfig({ relaySecrets: [old] })], 1);
    const seeded = (await store.get('test-client'))!;
    await store.update({ ...seeded, config: { ...seeded.config, name: 'Renamed' }, source: 'admin' });

    const report = await seedApplications(store, [applicationConfig({ relaySecrets: [old, next] })], 2);
    const after = (await store.get('test-client'))!;
    assert.deepEqual(after.config.relaySecrets, [old, next]);
    assert.equal(after.config.name, 'Renamed', 'the admin change is kept');
    assert.deepEqual(report.kept, ['test-client']);

    await seedApplications(store, [applicationConfig()], 3);
    assert.equal('relaySecrets' in (await store.get('test-client'))!.config, false, 'removed from the file: gone');
  });
});
