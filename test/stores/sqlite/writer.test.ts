// The SQLite writer thread (src/stores/sqlite/writer.ts): the credential store contract with the writer in
// place, group commit (writes that arrive together share a transaction, each answered after it), the
// compare-and-set inside one group, what a failed write does to the rest of its group, outages as
// StoreUnavailableError, and close committing what is queued.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Database } from '../../../src/stores/sqlite/open.js';
import { SqliteCredentialStore } from '../../../src/stores/sqlite/credentials.js';
import { openSqliteDatabase } from '../../../src/stores/sqlite/open.js';
import {
  openSqliteWriter,
  resolveWriterMode,
  SqliteWriteError,
  type SqliteWriter,
  type SqliteWriterMode,
} from '../../../src/stores/sqlite/writer.js';
import type { CredentialUse } from '../../../src/stores/types.js';
import { StoreUnavailableError } from '../../../src/errors/catalogue.js';
import { SqliteAuditStore } from '../../../src/stores/sqlite/audit.js';
import { tempDir } from '../../config/support.js';
import { credential, credentialStoreContract } from '../contract.js';

const newFile = () => join(tempDir('passkey-writer-'), 'fido2.db');

/** A credential store committing through its own writer, which it closes with itself. */
class StoreWithWriter extends SqliteCredentialStore {
  readonly path: string;
  readonly writer: SqliteWriter;
  constructor(path: string, writer: SqliteWriter) {
    super(openSqliteDatabase(path), { writer });
    this.path = path;
    this.writer = writer;
  }
  override async close(): Promise<void> {
    await super.close();
    await this.writer.close();
  }
}

for (const mode of ['thread', 'inline'] as const satisfies readonly SqliteWriterMode[]) {
  const storeWithWriter = async (path = newFile()): Promise<StoreWithWriter> =>
    new StoreWithWriter(path, await openSqliteWriter(path, { mode }));

  credentialStoreContract(`sqlite with the ${mode} writer`, () => storeWithWriter(), {
    reopen: (store) => storeWithWriter((store as StoreWithWriter).path),
  });

  const use = (expectedSignCount: number, signCount: number): CredentialUse => ({
    expectedSignCount,
    expectedAuthenticatorStatus: null,
    expectedCreatedAt: 1_700_000_000_000,
    signCount,
    backupEligible: false,
    backupState: false,
    userVerified: true,
    cloneWarning: false,
    usedAt: 1_800_000_000_000,
  });

  describe(`SQLite writer (${mode})`, () => {
    it('writes that arrive together share one transaction, and each is stored when its promise resolves', async () => {
      const store = await storeWithWriter();
      try {
        const records = Array.from({ length: 40 }, () => credential());
        const outcomes = await Promise.all(records.map((record) => store.create(record)));
        assert.deepEqual(new Set(outcomes), new Set(['created']));
        const { writes, groups } = store.writer.stats();
        assert.equal(writes, 40);
        assert.ok(groups < writes, `40 concurrent writes took ${groups} transactions`);
        // Another connection (another process would have one) sees every row at once.
        const other = new Database(store.path, { readonly: true });
        try {
          for (const record of records) {
            const row = other
              .prepare('SELECT count(*) AS n FROM credentials WHERE client_id = ? AND credential_id = ?')
              .get(record.clientId, record.credentialId) as { n: number };
            assert.equal(row.n, 1);
          }
        } finally {
          other.close();
        }
      } finally {
        await store.close();
      }
    });

    it('compare-and-set holds inside one group: of ten uses expecting the same counter, exactly one applies', async () => {
      const store = await storeWithWriter();
      try {
        const record = credential({ signCount: 5 });
        await store.create(record);
        const applied = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.recordUse(record.clientId, record.credentialId, use(5, 6 + i))),
        );
        assert.equal(applied.filter(Boolean).length, 1);
        const winner = applied.indexOf(true);
        assert.equal((await store.find(record.clientId, record.credentialId))?.signCount, 6 + winner);
      } finally {
        await store.close();
      }
    });

    it('the same credential created twice in one group: one created, one duplicate, the first one kept', async () => {
      const store = await storeWithWriter();
      try {
        const first = credential({ username: 'first#idp.example.test' });
        const second = { ...first, username: 'second#idp.example.test' };
        assert.deepEqual(await Promise.all([store.create(first), store.create(second)]), ['created', 'duplicate']);
        assert.equal((await store.find(first.clientId, first.credentialId))?.username, 'first#idp.example.test');
      } finally {
        await store.close();
      }
    });

    it('a write that fails on its own (a bug, not an outage) fails alone: the rest of its group is stored', async () => {
      const path = newFile();
      const writer = await openSqliteWriter(path, { mode });
      const store = new SqliteCredentialStore(openSqliteDatabase(path), { writer });
      try {
        const record = credential();
        // A write missing its parameters: SQLite refuses that statement only.
        const [created, broken, after] = await Promise.allSettled([
          store.create(record),
          writer.run('credential.use', { clientId: record.clientId }),
          store.create(credential()),
        ]);
        assert.deepEqual(after, { status: 'fulfilled', value: 'created' });
        assert.deepEqual(created, { status: 'fulfilled', value: 'created' });
        assert.equal(broken.status, 'rejected');
        assert.ok((broken as PromiseRejectedResult).reason instanceof SqliteWriteError);
        assert.ok(!((broken as PromiseRejectedResult).reason instanceof StoreUnavailableError));
        assert.ok(await store.find(record.clientId, record.credentialId));
        // The thread lives on.
        assert.equal(await store.create(credential()), 'created');
      } finally {
        await store.close();
        await writer.close();
      }
    });

    it('a write lock held elsewhere past the busy timeout is an outage (StoreUnavailableError), and the writer recovers', async () => {
      const path = newFile();
      const writer = await openSqliteWriter(path, { mode, busyTimeoutMs: 100 });
      const store = new SqliteCredentialStore(openSqliteDatabase(path), { writer });
      const other = new Database(path);
      try {
        other.exec('BEGIN IMMEDIATE');
        const records = [credential(), credential()];
        const outcomes = await Promise.allSettled(records.map((record) => store.create(record)));
        for (const outcome of outcomes) {
          assert.equal(outcome.status, 'rejected');
          assert.ok((outcome as PromiseRejectedResult).reason instanceof StoreUnavailableError);
        }
        other.exec('ROLLBACK');
        assert.equal(await store.find(records[0]!.clientId, records[0]!.credentialId), undefined);
        assert.equal(await store.create(records[0]!), 'created');
      } finally {
        other.close();
        await store.close();
        await writer.close();
      }
    });

    it('close commits every write already sent, then refuses new ones', async () => {
      const path = newFile();
      const writer = await openSqliteWriter(path, { mode });
      const store = new SqliteCredentialStore(openSqliteDatabase(path), { writer });
      const records = Array.from({ length: 25 }, () => credential());
      const pending = records.map((record) => store.create(record));
      await writer.close();
      assert.deepEqual(new Set(await Promise.all(pending)), new Set(['created']));
      await assert.rejects(store.create(credential()), StoreUnavailableError);
      await assert.rejects(writer.ping(), StoreUnavailableError);
      for (const record of records) assert.ok(await store.find(record.clientId, record.credentialId));
      await store.close();
    });

    it('the audit store commits through the same writer, in the same groups as credential writes', async () => {
      const path = newFile();
      const writer = await openSqliteWriter(path, { mode });
      const audit = new SqliteAuditStore(path, { writer });
      const store = new SqliteCredentialStore(openSqliteDatabase(path), { writer });
      try {
        const event = (n: number) => ({
          id: `evt-${String(n).padStart(4, '0')}`,
          time: new Date(1_800_000_000_000 + n).toISOString(),
          actor: 'client:app',
          action: 'ceremony.authentication',
          result: 'ok' as const,
          clientId: 'app',
          subject: null,
          target: null,
          errorName: null,
          requestId: null,
          remoteAddress: null,
          details: {},
        });
        await Promise.all([
          store.create(credential()),
          audit.append(event(1)),
          store.create(credential()),
          audit.append(event(2)),
        ]);
        assert.equal(writer.stats().writes, 4);
        assert.ok(writer.stats().groups < 4);
        assert.deepEqual(
          (await audit.query({ limit: 10 })).map((e) => e.id),
          ['evt-0001', 'evt-0002'],
        );
      } finally {
        await audit.close();
        await store.close();
        await writer.close();
      }
    });

    it("readiness: ping answers from the thread's connection", async () => {
      const store = await storeWithWriter();
      await store.ping();
      await store.close();
    });

    it('a file that cannot be opened fails at open with the path in the message', async () => {
      const dir = tempDir('passkey-writer-');
      await assert.rejects(
        openSqliteWriter(dir, { mode }),
        (error: Error) => error instanceof StoreUnavailableError && error.message.includes(dir),
      );
    });
  });
}

describe('sqliteWriter "auto"', () => {
  it('is the thread when the process may use two or more cores, inline when it is confined to one', () => {
    assert.equal(resolveWriterMode('auto', 1), 'inline');
    assert.equal(resolveWriterMode('auto', 2), 'thread');
    assert.equal(resolveWriterMode('auto', 64), 'thread');
  });

  it('an explicit mode is kept whatever the cores', () => {
    for (const cores of [1, 2, 8]) {
      assert.equal(resolveWriterMode('thread', cores), 'thread');
      assert.equal(resolveWriterMode('inline', cores), 'inline');
    }
  });
});
