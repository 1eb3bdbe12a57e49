// THE contract suite of src/stores/types.ts. Every backend runs it from its own test file:
//
//   challengeStoreContract('sqlite', () => openSqliteChallengeStore(tempFile()));
//   credentialStoreContract('postgres', () => openPostgresCredentialStore(url), { reopen: … });
//
// Backend-neutral: every test asks the factory for a new store and closes it at the end, and uses Client
// IDs no other test (or earlier run on a shared database) has used, so leftovers never interfere.
// Times are realistic epoch milliseconds (a backend may also set its own TTL from `expiresAt`).
// `options.reopen` (optional) opens a second handle on the SAME backing state (another connection, as a
// second process would have one), so that races are also run across handles.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type {
  CeremonyRecord,
  ChallengeStore,
  CredentialRecord,
  CredentialStore,
  CredentialUse,
  OutboxMessage,
} from '../../src/stores/types.js';

export type StoreFactory<S> = () => S | Promise<S>;

export interface ContractOptions<S> {
  /** A second handle on the same backing state as `store`; the caller closes it. */
  readonly reopen?: (store: S) => S | Promise<S>;
}

const MINUTE = 60_000;

/** A Client ID unique to this test and run. */
export function freshClientId(): string {
  return `contract-${randomUUID()}`;
}

export function ceremony(overrides: Partial<CeremonyRecord> = {}): CeremonyRecord {
  return {
    challenge: randomBytes(32).toString('base64url'),
    clientId: freshClientId(),
    variant: 'standard',
    type: 'registration',
    username: 'alice#idp.example.test',
    userHandle: randomBytes(32).toString('base64url'),
    userVerification: 'preferred',
    origin: 'https://idp.example.test',
    expiresAt: Date.now() + 3 * MINUTE,
    ...overrides,
  };
}

export function credential(overrides: Partial<CredentialRecord> = {}): CredentialRecord {
  return {
    clientId: freshClientId(),
    credentialId: randomBytes(16).toString('base64url'),
    userHandle: randomBytes(32).toString('base64url'),
    username: 'alice#idp.example.test',
    publicKey: Uint8Array.from(randomBytes(77)),
    algorithm: -7,
    signCount: 0,
    transports: ['internal', 'hybrid'],
    aaguid: '00000000-0000-0000-0000-000000000000',
    attestationFormat: 'none',
    attestationType: 'none',
    attestationTrusted: false,
    backupEligible: true,
    backupState: false,
    userVerified: true,
    residentKey: true,
    cloneWarning: false,
    createdAt: 1_700_000_000_000,
    lastUsedAt: null,
    ...overrides,
  };
}

function use(overrides: Partial<CredentialUse> = {}): CredentialUse {
  return {
    expectedSignCount: 0,
    expectedAuthenticatorStatus: null,
    expectedCreatedAt: 1_700_000_000_000,
    signCount: 0,
    backupEligible: true,
    backupState: true,
    userVerified: false,
    cloneWarning: false,
    usedAt: 1_700_000_100_000,
    ...overrides,
  };
}

/** Compares credentials whatever byte container (Buffer or Uint8Array) a backend returns. */
/** Compares credentials whatever byte container (Buffer or Uint8Array) a backend returns, and whether
 * it returns the optional names as absent or null ("absent or null = none"). */
function normalized(record: CredentialRecord | undefined): unknown {
  if (record === undefined) return undefined;
  const { nickname, authenticatorName, displayName, ...rest } = record;
  return {
    ...rest,
    publicKey: Buffer.from(record.publicKey).toString('hex'),
    transports: [...record.transports],
    nickname: nickname ?? null,
    authenticatorName: authenticatorName ?? null,
    displayName: displayName ?? null,
  };
}

async function withStore<S extends { close(): Promise<void> }>(
  factory: StoreFactory<S>,
  body: (store: S) => Promise<void>,
): Promise<void> {
  const store = await factory();
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

/** Runs `body` with two handles on one backing state: the same store twice, or store + reopened handle. */
async function withTwoHandles<S extends { close(): Promise<void> }>(
  factory: StoreFactory<S>,
  options: ContractOptions<S>,
  body: (first: S, second: S) => Promise<void>,
): Promise<void> {
  await withStore(factory, async (first) => {
    await body(first, first);
    if (options.reopen === undefined) return;
    const second = await options.reopen(first);
    try {
      await body(first, second);
    } finally {
      await second.close();
    }
  });
}

export function challengeStoreContract(
  name: string,
  factory: StoreFactory<ChallengeStore>,
  options: ContractOptions<ChallengeStore> = {},
): void {
  describe(`ChallengeStore contract: ${name}`, () => {
    it('take returns exactly the record that was put (standard variant, with allowCredentials)', async () => {
      await withStore(factory, async (store) => {
        const record = ceremony({ type: 'authentication', allowCredentials: ['AAAA', 'q83vEjRWeJA'] });
        await store.put(record);
        assert.deepEqual(await store.take(record.clientId, record.challenge, Date.now()), { state: 'taken', record });
      });
    });

    it('take returns exactly the record that was put (local variant, null origin, no allowCredentials)', async () => {
      await withStore(factory, async (store) => {
        const record = ceremony({
          variant: 'local',
          origin: null,
          username: 'bob#localhost',
          userVerification: 'required',
        });
        await store.put(record);
        const result = await store.take(record.clientId, record.challenge, Date.now());
        assert.deepEqual(result, { state: 'taken', record });
        assert.ok(result.state === 'taken' && !('allowCredentials' in result.record), 'allowCredentials stays absent');
      });
    });

    it('take returns the marks of a sign-in without a user name and of a conditional create', async () => {
      await withStore(factory, async (store) => {
        const signIn = ceremony({
          type: 'authentication',
          username: '#idp.example.test',
          userHandle: '',
          allowCredentials: [],
          discoverable: true,
        });
        const upgrade = ceremony({ type: 'registration', conditional: true });
        await store.put(signIn);
        await store.put(upgrade);
        assert.deepEqual(await store.take(signIn.clientId, signIn.challenge, Date.now()), {
          state: 'taken',
          record: signIn,
        });
        assert.deepEqual(await store.take(upgrade.clientId, upgrade.challenge, Date.now()), {
          state: 'taken',
          record: upgrade,
        });
      });
    });

    it('an unknown challenge is missing', async () => {
      await withStore(factory, async (store) => {
        assert.deepEqual(await store.take(freshClientId(), randomBytes(32).toString('base64url'), Date.now()), {
          state: 'missing',
        });
      });
    });

    it('take is single-use: a second take answers used', async () => {
      await withStore(factory, async (store) => {
        const record = ceremony();
        await store.put(record);
        assert.equal((await store.take(record.clientId, record.challenge, Date.now())).state, 'taken');
        assert.deepEqual(await store.take(record.clientId, record.challenge, Date.now()), { state: 'used' });
        assert.deepEqual(await store.take(record.clientId, record.challenge, record.expiresAt - 1), { state: 'used' });
      });
    });

    it('a used challenge answers missing once it would have expired', async () => {
      await withStore(factory, async (store) => {
        const record = ceremony();
        await store.put(record);
        assert.equal((await store.take(record.clientId, record.challenge, Date.now())).state, 'taken');
        assert.deepEqual(await store.take(record.clientId, record.challenge, record.expiresAt + 1), {
          state: 'missing',
        });
      });
    });

    it('an expired ceremony is missing, and stays missing', async () => {
      await withStore(factory, async (store) => {
        const record = ceremony();
        await store.put(record);
        assert.deepEqual(await store.take(record.clientId, record.challenge, record.expiresAt + 1), {
          state: 'missing',
        });
        assert.deepEqual(await store.take(record.clientId, record.challenge, record.expiresAt + 2), {
          state: 'missing',
        });
      });
    });

    it('a ceremony is still there just before its expiry', async () => {
      await withStore(factory, async (store) => {
        const record = ceremony();
        await store.put(record);
        assert.equal((await store.take(record.clientId, record.challenge, record.expiresAt - 1)).state, 'taken');
      });
    });

    it('a challenge belongs to its Client ID: another client neither finds nor consumes it', async () => {
      await withStore(factory, async (store) => {
        const record = ceremony();
        await store.put(record);
        assert.deepEqual(await store.take(freshClientId(), record.challenge, Date.now()), { state: 'missing' });
        assert.equal((await store.take(record.clientId, record.challenge, Date.now())).state, 'taken');
      });
    });

    it('the same challenge string under two Client IDs is two ceremonies', async () => {
      await withStore(factory, async (store) => {
        const first = ceremony();
        const second = ceremony({ challenge: first.challenge, username: 'carol#other.example.test' });
        await store.put(first);
        await store.put(second);
        assert.deepEqual(await store.take(second.clientId, second.challenge, Date.now()), {
          state: 'taken',
          record: second,
        });
        assert.deepEqual(await store.take(first.clientId, first.challenge, Date.now()), {
          state: 'taken',
          record: first,
        });
      });
    });

    it('many ceremonies of one client are independent', async () => {
      await withStore(factory, async (store) => {
        const clientId = freshClientId();
        const records = Array.from({ length: 20 }, () => ceremony({ clientId }));
        await Promise.all(records.map((r) => store.put(r)));
        for (const r of records.slice(0, 10))
          assert.equal((await store.take(clientId, r.challenge, Date.now())).state, 'taken');
        for (const r of records.slice(10))
          assert.deepEqual(await store.take(clientId, r.challenge, Date.now()), { state: 'taken', record: r });
      });
    });

    it('race: two takes of one challenge at once, exactly one is taken and the other used', async () => {
      await withTwoHandles(factory, options, async (first, second) => {
        const record = ceremony();
        await first.put(record);
        const results = await Promise.all([
          first.take(record.clientId, record.challenge, Date.now()),
          second.take(record.clientId, record.challenge, Date.now()),
        ]);
        assert.deepEqual(results.map((r) => r.state).sort(), ['taken', 'used']);
      });
    });

    it('race: ten takes of one challenge at once, exactly one is taken', async () => {
      await withTwoHandles(factory, options, async (first, second) => {
        const record = ceremony();
        await first.put(record);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            (i % 2 === 0 ? first : second).take(record.clientId, record.challenge, Date.now()),
          ),
        );
        assert.equal(results.filter((r) => r.state === 'taken').length, 1);
        assert.equal(results.filter((r) => r.state === 'used').length, 9);
      });
    });
  });
}

export function credentialStoreContract(
  name: string,
  factory: StoreFactory<CredentialStore>,
  options: ContractOptions<CredentialStore> = {},
): void {
  describe(`CredentialStore contract: ${name}`, () => {
    it('create then find returns the same record, every field', async () => {
      await withStore(factory, async (store) => {
        const record = credential({ lastUsedAt: null, residentKey: null });
        assert.equal(await store.create(record), 'created');
        assert.deepEqual(normalized(await store.find(record.clientId, record.credentialId)), normalized(record));
      });
    });

    it('keeps every field value faithfully (other booleans, attestation, large counters, empty transports)', async () => {
      await withStore(factory, async (store) => {
        const record = credential({
          signCount: 4_294_967_295,
          algorithm: -65535,
          transports: [],
          aaguid: 'cb69481e-8ff7-4039-93ec-0a2729a154a8',
          attestationFormat: 'packed',
          attestationType: 'basic',
          attestationTrusted: true,
          backupEligible: false,
          backupState: false,
          userVerified: false,
          residentKey: false,
          cloneWarning: true,
          createdAt: 1_800_000_000_123,
          lastUsedAt: 1_800_000_000_456,
          username: "zoë.o'brien+test@example.com#idp.example.test",
        });
        await store.create(record);
        assert.deepEqual(normalized(await store.find(record.clientId, record.credentialId)), normalized(record));
      });
    });

    it('keeps the optional names (nickname, authenticatorName, displayName)', async () => {
      await withStore(factory, async (store) => {
        const named = credential({
          nickname: 'Work laptop',
          authenticatorName: 'YubiKey 5 Series',
          displayName: 'Alice Example',
        });
        const unnamed = credential({ nickname: null, authenticatorName: null, displayName: null });
        await store.create(named);
        await store.create(unnamed);
        assert.deepEqual(normalized(await store.find(named.clientId, named.credentialId)), normalized(named));
        assert.deepEqual(normalized(await store.find(unnamed.clientId, unnamed.credentialId)), normalized(unnamed));
      });
    });

    it('find of an unknown credential is undefined', async () => {
      await withStore(factory, async (store) => {
        assert.equal(await store.find(freshClientId(), 'bm90LWhlcmU'), undefined);
      });
    });

    it('a second create of the same (clientId, credentialId) is a duplicate and changes nothing', async () => {
      await withStore(factory, async (store) => {
        const record = credential();
        await store.create(record);
        const other = credential({
          clientId: record.clientId,
          credentialId: record.credentialId,
          username: 'mallory#idp.example.test',
        });
        assert.equal(await store.create(other), 'duplicate');
        assert.deepEqual(normalized(await store.find(record.clientId, record.credentialId)), normalized(record));
        assert.deepEqual((await store.listByUser(other.clientId, other.userHandle)).length, 0);
      });
    });

    it('the same credential id under two Client IDs is two credentials', async () => {
      await withStore(factory, async (store) => {
        const first = credential();
        const second = credential({ credentialId: first.credentialId });
        assert.equal(await store.create(first), 'created');
        assert.equal(await store.create(second), 'created');
        assert.equal((await store.find(second.clientId, first.credentialId))?.userHandle, second.userHandle);
        assert.equal((await store.find(first.clientId, first.credentialId))?.userHandle, first.userHandle);
      });
    });

    it("createCounted stores like create and answers the user's credentials with the new one", async () => {
      await withStore(factory, async (store) => {
        const first = credential({ createdAt: 1_000 });
        const sameUser = (createdAt: number) =>
          credential({ clientId: first.clientId, userHandle: first.userHandle, createdAt });
        const [second, third] = [sameUser(2_000), sameUser(500)];
        assert.equal(await store.createCounted(first, 100), 1);
        assert.deepEqual(normalized(await store.find(first.clientId, first.credentialId)), normalized(first));
        // Another user of the application, and the same user handle under another Client ID, count apart.
        assert.equal(await store.createCounted(credential({ clientId: first.clientId }), 100), 1);
        assert.equal(await store.createCounted(credential({ userHandle: first.userHandle }), 100), 1);
        assert.equal(await store.create(second), 'created');
        assert.equal(await store.createCounted(third, 100), 3);
        const listed = await store.listByUser(first.clientId, first.userHandle);
        assert.deepEqual(listed.map(normalized), [third, first, second].map(normalized));
        // What listByUser counts right after: a deleted credential no longer counts.
        assert.equal(await store.delete(first.clientId, second.credentialId), true);
        assert.equal(await store.createCounted(sameUser(3_000), 100), 3);
      });
    });

    it("createCounted refuses a user at the limit ('limit'): nothing written, no message; a stored id is a duplicate first", async () => {
      await withStore(factory, async (store) => {
        const first = credential();
        const sameUser = () => credential({ clientId: first.clientId, userHandle: first.userHandle });
        const event = (id: string): OutboxMessage => ({
          id,
          clientId: first.clientId,
          webhookId: 'wh_contract',
          type: 'credential.created',
          body: `{"id":"${id}"}`,
          createdAt: 1_000,
        });
        assert.equal(await store.createCounted(first, 2), 1);
        assert.equal(await store.createCounted(sameUser(), 2), 2);
        const refused = `msg_${randomUUID()}`;
        const third = sameUser();
        assert.equal(await store.createCounted(third, 2, [event(refused)]), 'limit');
        assert.equal(await store.find(third.clientId, third.credentialId), undefined);
        assert.equal((await store.listByUser(first.clientId, first.userHandle)).length, 2);
        assert.equal(await store.createCounted(first, 2), 'duplicate');
        // Another user, and the same user under a higher limit, are not held back.
        assert.equal(await store.createCounted(credential({ clientId: first.clientId }), 2), 1);
        assert.equal(await store.createCounted(third, 3), 3);
        const leased = (await store.outbox.lease(`contract-${randomUUID()}`, 2_000, 60_000, 1_000)).map((m) => m.id);
        assert.ok(!leased.includes(refused), 'no message for the refused insert');
      });
    });

    it('createCounted holds the limit when registrations of one user run at once', async () => {
      await withStore(factory, async (store) => {
        const first = credential();
        assert.equal(await store.createCounted(first, 5), 1);
        const racing = Array.from({ length: 12 }, () =>
          store.createCounted(credential({ clientId: first.clientId, userHandle: first.userHandle }), 5),
        );
        const outcomes = await Promise.all(racing);
        assert.equal(outcomes.filter((o) => typeof o === 'number').length, 4);
        assert.equal(outcomes.filter((o) => o === 'limit').length, 8);
        assert.deepEqual(outcomes.filter((o) => typeof o === 'number').sort(), [2, 3, 4, 5]);
        assert.equal((await store.listByUser(first.clientId, first.userHandle)).length, 5);
      });
    });

    it('createCounted of an existing (clientId, credentialId) is a duplicate, writes nothing and enqueues nothing', async () => {
      await withStore(factory, async (store) => {
        const record = credential();
        const event = (id: string): OutboxMessage => ({
          id,
          clientId: record.clientId,
          webhookId: 'wh_contract',
          type: 'credential.created',
          body: `{"id":"${id}"}`,
          createdAt: 1_000,
        });
        const [made, refused] = [`msg_${randomUUID()}`, `msg_${randomUUID()}`];
        assert.equal(await store.createCounted(record, 100, [event(made)]), 1);
        const twin = { ...record, userHandle: credential().userHandle, username: 'mallory#idp.example.test' };
        assert.equal(await store.createCounted(twin, 100, [event(refused)]), 'duplicate');
        assert.deepEqual(normalized(await store.find(record.clientId, record.credentialId)), normalized(record));
        assert.deepEqual(await store.listByUser(twin.clientId, twin.userHandle), []);
        const leased = (await store.outbox.lease(`contract-${randomUUID()}`, 2_000, 60_000, 1_000)).map((m) => m.id);
        assert.ok(leased.includes(made), 'the message of the insert is in the outbox');
        assert.ok(!leased.includes(refused), 'no message for the duplicate');
      });
    });

    it('race: two creates of one credential at once, exactly one is created', async () => {
      await withTwoHandles(factory, options, async (first, second) => {
        const record = credential();
        const results = await Promise.all([
          first.create(record),
          second.create({ ...record, username: 'twin#idp.example.test' }),
        ]);
        assert.deepEqual([...results].sort(), ['created', 'duplicate']);
      });
    });

    it("listByUser returns the user's credentials of that client only, oldest first", async () => {
      await withStore(factory, async (store) => {
        const mine = credential({ createdAt: 3_000 });
        const older = credential({ clientId: mine.clientId, userHandle: mine.userHandle, createdAt: 1_000 });
        const middle = credential({ clientId: mine.clientId, userHandle: mine.userHandle, createdAt: 2_000 });
        // Registered in the same millisecond: ordered by credential id, whatever the order of insertion.
        const sameTime = (credentialId: string) =>
          credential({ clientId: mine.clientId, userHandle: mine.userHandle, createdAt: 2_500, credentialId });
        const [tieB, tieA] = [sameTime('dGllLWI'), sameTime('dGllLWE')];
        const otherUser = credential({ clientId: mine.clientId });
        const otherClient = credential({ userHandle: mine.userHandle });
        for (const r of [mine, tieB, older, otherUser, middle, tieA, otherClient]) await store.create(r);
        const listed = await store.listByUser(mine.clientId, mine.userHandle);
        assert.deepEqual(listed.map(normalized), [older, middle, tieA, tieB, mine].map(normalized));
        assert.deepEqual(await store.listByUser(mine.clientId, 'bm9ib2R5'), []);
        assert.deepEqual(
          (await store.listByUser(otherClient.clientId, mine.userHandle)).map((r) => r.credentialId),
          [otherClient.credentialId],
        );
      });
    });

    it('recordUse with the expected counter applies the change', async () => {
      await withStore(factory, async (store) => {
        const record = credential({ signCount: 5, backupState: false, userVerified: true });
        await store.create(record);
        const change = use({
          expectedSignCount: 5,
          signCount: 9,
          backupState: true,
          userVerified: false,
          usedAt: 1_700_000_999_000,
        });
        assert.equal(await store.recordUse(record.clientId, record.credentialId, change), true);
        assert.deepEqual(
          normalized(await store.find(record.clientId, record.credentialId)),
          normalized({
            ...record,
            signCount: 9,
            backupState: true,
            userVerified: false,
            lastUsedAt: 1_700_000_999_000,
          }),
        );
        // A change of backup eligibility (BE) is stored with the backup state.
        assert.equal(
          await store.recordUse(
            record.clientId,
            record.credentialId,
            use({ expectedSignCount: 9, signCount: 10, backupEligible: false, backupState: false }),
          ),
          true,
        );
        const after = await store.find(record.clientId, record.credentialId);
        assert.deepEqual([after?.backupEligible, after?.backupState], [false, false]);
      });
    });

    it('recordUse with a stale expected counter writes nothing and answers false', async () => {
      await withStore(factory, async (store) => {
        const record = credential({ signCount: 5 });
        await store.create(record);
        assert.equal(
          await store.recordUse(record.clientId, record.credentialId, use({ expectedSignCount: 4, signCount: 6 })),
          false,
        );
        assert.deepEqual(normalized(await store.find(record.clientId, record.credentialId)), normalized(record));
      });
    });

    it('recordUse answers false, writing nothing, when the authenticator status is not the one read', async () => {
      await withStore(factory, async (store) => {
        // Marked since it was read (a sign-in may verify against what its options read): no write.
        const marked = credential({ authenticatorStatus: 'REVOKED', authenticatorStatusAt: 1_700_000_050_000 });
        await store.create(marked);
        assert.equal(await store.recordUse(marked.clientId, marked.credentialId, use()), false);
        assert.deepEqual(normalized(await store.find(marked.clientId, marked.credentialId)), normalized(marked));
        // Read as marked: the write goes through.
        assert.equal(
          await store.recordUse(
            marked.clientId,
            marked.credentialId,
            use({ expectedAuthenticatorStatus: 'REVOKED', signCount: 1 }),
          ),
          true,
        );
        assert.equal((await store.find(marked.clientId, marked.credentialId))?.signCount, 1);
        // Unmarked but read as marked: no write.
        const clean = credential();
        await store.create(clean);
        assert.equal(
          await store.recordUse(clean.clientId, clean.credentialId, use({ expectedAuthenticatorStatus: 'REVOKED' })),
          false,
        );
      });
    });

    it('recordUse answers false, writing nothing, on a credential deleted and made again under its id', async () => {
      await withStore(factory, async (store) => {
        const first = credential();
        await store.create(first);
        assert.equal(await store.delete?.(first.clientId, first.credentialId), true);
        const again = { ...first, createdAt: first.createdAt + 60_000 };
        await store.create(again);
        // The verification read the first row (its createdAt): the row now stored is another.
        assert.equal(await store.recordUse(first.clientId, first.credentialId, use({ signCount: 1 })), false);
        assert.deepEqual(normalized(await store.find(first.clientId, first.credentialId)), normalized(again));
        assert.equal(
          await store.recordUse(
            first.clientId,
            first.credentialId,
            use({ expectedCreatedAt: again.createdAt, signCount: 1 }),
          ),
          true,
        );
      });
    });

    it("recordUse of an unknown credential (or another client's) answers false", async () => {
      await withStore(factory, async (store) => {
        const record = credential();
        await store.create(record);
        assert.equal(await store.recordUse(freshClientId(), record.credentialId, use()), false);
        assert.equal(await store.recordUse(record.clientId, 'dW5rbm93bg', use()), false);
        assert.deepEqual(normalized(await store.find(record.clientId, record.credentialId)), normalized(record));
      });
    });

    it('recordUse keeps zero counters (synced passkeys) and records the use', async () => {
      await withStore(factory, async (store) => {
        const record = credential({ signCount: 0 });
        await store.create(record);
        assert.equal(
          await store.recordUse(record.clientId, record.credentialId, use({ expectedSignCount: 0, signCount: 0 })),
          true,
        );
        assert.equal(
          await store.recordUse(
            record.clientId,
            record.credentialId,
            use({ expectedSignCount: 0, signCount: 0, usedAt: 1_700_000_200_000 }),
          ),
          true,
        );
        assert.equal((await store.find(record.clientId, record.credentialId))?.lastUsedAt, 1_700_000_200_000);
      });
    });

    it('a clone warning, once recorded, stays set', async () => {
      await withStore(factory, async (store) => {
        const record = credential({ signCount: 10 });
        await store.create(record);
        assert.equal(
          await store.recordUse(
            record.clientId,
            record.credentialId,
            use({ expectedSignCount: 10, signCount: 3, cloneWarning: true }),
          ),
          true,
        );
        assert.equal((await store.find(record.clientId, record.credentialId))?.cloneWarning, true);
        assert.equal(
          await store.recordUse(
            record.clientId,
            record.credentialId,
            use({ expectedSignCount: 3, signCount: 4, cloneWarning: false }),
          ),
          true,
        );
        const after = await store.find(record.clientId, record.credentialId);
        assert.equal(after?.cloneWarning, true);
        assert.equal(after?.signCount, 4);
      });
    });

    it('race: two recordUse with the same expected counter, exactly one wins and its counter is stored', async () => {
      await withTwoHandles(factory, options, async (first, second) => {
        const record = credential({ signCount: 7 });
        await first.create(record);
        const results = await Promise.all([
          first.recordUse(record.clientId, record.credentialId, use({ expectedSignCount: 7, signCount: 8 })),
          second.recordUse(record.clientId, record.credentialId, use({ expectedSignCount: 7, signCount: 9 })),
        ]);
        assert.equal(results.filter(Boolean).length, 1);
        const stored = await first.find(record.clientId, record.credentialId);
        assert.equal(stored?.signCount, results[0] ? 8 : 9);
      });
    });

    it('race: ten recordUse with the same expected counter, exactly one wins', async () => {
      await withTwoHandles(factory, options, async (first, second) => {
        const record = credential({ signCount: 100 });
        await first.create(record);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            (i % 2 === 0 ? first : second).recordUse(
              record.clientId,
              record.credentialId,
              use({ expectedSignCount: 100, signCount: 101 + i }),
            ),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        const winner = results.indexOf(true);
        assert.equal((await second.find(record.clientId, record.credentialId))?.signCount, 101 + winner);
      });
    });

    it('a returned record is a copy: changing it does not change the store', async () => {
      await withStore(factory, async (store) => {
        const record = credential();
        await store.create(record);
        const found = await store.find(record.clientId, record.credentialId);
        assert.ok(found);
        (found.transports as string[]).push('usb');
        found.publicKey[0] = (found.publicKey[0]! + 1) % 256;
        assert.deepEqual(normalized(await store.find(record.clientId, record.credentialId)), normalized(record));
      });
    });

    adminContract(factory);
  });
}

function adminContract(factory: StoreFactory<CredentialStore>): void {
  const admin = (store: CredentialStore) => {
    return {
      list: store.listByApplication.bind(store),
      remove: store.delete.bind(store),
      rename: store.rename.bind(store),
      removeAll: store.deleteByApplication.bind(store),
    };
  };

  it('admin: listByApplication pages by credential id (code-unit order), bounded by limit, after exclusive', async () => {
    await withStore(factory, async (store) => {
      const clientId = freshClientId();
      const ids = ['b', 'A', 'a', 'c-1', 'Z_', '0'];
      for (const [i, id] of ids.entries())
        await store.create(credential({ clientId, credentialId: id, createdAt: 1000 - i }));
      await store.create(credential({ credentialId: 'a' }));
      const { list } = admin(store);
      const sorted = [...ids].sort();
      assert.deepEqual(
        (await list(clientId, { limit: 100 })).map((r) => r.credentialId),
        sorted,
      );
      assert.deepEqual(
        (await list(clientId, { limit: 2 })).map((r) => r.credentialId),
        sorted.slice(0, 2),
      );
      assert.deepEqual(
        (await list(clientId, { limit: 2, after: sorted[1]! })).map((r) => r.credentialId),
        sorted.slice(2, 4),
      );
      assert.deepEqual(await list(clientId, { limit: 0 }), []);
      assert.deepEqual(await list(freshClientId(), { limit: 10 }), []);
    });
  });

  it('admin: delete removes one credential (also from listByUser), false when there is none', async () => {
    await withStore(factory, async (store) => {
      const record = credential();
      const sibling = credential({
        clientId: record.clientId,
        userHandle: record.userHandle,
        createdAt: record.createdAt + 1,
      });
      await store.create(record);
      await store.create(sibling);
      const { remove } = admin(store);
      assert.equal(await remove(record.clientId, record.credentialId), true);
      assert.equal(await store.find(record.clientId, record.credentialId), undefined);
      assert.deepEqual(
        (await store.listByUser(record.clientId, record.userHandle)).map((r) => r.credentialId),
        [sibling.credentialId],
      );
      assert.equal(await remove(record.clientId, record.credentialId), false);
      assert.equal(await store.create(record), 'created', 'the id may be registered again');
    });
  });

  it('admin: rename sets and clears the nickname, false when there is none', async () => {
    await withStore(factory, async (store) => {
      const record = credential();
      await store.create(record);
      const { rename } = admin(store);
      assert.equal(await rename(record.clientId, record.credentialId, 'Phone'), true);
      assert.equal((await store.find(record.clientId, record.credentialId))?.nickname, 'Phone');
      assert.equal(await rename(record.clientId, record.credentialId, null), true);
      assert.equal((await store.find(record.clientId, record.credentialId))?.nickname ?? null, null);
      assert.equal(await rename(freshClientId(), record.credentialId, 'x'), false);
    });
  });

  it('admin: deleteByApplication removes every credential of one application only', async () => {
    await withStore(factory, async (store) => {
      const clientId = freshClientId();
      for (let i = 0; i < 3; i += 1) await store.create(credential({ clientId }));
      const other = credential();
      await store.create(other);
      const { removeAll, list } = admin(store);
      assert.equal(await removeAll(clientId), 3);
      assert.deepEqual(await list(clientId, { limit: 10 }), []);
      assert.ok(await store.find(other.clientId, other.credentialId));
      assert.equal(await removeAll(clientId), 0);
    });
  });
}
