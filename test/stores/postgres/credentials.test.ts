// PostgreSQL stores: the shared contract (credentials, and ceremonies for `challenges: "database"`),
// numbered migrations and the start-up schema check, housekeeping, and behaviour while the database is
// unreachable. Runs against the machine's PostgreSQL in a schema of its own, dropped at the end.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  checkSharedSecrets,
  migratePostgres,
  openPostgresChallengeStore,
  openPostgresCredentialStore,
  POSTGRES_SCHEMA_VERSION,
  SchemaVersionError,
  SecretsMismatchError,
} from '../../../src/stores/postgres/open.js';
import { POSTGRES_MIGRATIONS } from '../../../src/stores/postgres/migrations/index.js';

import { StoreUnavailableError } from '../../../src/errors/catalogue.js';
import { ceremony, challengeStoreContract, credential, credentialStoreContract } from '../contract.js';
import { localCredentialContract } from '../local-contract.js';
import { freshSchema, POSTGRES_URL, sql, type TestSchema } from '../../scale/support/backends.js';
import { startProxy } from '../../scale/support/proxy.js';

/** The tables the operations stores of builds before migration 4 created on first use. */
const adHocOpsTables = (schema: string) => `
CREATE TABLE IF NOT EXISTS ${schema}.ops_applications (client_id TEXT PRIMARY KEY, config JSON NOT NULL, approved BOOLEAN NOT NULL,
  disabled BOOLEAN NOT NULL, source TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ${schema}.ops_audit_events (id TEXT PRIMARY KEY, at BIGINT NOT NULL, client_id TEXT, action TEXT NOT NULL,
  actor TEXT NOT NULL, result TEXT NOT NULL, event JSON NOT NULL);
CREATE INDEX IF NOT EXISTS ops_audit_events_at ON ${schema}.ops_audit_events (at);
CREATE INDEX IF NOT EXISTS ops_audit_events_client ON ${schema}.ops_audit_events (client_id, id);
`;

const schemas: TestSchema[] = [];
let shared: TestSchema | undefined;
after(async () => {
  await Promise.all(schemas.map((s) => s.drop()));
});

/** The schema the contract runs in, created and migrated on first use. */
async function contractSchema(): Promise<string> {
  if (shared === undefined) {
    shared = await freshSchema('contract');
    schemas.push(shared);
  }
  return shared.schema;
}

async function newSchema(label: string, migrate = true): Promise<string> {
  const created = await freshSchema(label, { migrate });
  schemas.push(created);
  return created.schema;
}

credentialStoreContract(
  'postgres',
  async () => openPostgresCredentialStore(POSTGRES_URL, { schema: await contractSchema() }),
  {
    reopen: async () => openPostgresCredentialStore(POSTGRES_URL, { schema: await contractSchema() }),
  },
);

challengeStoreContract(
  'postgres (challenges: "database")',
  async () => openPostgresChallengeStore(POSTGRES_URL, { schema: await contractSchema() }),
  {
    reopen: async () => openPostgresChallengeStore(POSTGRES_URL, { schema: await contractSchema() }),
  },
);

/** Stores opened with limits get a schema of their own (no other test's entries count towards them). */
const localSchemas = new WeakMap<object, string>();
localCredentialContract(
  'postgres (challenges: "database")',
  async (localLimits) => {
    const schema = localLimits === undefined ? await contractSchema() : await newSchema('local_limits');
    const store = await openPostgresChallengeStore(POSTGRES_URL, { schema, ...(localLimits ? { localLimits } : {}) });
    localSchemas.set(store, schema);
    return store;
  },
  {
    reopen: async (store, localLimits) =>
      openPostgresChallengeStore(POSTGRES_URL, { schema: localSchemas.get(store)!, localLimits }),
  },
);

describe('PostgreSQL migrations', () => {
  it('the migrations are numbered 1…N without gaps, and N is the schema version', () => {
    assert.deepEqual(
      POSTGRES_MIGRATIONS.map((m) => m.version),
      Array.from({ length: POSTGRES_MIGRATIONS.length }, (_, i) => i + 1),
    );
    assert.equal(POSTGRES_SCHEMA_VERSION, POSTGRES_MIGRATIONS.length);
  });

  it('migrate applies every migration once, records it, and a second run applies nothing', async () => {
    const schema = await newSchema('migrate', false);
    const first = await migratePostgres(POSTGRES_URL, { schema });
    assert.equal(first.from, 0);
    assert.equal(first.to, POSTGRES_SCHEMA_VERSION);
    assert.deepEqual(
      first.applied.map((m) => m.version),
      POSTGRES_MIGRATIONS.map((m) => m.version),
    );
    const second = await migratePostgres(POSTGRES_URL, { schema });
    assert.deepEqual(second, { from: POSTGRES_SCHEMA_VERSION, to: POSTGRES_SCHEMA_VERSION, applied: [] });
    const rows = await sql<{ version: number }>(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
    assert.deepEqual(
      rows.map((r) => r.version),
      POSTGRES_MIGRATIONS.map((m) => m.version),
    );
  });

  it('several instances migrating at once apply each migration exactly once', async () => {
    const schema = await newSchema('migrate_race', false);
    const reports = await Promise.all([1, 2, 3].map(() => migratePostgres(POSTGRES_URL, { schema })));
    assert.equal(reports.filter((r) => r.applied.length > 0).length, 1);
    const rows = await sql<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".schema_migrations`);
    assert.equal(Number(rows[0]?.n), POSTGRES_SCHEMA_VERSION);
  });

  it('a store refuses to start on an unmigrated schema, saying to run migrate', async () => {
    const schema = await newSchema('unmigrated', false);
    for (const open of [openPostgresCredentialStore, openPostgresChallengeStore]) {
      await assert.rejects(
        open(POSTGRES_URL, { schema }),
        (error: unknown) =>
          error instanceof SchemaVersionError && /not migrated/.test(error.message) && /migrate/.test(error.message),
      );
    }
  });

  it('a store refuses to start on a schema newer than this build', async () => {
    const schema = await newSchema('newer');
    await sql(`INSERT INTO "${schema}".schema_migrations (version, name) VALUES ($1, 'from the future')`, [
      POSTGRES_SCHEMA_VERSION + 1,
    ]);
    await assert.rejects(
      openPostgresCredentialStore(POSTGRES_URL, { schema }),
      (error: unknown) => error instanceof SchemaVersionError && /newer than this build/.test(error.message),
    );
    await assert.rejects(migratePostgres(POSTGRES_URL, { schema }), SchemaVersionError);
  });

  it('a store refuses to start on a schema behind this build', async () => {
    const schema = await newSchema('behind');
    await sql(`DELETE FROM "${schema}".schema_migrations WHERE version = $1`, [POSTGRES_SCHEMA_VERSION]);
    await assert.rejects(
      openPostgresCredentialStore(POSTGRES_URL, { schema }),
      (error: unknown) =>
        error instanceof SchemaVersionError &&
        /is at version \d+, this build needs/.test(error.message) &&
        /migrate/.test(error.message),
    );
  });

  it('upgrading a database from version 1 keeps its credentials and reaches the current version', async () => {
    const schema = await newSchema('upgrade', false);
    assert.deepEqual(
      (await migratePostgres(POSTGRES_URL, { schema, toVersion: 1 })).applied.map((m) => m.version),
      [1],
    );
    await assert.rejects(openPostgresCredentialStore(POSTGRES_URL, { schema }), /is at version 1, this build needs/);
    const old = credential();
    await sql(
      `INSERT INTO "${schema}".credentials (client_id, credential_id, user_handle, username, public_key, algorithm,
      sign_count, transports, aaguid, attestation_format, attestation_type, attestation_trusted, backup_eligible,
      backup_state, user_verified, resident_key, clone_warning, created_at, last_used_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
      [
        old.clientId,
        old.credentialId,
        old.userHandle,
        old.username,
        Buffer.from(old.publicKey),
        old.algorithm,
        old.signCount,
        old.transports,
        old.aaguid,
        old.attestationFormat,
        old.attestationType,
        old.attestationTrusted,
        old.backupEligible,
        old.backupState,
        old.userVerified,
        old.residentKey,
        old.cloneWarning,
        old.createdAt,
        old.lastUsedAt,
      ],
    );
    const report = await migratePostgres(POSTGRES_URL, { schema });
    assert.equal(report.from, 1);
    assert.equal(report.to, POSTGRES_SCHEMA_VERSION);
    const store = await openPostgresCredentialStore(POSTGRES_URL, { schema });
    try {
      const found = await store.find(old.clientId, old.credentialId);
      assert.equal(found?.credentialId, old.credentialId);
      assert.deepEqual(Buffer.from(found!.publicKey), Buffer.from(old.publicKey));
    } finally {
      await store.close();
    }
  });

  it('migration 4 keeps operations tables (and rows) that the operations stores created before it', async () => {
    const schema = await newSchema('ops', false);
    await migratePostgres(POSTGRES_URL, { schema, toVersion: 3 });
    await sql(adHocOpsTables(`"${schema}"`));
    await sql(`INSERT INTO "${schema}".ops_applications VALUES ('app-1', '{"b":1,"a":2}', true, false, 'admin', 1, 2)`);
    assert.deepEqual(
      (await migratePostgres(POSTGRES_URL, { schema, toVersion: 4 })).applied.map((m) => m.version),
      [4],
    );
    const rows = await sql<{ config: unknown }>(`SELECT config::text AS config FROM "${schema}".ops_applications`);
    assert.deepEqual(rows, [{ config: '{"b":1,"a":2}' }]);
    const fresh = await newSchema('ops_fresh');
    const tables = await sql<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'ops_%' ORDER BY table_name`,
      [fresh],
    );
    assert.deepEqual(
      tables.map((t) => t.table_name),
      ['ops_applications', 'ops_audit_events'],
    );
  });

  it('the schema can be given in the URL (?schema=), for migrate and for the stores', async () => {
    const schema = await newSchema('url', false);
    const url = `${POSTGRES_URL}?schema=${schema}`;
    assert.equal((await migratePostgres(url)).to, POSTGRES_SCHEMA_VERSION);
    const store = await openPostgresCredentialStore(url);
    try {
      const record = credential();
      await store.create(record);
      assert.equal(
        (await sql(`SELECT 1 FROM "${schema}".credentials WHERE credential_id = $1`, [record.credentialId])).length,
        1,
      );
    } finally {
      await store.close();
    }
  });

  it('a schema name that is not a plain identifier is refused before any SQL is sent', async () => {
    await assert.rejects(migratePostgres(POSTGRES_URL, { schema: 'x"; DROP TABLE y; --' }), /schema name/);
  });
});

describe('PostgreSQL credential names and readiness', () => {
  it('rename sets and clears a nickname; nickname and authenticator name round-trip, absent means none', async () => {
    const store = await openPostgresCredentialStore(POSTGRES_URL, { schema: await contractSchema() });
    try {
      const record = credential();
      await store.create(record);
      assert.equal('nickname' in (await store.find(record.clientId, record.credentialId))!, false);
      assert.equal(await store.rename!(record.clientId, record.credentialId, 'Work laptop'), true);
      assert.equal((await store.find(record.clientId, record.credentialId))?.nickname, 'Work laptop');
      assert.equal(await store.rename!(record.clientId, record.credentialId, null), true);
      assert.equal('nickname' in (await store.find(record.clientId, record.credentialId))!, false);
      assert.equal(await store.rename!(record.clientId, 'dW5rbm93bg', 'x'), false);
      const named = credential({ nickname: 'Phone', authenticatorName: 'YubiKey 5 NFC' });
      await store.create(named);
      const found = await store.find(named.clientId, named.credentialId);
      assert.equal(found?.nickname, 'Phone');
      assert.equal(found?.authenticatorName, 'YubiKey 5 NFC');
      assert.equal('authenticatorName' in (await store.find(record.clientId, record.credentialId))!, false);
    } finally {
      await store.close();
    }
  });

  it('ping answers while the database is up', async () => {
    const credentials = await openPostgresCredentialStore(POSTGRES_URL, { schema: await contractSchema() });
    const challenges = await openPostgresChallengeStore(POSTGRES_URL, { schema: await contractSchema() });
    try {
      await credentials.ping!();
      await challenges.ping!();
    } finally {
      await credentials.close();
      await challenges.close();
    }
  });
});

describe('PostgreSQL: every instance must share the secrets', () => {
  const secrets = () => ({ userHandleKey: randomBytes(32), localBlobKeys: [{ id: 'k1', key: randomBytes(32) }] });

  it('the first instance records fingerprints; the same secrets pass again, from any instance', async () => {
    const schema = await newSchema('secrets');
    const mine = secrets();
    await checkSharedSecrets(POSTGRES_URL, mine, { schema });
    await checkSharedSecrets(`${POSTGRES_URL}?schema=${schema}`, { ...mine, localBlobKeys: [...mine.localBlobKeys] });
    const rows = await sql<{ name: string; value: string }>(
      `SELECT name, value FROM "${schema}".deployment_facts ORDER BY name`,
    );
    assert.deepEqual(
      rows.map((r) => r.name),
      ['secret:local-blob-key:k1', 'secret:user-handle-key'],
    );
    for (const row of rows) {
      assert.ok(
        !row.value.includes(mine.userHandleKey.toString('base64url')) &&
          !row.value.includes(mine.localBlobKeys[0]!.key.toString('base64url')),
        'a fingerprint, not the key',
      );
    }
  });

  it('another user-handle key is refused with a message naming it (and never the key)', async () => {
    const schema = await newSchema('secrets_uh');
    const mine = secrets();
    await checkSharedSecrets(POSTGRES_URL, mine, { schema });
    const other = { ...mine, userHandleKey: randomBytes(32) };
    await assert.rejects(
      checkSharedSecrets(POSTGRES_URL, other, { schema }),
      (error: unknown) =>
        error instanceof SecretsMismatchError &&
        /user-handle key/.test(error.message) &&
        /Refusing to start/.test(error.message) &&
        !error.message.includes(other.userHandleKey.toString('base64')) &&
        !error.message.includes(other.userHandleKey.toString('base64url')),
    );
  });

  it('a rotated-in local-blob key is recorded; another key under a recorded id is refused', async () => {
    const schema = await newSchema('secrets_blob');
    const mine = secrets();
    await checkSharedSecrets(POSTGRES_URL, mine, { schema });
    const rotated = { ...mine, localBlobKeys: [{ id: 'k2', key: randomBytes(32) }, ...mine.localBlobKeys] };
    await checkSharedSecrets(POSTGRES_URL, rotated, { schema });
    await checkSharedSecrets(POSTGRES_URL, rotated, { schema });
    const clash = { ...mine, localBlobKeys: [{ id: 'k2', key: randomBytes(32) }] };
    await assert.rejects(
      checkSharedSecrets(POSTGRES_URL, clash, { schema }),
      (error: unknown) =>
        error instanceof SecretsMismatchError && /id "k2"/.test(error.message) && !/user-handle/.test(error.message),
    );
  });
});

describe('PostgreSQL challenge store housekeeping', () => {
  it('sweeps expired ceremonies and used-markers, keeping live ones', async () => {
    const schema = await newSchema('sweep');
    let now = Date.now();
    const store = await openPostgresChallengeStore(POSTGRES_URL, { schema, clock: () => now, sweepIntervalMs: 1000 });
    try {
      const clientId = 'sweep-client';
      const dead = ceremony({ clientId, expiresAt: now + 500 });
      const takenDead = ceremony({ clientId, expiresAt: now + 500 });
      for (const r of [dead, takenDead]) await store.put(r);
      assert.equal((await store.take(clientId, takenDead.challenge, now)).state, 'taken');
      now += 5000;
      const live = ceremony({ clientId, expiresAt: now + 60_000 });
      await store.put(live); // starts a sweep (interval passed); close() waits for it below
      await store.close();
      const pending = await sql<{ challenge: string }>(`SELECT challenge FROM "${schema}".challenges`);
      const used = await sql<{ challenge: string }>(`SELECT challenge FROM "${schema}".used_challenges`);
      assert.deepEqual(
        pending.map((r) => r.challenge),
        [live.challenge],
      );
      assert.deepEqual(used, []);
    } finally {
      await store.close().catch(() => undefined);
    }
  });

  it('any string JSON can carry comes back unchanged (lone surrogates, non-BMP, quotes)', async () => {
    const store = await openPostgresChallengeStore(POSTGRES_URL, { schema: await contractSchema() });
    try {
      const record = ceremony({
        username: 'a\uD800b "c" \\ 😀 é#idp.example.test',
        origin: 'https://idp.example.test',
      });
      await store.put(record);
      assert.deepEqual(await store.take(record.clientId, record.challenge, Date.now()), { state: 'taken', record });
    } finally {
      await store.close();
    }
  });

  it('a taken ceremony leaves no pending row behind (nothing to replay from the table)', async () => {
    const schema = await newSchema('taken');
    const store = await openPostgresChallengeStore(POSTGRES_URL, { schema });
    try {
      const record = ceremony();
      await store.put(record);
      await store.take(record.clientId, record.challenge, Date.now());
      assert.deepEqual(await sql(`SELECT 1 FROM "${schema}".challenges`), []);
      assert.equal((await sql(`SELECT 1 FROM "${schema}".used_challenges`)).length, 1);
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL unreachable', () => {
  let schema: string;
  before(async () => {
    schema = await newSchema('fault');
  });

  it('opening a store on a port where nothing listens fails fast with StoreUnavailableError', async () => {
    const proxy = await startProxy('127.0.0.1', 5432);
    const url = proxy.url(POSTGRES_URL);
    await proxy.close();
    await assert.rejects(openPostgresCredentialStore(url, { schema, connectTimeoutMs: 1000 }), StoreUnavailableError);
  });

  it('while the database is cut every call fails with StoreUnavailableError, and works again once it returns', async () => {
    const proxy = await startProxy('127.0.0.1', 5432);
    const url = proxy.url(POSTGRES_URL);
    const credentials = await openPostgresCredentialStore(url, {
      schema,
      connectTimeoutMs: 1000,
      queryTimeoutMs: 2000,
    });
    const challenges = await openPostgresChallengeStore(url, { schema, connectTimeoutMs: 1000, queryTimeoutMs: 2000 });
    try {
      const before = credential();
      assert.equal(await credentials.create(before), 'created');
      proxy.cut();
      const record = ceremony();
      await assert.rejects(credentials.find(before.clientId, before.credentialId), StoreUnavailableError);
      await assert.rejects(credentials.create(credential()), StoreUnavailableError);
      await assert.rejects(
        credentials.recordUse(before.clientId, before.credentialId, {
          expectedSignCount: 0,
          expectedAuthenticatorStatus: null,
          expectedCreatedAt: 1_700_000_000_000,
          signCount: 1,
          backupEligible: false,
          backupState: false,
          userVerified: true,
          cloneWarning: false,
          usedAt: Date.now(),
        }),
        StoreUnavailableError,
      );
      await assert.rejects(challenges.put(record), StoreUnavailableError);
      await assert.rejects(challenges.take(record.clientId, record.challenge, Date.now()), StoreUnavailableError);
      await assert.rejects(credentials.ping!(), StoreUnavailableError);
      proxy.restore();
      assert.equal((await credentials.find(before.clientId, before.credentialId))?.credentialId, before.credentialId);
      await challenges.put(record);
      assert.equal((await challenges.take(record.clientId, record.challenge, Date.now())).state, 'taken');
    } finally {
      await credentials.close();
      await challenges.close();
      await proxy.close();
    }
  });

  it('a database that stops answering (hung, silent network) fails the call after the query bound, then recovers', async () => {
    const proxy = await startProxy('127.0.0.1', 5432);
    const credentials = await openPostgresCredentialStore(proxy.url(POSTGRES_URL), {
      schema,
      connectTimeoutMs: 1000,
      queryTimeoutMs: 1000,
    });
    try {
      const record = credential();
      await credentials.create(record);
      proxy.freeze();
      await assert.rejects(
        credentials.find(record.clientId, record.credentialId),
        (error: unknown) => error instanceof StoreUnavailableError && /timeout/i.test(error.message),
      );
      proxy.restore();
      assert.equal((await credentials.find(record.clientId, record.credentialId))?.credentialId, record.credentialId);
    } finally {
      await credentials.close();
      await proxy.close();
    }
  });
});
