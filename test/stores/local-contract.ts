// The contract of the local variant's remembered credential ids (ChallengeStore.rememberLocalCredential,
// listLocalCredentials), run by every backend's test file. Time is the `now` each call is given (the
// injected clock): expiry is tested by moving it. The bounds are tested on a store opened with small
// limits on fresh backing state (`open(limits)`), so that no other test's entries count towards them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ChallengeStore, LocalCredentialLimits, LocalCredentialRecord } from '../../src/stores/types.js';
import { freshClientId } from './contract.js';

export interface LocalContractOptions {
  /** A second handle on the same backing state as `store`, as another process would have. */
  readonly reopen?: (store: ChallengeStore, limits: Partial<LocalCredentialLimits>) => Promise<ChallengeStore>;
}

const T0 = 1_800_000_000_000;
const DAY = 86_400_000;

function entry(overrides: Partial<LocalCredentialRecord> = {}): LocalCredentialRecord {
  return {
    clientId: freshClientId(),
    userHandle: randomBytes(32).toString('base64url'),
    credentialId: randomBytes(16).toString('base64url'),
    transports: ['usb'],
    expiresAt: T0 + 30 * DAY,
    ...overrides,
  };
}

async function using(store: ChallengeStore, body: (store: ChallengeStore) => Promise<void>): Promise<void> {
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

const ids = (list: readonly LocalCredentialRecord[]) => list.map((e) => e.credentialId);

export function localCredentialContract(
  name: string,
  open: (limits?: Partial<LocalCredentialLimits>) => Promise<ChallengeStore>,
  options: LocalContractOptions = {},
): void {
  describe(`ChallengeStore contract, local variant's remembered credentials: ${name}`, () => {
    it('lists what was remembered for the user, oldest first, with transports; nothing for anyone else', async () => {
      await using(await open(), async (store) => {
        const first = entry({ transports: ['nfc', 'usb'] });
        const second = entry({ clientId: first.clientId, userHandle: first.userHandle, transports: [] });
        await store.rememberLocalCredential(first, T0);
        await store.rememberLocalCredential(second, T0 + 1);
        assert.deepEqual(await store.listLocalCredentials(first.clientId, first.userHandle, T0 + 2), [first, second]);
        assert.deepEqual(await store.listLocalCredentials(first.clientId, 'another-user', T0 + 2), []);
        assert.deepEqual(await store.listLocalCredentials(freshClientId(), first.userHandle, T0 + 2), []);
      });
    });

    it('remembering a credential id again replaces it and makes it the newest', async () => {
      await using(await open(), async (store) => {
        const a = entry();
        const b = entry({ clientId: a.clientId, userHandle: a.userHandle });
        await store.rememberLocalCredential(a, T0);
        await store.rememberLocalCredential(b, T0);
        const again = { ...a, transports: ['hybrid', 'internal'], expiresAt: a.expiresAt + DAY };
        await store.rememberLocalCredential(again, T0 + 1);
        assert.deepEqual(await store.listLocalCredentials(a.clientId, a.userHandle, T0 + 2), [b, again]);
      });
    });

    it('expiry: an entry is not listed after it expires, and is forgotten by a later remember', async () => {
      await using(await open(), async (store) => {
        const short = entry({ expiresAt: T0 + DAY });
        const other = entry({ clientId: short.clientId, userHandle: short.userHandle });
        await store.rememberLocalCredential(short, T0);
        await store.rememberLocalCredential(other, T0);
        assert.deepEqual(ids(await store.listLocalCredentials(short.clientId, short.userHandle, T0 + DAY)), [
          short.credentialId,
          other.credentialId,
        ]);
        assert.deepEqual(ids(await store.listLocalCredentials(short.clientId, short.userHandle, T0 + DAY + 1)), [
          other.credentialId,
        ]);
        // A remember after the expiry removes the entry itself: asked with an earlier time, it is gone.
        await store.rememberLocalCredential(entry(), T0 + DAY + 1);
        assert.deepEqual(ids(await store.listLocalCredentials(short.clientId, short.userHandle, T0)), [
          other.credentialId,
        ]);
      });
    });

    it("bound per user: beyond it the user's oldest are forgotten, other users keep theirs", async () => {
      await using(await open({ perUser: 3, total: 100 }), async (store) => {
        const user = entry();
        const neighbour = entry({ clientId: user.clientId });
        await store.rememberLocalCredential(neighbour, T0);
        const mine = Array.from({ length: 5 }, () => entry({ clientId: user.clientId, userHandle: user.userHandle }));
        for (const [i, e] of mine.entries()) await store.rememberLocalCredential(e, T0 + i);
        assert.deepEqual(
          ids(await store.listLocalCredentials(user.clientId, user.userHandle, T0 + 10)),
          ids(mine.slice(2)),
        );
        assert.deepEqual(ids(await store.listLocalCredentials(neighbour.clientId, neighbour.userHandle, T0 + 10)), [
          neighbour.credentialId,
        ]);
      });
    });

    it("bound per application: beyond it the oldest of anyone's in that application are forgotten", async () => {
      await using(await open({ perUser: 10, total: 4 }), async (store) => {
        const x = entry();
        const y = entry({ clientId: x.clientId });
        const xs = Array.from({ length: 3 }, () => entry({ clientId: x.clientId, userHandle: x.userHandle }));
        const ys = Array.from({ length: 3 }, () => entry({ clientId: y.clientId, userHandle: y.userHandle }));
        for (const e of [...xs, ...ys]) await store.rememberLocalCredential(e, T0);
        assert.deepEqual(ids(await store.listLocalCredentials(x.clientId, x.userHandle, T0)), ids(xs.slice(2)));
        assert.deepEqual(ids(await store.listLocalCredentials(y.clientId, y.userHandle, T0)), ids(ys));
      });
    });

    it("issue 23: one application's entries never evict another application's", async () => {
      await using(await open({ perUser: 10, total: 3 }), async (store) => {
        const victim = Array.from({ length: 3 }, () => entry());
        for (const e of victim) await store.rememberLocalCredential({ ...e, clientId: victim[0]!.clientId }, T0);
        const flooder = entry();
        for (let i = 0; i < 7; i += 1)
          await store.rememberLocalCredential(entry({ clientId: flooder.clientId }), T0 + 1 + i);
        for (const e of victim)
          assert.deepEqual(ids(await store.listLocalCredentials(victim[0]!.clientId, e.userHandle, T0 + 10)), [
            e.credentialId,
          ]);
      });
    });

    it("issue 23: another user's entry of the same credential id leaves the first user's in place", async () => {
      await using(await open(), async (store) => {
        const first = entry({ transports: ['usb'] });
        const other = entry({ clientId: first.clientId, credentialId: first.credentialId, transports: ['hybrid'] });
        await store.rememberLocalCredential(first, T0);
        await store.rememberLocalCredential(other, T0 + 1);
        assert.deepEqual(await store.listLocalCredentials(first.clientId, first.userHandle, T0 + 2), [first]);
        assert.deepEqual(await store.listLocalCredentials(first.clientId, other.userHandle, T0 + 2), [other]);
        // The first user registering it again still replaces only their own entry.
        const again = { ...first, transports: ['nfc'] };
        await store.rememberLocalCredential(again, T0 + 3);
        assert.deepEqual(await store.listLocalCredentials(first.clientId, first.userHandle, T0 + 4), [again]);
        assert.deepEqual(await store.listLocalCredentials(first.clientId, other.userHandle, T0 + 4), [other]);
      });
    });

    it('race: ten remembers for one user at once, across handles, keep the bound exactly', async () => {
      await using(await open({ perUser: 3, total: 100 }), async (first) => {
        const second = options.reopen ? await options.reopen(first, { perUser: 3, total: 100 }) : first;
        try {
          const user = entry();
          const all = Array.from({ length: 10 }, () => entry({ clientId: user.clientId, userHandle: user.userHandle }));
          await Promise.all(all.map((e, i) => (i % 2 === 0 ? first : second).rememberLocalCredential(e, T0)));
          const listed = await first.listLocalCredentials(user.clientId, user.userHandle, T0);
          assert.equal(listed.length, 3);
          for (const id of ids(listed)) assert.ok(ids(all).includes(id));
        } finally {
          if (second !== first) await second.close();
        }
      });
    });
  });
}
