// The application and audit stores: one contract, run against memory and SQLite (a real file, two
// connections on it like two processes).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { SqliteApplicationStore } from '../../src/stores/sqlite/applications.js';
import { SqliteAuditStore } from '../../src/stores/sqlite/audit.js';
import { AuditLog } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { T0, testRuntime } from '../support/admin-fixtures.js';
import { applicationContract, auditContract, record } from './applications-audit-contract.js';

applicationContract('memory', () => {
  const store = new MemoryApplicationStore();
  return { store, other: store, close: () => store.close() };
});
auditContract('memory', () => {
  const store = new MemoryAuditStore();
  return { store, other: store, close: () => store.close() };
});

const dir = mkdtempSync(join(tmpdir(), 'ops-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));

applicationContract('sqlite', () => {
  const file = join(dir, 'apps.db');
  const store = new SqliteApplicationStore(file);
  const other = new SqliteApplicationStore(file);
  return {
    store,
    other,
    close: async () => {
      await store.close();
      await other.close();
    },
  };
});
auditContract('sqlite', () => {
  const file = join(dir, 'audit.db');
  const store = new SqliteAuditStore(file);
  const other = new SqliteAuditStore(file);
  return {
    store,
    other,
    close: async () => {
      await store.close();
      await other.close();
    },
  };
});

describe('sqlite ops stores: lifecycle', () => {
  it('survive reopening, prune old audit events, and report a closed database as unavailable', async () => {
    const file = join(dir, 'life.db');
    const apps = new SqliteApplicationStore(file);
    await apps.create(record('kept'));
    await apps.close();
    const reopened = new SqliteApplicationStore(file);
    assert.equal((await reopened.get('kept'))?.config.name, 'App kept');
    await reopened.close();
    await assert.rejects(reopened.get('kept'), { name: 'StoreUnavailableError' });

    const auditStore = new SqliteAuditStore(file);
    const runtime = testRuntime();
    const audit = new AuditLog(auditStore, runtime);
    await audit.record({ actor: 'system', action: 'old', result: 'ok' });
    runtime.advance(10_000);
    await audit.record({ actor: 'system', action: 'new', result: 'ok' });
    assert.equal(await auditStore.prune(T0 + 5000), 1);
    assert.deepEqual(
      (await auditStore.query({ limit: 10 })).map((e) => e.action),
      ['new'],
    );
    await auditStore.close();
  });
});
