// An application the admin API stored before `maxPasskeysPerUser` existed (issue 35) reads with the schema's
// default, 100, through the stores the service opens (src/compose/stores.ts → src/applications/stored-defaults.ts),
// on a real SQLite file: its record in the database is left as written, keys without a default stay absent,
// and a stored value is kept.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOpsStores } from '../../src/compose/stores.js';
import { SqliteApplicationStore } from '../../src/stores/sqlite/applications.js';
import type { ApplicationConfig } from '../../src/service-config.js';
import type { ApplicationRecord } from '../../src/stores/types.js';
import { applicationConfig } from '../support/harness.js';

function stored(config: ApplicationConfig): ApplicationRecord {
  return { config, approved: true, disabled: false, source: 'admin', createdAt: 1, updatedAt: 1 };
}

describe('applications stored before a key with a default existed', () => {
  it('read with the default (maxPasskeysPerUser 100), the database row unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'passkey-defaults-'));
    try {
      const path = join(dir, 'passkeys.db');
      const raw = new SqliteApplicationStore(path);
      const { maxPasskeysPerUser: _absent, ...older } = applicationConfig({ clientId: 'older' });
      await raw.create(stored(older as ApplicationConfig));
      await raw.create(stored(applicationConfig({ clientId: 'newer', maxPasskeysPerUser: 7 })));

      const ops = await openOpsStores({ database: { kind: 'sqlite', path } });
      try {
        const read = (await ops.applications.get('older'))!.config;
        assert.equal(read.maxPasskeysPerUser, 100);
        assert.deepEqual({ ...read, maxPasskeysPerUser: undefined }, { ...older, maxPasskeysPerUser: undefined });
        assert.equal('addPasskey' in read, false, 'a key without a default stays absent');
        assert.equal((await ops.applications.get('newer'))!.config.maxPasskeysPerUser, 7);
        assert.deepEqual(
          (await ops.applications.list()).map((r) => [r.config.clientId, r.config.maxPasskeysPerUser]),
          [
            ['newer', 7],
            ['older', 100],
          ],
        );
        assert.equal('maxPasskeysPerUser' in (await raw.get('older'))!.config, false, 'the row is as written');
      } finally {
        await ops.close();
      }
      await raw.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
