// The contracts every application store and audit store must meet (memory, SQLite, PostgreSQL).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog } from '../../src/audit/index.js';
import type { ApplicationRecord, ApplicationStore, AuditStore } from '../../src/stores/types.js';
import type { ApplicationConfig } from '../../src/service-config.js';
import { T0, testRuntime } from '../support/admin-fixtures.js';

const config = (clientId: string, over: Partial<ApplicationConfig> = {}): ApplicationConfig => ({
  clientId,
  name: `App ${clientId}`,
  icon: '',
  domain: 'app.example.test',
  origins: ['https://app.example.test'],
  variants: ['standard', 'local'],
  localOrigins: ['https://localhost'],
  timeoutMs: 180_000,
  algorithms: [-7, -8, -257],
  userVerification: 'required',
  counterPolicy: 'warn',
  revealUnknownUsers: false,
  allowCrossOrigin: false,
  maxPasskeysPerUser: 100,
  attestation: {
    trustAnchors: ['/etc/roots/a.pem'],
    requireTrusted: true,
    metadata: null,
    aaguidAllow: [],
    aaguidDeny: ['cb69481e-8ff7-4039-93ec-0a2729a154a8'],
  },
  ...over,
});

export const record = (clientId: string, over: Partial<ApplicationRecord> = {}): ApplicationRecord => ({
  config: config(clientId),
  approved: true,
  disabled: false,
  source: 'config',
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export function applicationContract(
  name: string,
  open: () =>
    | Promise<{ store: ApplicationStore; other: ApplicationStore; close: () => Promise<void> }>
    | { store: ApplicationStore; other: ApplicationStore; close: () => Promise<void> },
) {
  describe(`${name} application store`, () => {
    let store: ApplicationStore;
    let other: ApplicationStore;
    let close: () => Promise<void>;
    before(async () => ({ store, other, close } = await open()));
    after(async () => close());

    it('creates, refuses duplicates, reads back exactly, lists by Client ID', async () => {
      assert.equal(await store.create(record('b-app')), 'created');
      assert.equal(await store.create(record('a-app', { approved: false, source: 'admin' })), 'created');
      assert.equal(await store.create(record('b-app', { disabled: true })), 'duplicate');
      assert.deepEqual(await store.get('b-app'), record('b-app'));
      assert.deepEqual(await other.get('a-app'), record('a-app', { approved: false, source: 'admin' }));
      assert.deepEqual(
        (await store.list()).map((r) => r.config.clientId),
        ['a-app', 'b-app'],
      );
      assert.equal(await store.get('missing'), undefined);
    });

    it('updates existing records only, and deletes', async () => {
      const changed = record('b-app', {
        config: config('b-app', { name: 'Changed', origins: [], variants: ['local'] }),
        disabled: true,
        source: 'admin',
        updatedAt: T0 + 5,
      });
      assert.equal(await store.update(changed), true);
      assert.deepEqual(await other.get('b-app'), changed);
      assert.equal(await store.update(record('nope')), false);
      assert.equal(await store.delete('b-app'), true);
      assert.equal(await store.delete('b-app'), false);
      assert.equal(await other.get('b-app'), undefined);
      await store.ping?.();
    });
  });
}

export function auditContract(
  name: string,
  open: () =>
    | Promise<{ store: AuditStore; other: AuditStore; close: () => Promise<void> }>
    | { store: AuditStore; other: AuditStore; close: () => Promise<void> },
) {
  describe(`${name} audit store`, () => {
    let store: AuditStore;
    let other: AuditStore;
    let close: () => Promise<void>;
    before(async () => ({ store, other, close } = await open()));
    after(async () => close());

    it('appends and queries oldest first with every filter and paging', async () => {
      const runtime = testRuntime();
      const audit = new AuditLog(store, runtime);
      const actions = [
        'application.create',
        'credential.delete',
        'credential.rename',
        'credential_x.weird',
        'ceremony.registration',
      ];
      for (let i = 0; i < 10; i++) {
        runtime.advance(1000);
        await audit.record({
          actor: i < 5 ? 'admin:a' : 'cli:b',
          action: actions[i % 5]!,
          result: i % 3 === 0 ? 'failed' : 'ok',
          errorName: i % 3 === 0 ? 'X' : null,
          clientId: i % 2 ? 'app-1' : null,
          subject: 'user#d',
          target: `t${i}`,
          details: { n: i, fields: ['a', 'b'] },
        });
      }
      const all = await other.query({ limit: 100 });
      assert.equal(all.length, 10);
      assert.deepEqual(
        all.map((e) => e.target),
        ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9'],
      );
      assert.deepEqual(all[3]!.details, { n: 3, fields: ['a', 'b'] });
      assert.equal(all[0]!.errorName, 'X');
      assert.equal((await store.query({ limit: 100, since: T0 + 3000, until: T0 + 6000 })).length, 3);
      assert.deepEqual(
        (await store.query({ limit: 100, action: 'credential.' })).map((e) => e.action),
        ['credential.delete', 'credential.rename', 'credential.delete', 'credential.rename'],
      );
      assert.equal((await store.query({ limit: 100, action: 'credential.delete' })).length, 2);
      assert.equal((await store.query({ limit: 100, clientId: 'app-1' })).length, 5);
      assert.equal((await store.query({ limit: 100, actor: 'cli:b', result: 'failed' })).length, 2);
      const page = await store.query({ limit: 4 });
      const next = await store.query({ limit: 4, after: page.at(-1)!.id });
      assert.deepEqual(
        next.map((e) => e.target),
        ['t4', 't5', 't6', 't7'],
      );
    });
  });
}
