// Issue 23 (local variant) over a real socket, on every store of remembered ids: a registration by another
// user of a credential id the service remembers for someone neither takes that id over (the first user's
// security key still signs in) nor shows whether it was remembered at all (an unknown user's stand-in is
// treated alike); and the bound on remembered ids is per application, so one application's registrations
// never evict another's.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryChallengeStore } from '../../../src/stores/memory/challenges.js';
import { openPostgresChallengeStore } from '../../../src/stores/postgres/open.js';
import { openRedisChallengeStore } from '../../../src/stores/redis/challenges.js';
import { openSqliteChallengeStore } from '../../../src/stores/sqlite/challenges.js';
import type { ChallengeStore, LocalCredentialLimits } from '../../../src/stores/types.js';
import { freshPrefix, freshSchema, POSTGRES_URL, REDIS_URL } from '../../scale/support/backends.js';
import { applicationConfig, expectOk, PATHS } from '../../support/harness.js';
import { LocalFlow } from './support.js';
import { SocketLocalRig } from './socket-rig.js';

type Opened = { readonly store: ChallengeStore; readonly drop: () => Promise<void> };
type Opener = (clock: () => number, localLimits: Partial<LocalCredentialLimits>) => Promise<Opened>;

const STORES: Record<string, Opener> = {
  memory: async (clock, localLimits) => ({
    store: new MemoryChallengeStore({ clock, localLimits }),
    drop: async () => undefined,
  }),
  sqlite: async (clock, localLimits) => {
    const dir = mkdtempSync(join(tmpdir(), 'passkey-remembered-'));
    return {
      store: await openSqliteChallengeStore(join(dir, 'passkeys.db'), { clock, localLimits }),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  postgres: async (clock, localLimits) => {
    const schema = await freshSchema('remembered');
    return {
      store: await openPostgresChallengeStore(POSTGRES_URL, { schema: schema.schema, clock, localLimits }),
      drop: schema.drop,
    };
  },
  redis: async (clock, localLimits) => {
    const prefix = freshPrefix('remembered');
    return {
      store: await openRedisChallengeStore(REDIS_URL, { prefix: prefix.prefix, clock, localLimits }),
      drop: prefix.drop,
    };
  },
};

const SECURITY_KEY = { transports: ['nfc', 'usb'], clientExtensionResults: { credProps: { rk: false } } } as const;
const OTHER_APP = 'other-client';
const ids = (options: { allowCredentials?: { id: string }[]; excludeCredentials?: { id: string }[] }) =>
  (options.allowCredentials ?? options.excludeCredentials ?? []).map((d) => d.id);

/** A socket rig over a fresh store of `name`, with two applications; closed and dropped after the test. */
async function rigOn(name: string, localLimits: Partial<LocalCredentialLimits> = {}): Promise<SocketLocalRig> {
  let rig: SocketLocalRig | undefined;
  const opened = await STORES[name]!(() => rig?.h.clock.now() ?? Date.now(), localLimits);
  rig = await SocketLocalRig.start({
    challenges: opened.store,
    apps: [applicationConfig(), applicationConfig({ clientId: OTHER_APP })],
  });
  const started = rig;
  after(async () => {
    await started.close();
    await opened.store.close();
    await opened.drop();
  });
  return rig;
}

for (const name of Object.keys(STORES)) {
  describe(`local variant, remembered ids (issue 23), over the socket: ${name}`, () => {
    it("another user's registration of a remembered id leaves it with its first user and tells nothing", async () => {
      const rig = await rigOn(name);
      const alice = new LocalFlow(rig, 'alice');
      const kept = await alice.registered(SECURITY_KEY);
      const before = await alice.assertionOptions();
      assert.deepEqual(ids(before), [kept.credentialId]);
      const nobody = new LocalFlow(rig, 'nobody');
      const standIn = ids(await nobody.assertionOptions());

      // Mallory's own authenticator answers with the ids the options handed out: the real one and the stand-in.
      const mallory = new LocalFlow(rig, 'mallory');
      for (const id of [kept.credentialId, ...standIn]) {
        const { res } = await mallory.register({ credentialId: Buffer.from(id, 'base64url'), transports: ['hybrid'] });
        expectOk(res);
      }

      const after = await alice.assertionOptions();
      assert.deepEqual(after.allowCredentials, before.allowCredentials, "alice's options are unchanged");
      assert.deepEqual(ids(await nobody.assertionOptions()), standIn, "the unknown user's stand-in is unchanged");
      // Both of mallory's registrations are remembered for mallory alike: nothing tells a real id from a stand-in.
      const excluded = (await mallory.attestationOptions()).excludeCredentials;
      assert.deepEqual(excluded, [
        { type: 'public-key', id: kept.credentialId, transports: ['hybrid'] },
        { type: 'public-key', id: standIn[0], transports: ['hybrid'] },
      ]);

      // Alice's security key is found through the options alone, and signs in.
      const assertion = alice.authenticator.authenticate(after);
      assert.equal(assertion.id, kept.credentialId);
      expectOk(await rig.post(PATHS.assertionResult, { ...assertion, extensions: { localhost: kept.localhost } }));
    });

    it("the bound is per application: another application's registrations never evict these", async () => {
      const rig = await rigOn(name, { total: 3 });
      const alice = new LocalFlow(rig, 'alice');
      const keys = [];
      for (let i = 0; i < 3; i += 1) keys.push(await alice.registered(SECURITY_KEY));
      const flooder = new LocalFlow(rig, 'flooder', {}, { clientId: OTHER_APP });
      for (let i = 0; i < 4; i += 1) await flooder.registered(SECURITY_KEY);
      assert.deepEqual(
        ids(await alice.assertionOptions()),
        keys.map((k) => k.credentialId),
      );
      assert.equal(ids(await flooder.assertionOptions()).length, 3, "the other application's own bound holds");
    });
  });
}
