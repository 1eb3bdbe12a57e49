// The relay secret stores (src/stores/relay-secret-types.ts): one contract, run against memory, SQLite (a
// real file, two connections on it like two processes) and PostgreSQL (a schema of this run's own, two
// stores on it like two instances): created secrets listed oldest first, revoked by id within their
// application only, last uses that only move forward whatever order instances flush in, everything of an
// application gone with it.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { relaySecretHash } from '../../src/config/relay-secret-entries.js';
import { MemoryRelaySecretStore } from '../../src/stores/memory/relay-secrets.js';
import { PostgresRelaySecretStore } from '../../src/stores/postgres/relay-secrets.js';
import type { RelaySecretStore } from '../../src/stores/relay-secret-types.js';
import { SqliteRelaySecretStore } from '../../src/stores/sqlite/relay-secrets.js';
import { T0 } from '../support/admin-fixtures.js';
import { freshSchema, POSTGRES_URL } from '../scale/support/backends.js';

interface Pair {
  readonly store: RelaySecretStore;
  /** Another connection or instance on the same data (the memory store: itself). */
  readonly other: RelaySecretStore;
  close(): Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'relay-secrets-'));
let files = 0;
after(() => rmSync(dir, { recursive: true, force: true }));

const BACKENDS: Record<string, () => Promise<Pair>> = {
  memory: async () => {
    const store = new MemoryRelaySecretStore();
    return { store, other: store, close: () => store.close() };
  },
  sqlite: async () => {
    const file = join(dir, `secrets-${(files += 1)}.db`);
    const store = new SqliteRelaySecretStore(file);
    const other = new SqliteRelaySecretStore(file);
    return { store, other, close: async () => void (await Promise.all([store.close(), other.close()])) };
  },
  postgres: async () => {
    const schema = await freshSchema('relay_secrets');
    const store = await PostgresRelaySecretStore.open(POSTGRES_URL, { schema: schema.schema });
    const other = await PostgresRelaySecretStore.open(`${POSTGRES_URL}?schema=${schema.schema}`);
    return {
      store,
      other,
      close: async () => {
        await Promise.all([store.close(), other.close()]);
        await schema.drop();
      },
    };
  },
};

const secret = (id: string, clientId: string, createdAt: number) => ({
  id,
  clientId,
  hash: relaySecretHash(`secret-of-${id}-0123456789`),
  createdAt,
});

for (const [name, open] of Object.entries(BACKENDS)) {
  describe(`relay secret store: ${name}`, () => {
    it('creates, lists oldest first per application, revokes by id in its application only', async () => {
      const { store, other, close } = await open();
      try {
        await store.create(secret('rs_b', 'app-1', T0 + 10));
        await store.create(secret('rs_a', 'app-1', T0 + 10));
        await store.create(secret('rs_c', 'app-1', T0));
        await store.create(secret('rs_d', 'app-2', T0));
        assert.deepEqual(
          (await other.list('app-1')).map((s) => s.id),
          ['rs_c', 'rs_a', 'rs_b'],
        );
        assert.deepEqual(await other.list('app-2'), [secret('rs_d', 'app-2', T0)]);
        assert.deepEqual(await other.list('nobody'), []);
        await assert.rejects(store.create(secret('rs_a', 'app-1', T0)), 'an id is never reused');

        assert.equal(await other.delete('app-2', 'rs_a'), false, 'not in that application');
        assert.equal(await other.delete('app-1', 'rs_a'), true);
        assert.equal(await store.delete('app-1', 'rs_a'), false, 'already gone');
        assert.deepEqual(
          (await store.list('app-1')).map((s) => s.id),
          ['rs_c', 'rs_b'],
        );
      } finally {
        await close();
      }
    });

    it('keeps the latest use of each secret, by hash, whatever order uses arrive in', async () => {
      const { store, other, close } = await open();
      try {
        const kept = secret('rs_kept', 'app-1', T0);
        const gone = secret('rs_gone', 'app-1', T0);
        const fromFile = relaySecretHash('a secret of the config file');
        await store.create(kept);
        await store.create(gone);
        assert.deepEqual(await store.lastUses('app-1'), new Map());
        await store.recordUses([
          { clientId: 'app-1', hash: kept.hash, at: T0 + 500 },
          { clientId: 'app-1', hash: fromFile, at: T0 + 100 },
          { clientId: 'app-1', hash: gone.hash, at: T0 + 100 },
          { clientId: 'app-2', hash: kept.hash, at: T0 + 900 },
        ]);
        // Another instance flushes an older use later, then a newer one (twice in one batch).
        await other.recordUses([{ clientId: 'app-1', hash: kept.hash, at: T0 + 200 }]);
        await other.recordUses([
          { clientId: 'app-1', hash: fromFile, at: T0 + 300 },
          { clientId: 'app-1', hash: fromFile, at: T0 + 250 },
        ]);
        await other.recordUses([]);
        assert.deepEqual(
          await store.lastUses('app-1'),
          new Map([
            [kept.hash, T0 + 500],
            [fromFile, T0 + 300],
            [gone.hash, T0 + 100],
          ]),
        );
        assert.equal(await store.delete('app-1', gone.id), true);
        assert.equal((await other.lastUses('app-1')).has(gone.hash), false, 'a revoked secret leaves no use behind');

        assert.equal(await other.deleteByApplication('app-1'), 1);
        assert.deepEqual(await store.list('app-1'), []);
        assert.deepEqual(await store.lastUses('app-1'), new Map());
        assert.deepEqual(await store.lastUses('app-2'), new Map([[kept.hash, T0 + 900]]), 'others keep theirs');
        await store.ping();
      } finally {
        await close();
      }
    });
  });
}
