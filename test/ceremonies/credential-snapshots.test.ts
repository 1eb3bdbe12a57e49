// A sign-in by name reads the user's credentials once: its result verifies against what its options read
// (src/ceremonies/credential-snapshots.ts), and the write confirms it. Whatever changed in between (another
// sign-in of the credential, a deletion, a status mark) is decided on what is stored at the result, as a
// sign-in that read only then would decide it. On every credential store (memory, SQLite, PostgreSQL).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CredentialSnapshots } from '../../src/ceremonies/credential-snapshots.js';
import type { CredentialRecord, CredentialStore } from '../../src/stores/types.js';
import {
  CLIENT_ID,
  Flow,
  Harness,
  PATHS,
  applicationConfig,
  expectFailure,
  expectOk,
  username,
} from '../support/harness.js';
import { CREDENTIAL_STORES } from '../support/credential-stores.js';

const record = (credentialId: string): CredentialRecord => ({ credentialId }) as CredentialRecord;

describe('CredentialSnapshots', () => {
  it('gives a snapshot once, to the ceremony it was kept for, until the ceremony expires', () => {
    const snapshots = new CredentialSnapshots();
    const records = [record('a')];
    snapshots.keep('app', 'c1', records, { now: 0, expiresAt: 100 });
    assert.equal(snapshots.take('other', 'c1', 1), undefined);
    assert.equal(snapshots.take('app', 'c2', 1), undefined);
    assert.equal(snapshots.take('app', 'c1', 100), records);
    assert.equal(snapshots.take('app', 'c1', 100), undefined);
    snapshots.keep('app', 'c3', records, { now: 0, expiresAt: 100 });
    assert.equal(snapshots.take('app', 'c3', 101), undefined);
    assert.equal(snapshots.size, 0);
  });

  it('holds at most its capacity, the oldest going first, and drops expired ones as it keeps', () => {
    const snapshots = new CredentialSnapshots({ capacity: 2 });
    for (const c of ['c1', 'c2', 'c3']) snapshots.keep('app', c, [record(c)], { now: 0, expiresAt: 100 });
    assert.equal(snapshots.size, 2);
    assert.equal(snapshots.take('app', 'c1', 1), undefined);
    assert.deepEqual(snapshots.take('app', 'c3', 1), [record('c3')]);
    snapshots.keep('app', 'c4', [record('c4')], { now: 200, expiresAt: 300 });
    // c2 expired at 100: gone when c4 came, without waiting for the capacity.
    assert.equal(snapshots.size, 1);
    assert.deepEqual(snapshots.take('app', 'c4', 201), [record('c4')]);
  });
});

/** The store, counting the reads of a user's credentials. */
function counting(store: CredentialStore): { store: CredentialStore; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'listByUser') {
        return (...args: Parameters<CredentialStore['listByUser']>) => {
          reads++;
          return target.listByUser(...args);
        };
      }
      return value.bind(target);
    },
  });
  return { store: counted, reads: () => reads };
}

for (const { name, open } of CREDENTIAL_STORES) {
  describe(`a sign-in by name verifies against what its options read (${name})`, () => {
    const withHarness = async (
      run: (h: Harness, reads: () => number) => Promise<void>,
      apps = [applicationConfig()],
    ): Promise<void> => {
      const backend = await open();
      try {
        const { store, reads } = counting(backend.store);
        await run(new Harness({ credentials: store, apps }), reads);
      } finally {
        await backend.close();
      }
    };

    it('reads the user’s credentials once per sign-in, at its options', async () => {
      await withHarness(async (h, reads) => {
        const flow = new Flow(h, username('once'));
        await flow.register();
        const before = reads();
        expectOk((await flow.authenticate()).res);
        expectOk((await flow.authenticate()).res);
        assert.equal(reads() - before, 2);
      });
    });

    /** Two tabs of one user: two options, then the second tab's result signed with `secondCount`. */
    const twoTabs = async (h: Harness, user: string, secondCount: number) => {
      const flow = new Flow(h, username(user), { counter: { start: 1 } });
      const { credential } = await flow.register();
      const first = await flow.assertionOptions();
      const second = await flow.assertionOptions();
      const post = (options: unknown, signCount: number) =>
        h.post(PATHS.assertionResult, flow.authenticator.authenticate(options as never, { signCount }), {
          origin: flow.origin,
        });
      expectOk(await post(second, secondCount));
      return { postFirst: (signCount: number) => post(first, signCount), credentialId: credential.id as string };
    };

    it('two tabs: the later result, signed with a higher counter, is accepted after the earlier one moved it', async () => {
      await withHarness(async (h) => {
        const tabs = await twoTabs(h, 'tabs', 5);
        // The first tab's options read counter 1; the store holds 5 now, and 6 is above it.
        expectOk(await tabs.postFirst(6));
        assert.equal((await h.deps.credentials.find(CLIENT_ID, tabs.credentialId))?.signCount, 6);
      });
    });

    it('a counter that the other tab already used fails as it would have on a fresh read', async () => {
      await withHarness(async (h) => {
        const tabs = await twoTabs(h, 'replay', 5);
        expectFailure(await tabs.postFirst(5), 'SIGNATURE_COUNTER_NOT_INCREASED', 400);
        assert.equal((await h.deps.credentials.find(CLIENT_ID, tabs.credentialId))?.signCount, 5);
      });
    });

    it('a credential deleted after the options fails as unknown, and nothing is written', async () => {
      await withHarness(async (h) => {
        const flow = new Flow(h, username('deleted'));
        const { credential } = await flow.register();
        const options = await flow.assertionOptions();
        assert.equal(await h.deps.credentials.delete?.(CLIENT_ID, credential.id), true);
        const res = await h.post(PATHS.assertionResult, flow.authenticator.authenticate(options), {
          origin: flow.origin,
        });
        expectFailure(res, 'CREDENTIAL_ID_NOT_FOUND', 400);
        assert.equal(await h.deps.credentials.find(CLIENT_ID, credential.id), undefined);
      });
    });

    it('a credential deleted and made again under its id (another key) after the options: the stored key decides', async () => {
      await withHarness(async (h) => {
        const flow = new Flow(h, username('remade'));
        const { credential } = await flow.register();
        const other = new Flow(h, username('other-key'));
        const { credential: otherCredential } = await other.register();
        const options = await flow.assertionOptions();
        const first = await h.deps.credentials.find(CLIENT_ID, credential.id);
        const otherKey = (await h.deps.credentials.find(CLIENT_ID, otherCredential.id))!.publicKey;
        assert.equal(await h.deps.credentials.delete?.(CLIENT_ID, credential.id), true);
        await h.deps.credentials.create({ ...first!, publicKey: otherKey, createdAt: first!.createdAt + 1 });
        const res = await h.post(PATHS.assertionResult, flow.authenticator.authenticate(options), {
          origin: flow.origin,
        });
        expectFailure(res, 'ASSERTION_SIGNATURE_VERIFICATION_FAIL', 400);
        assert.equal((await h.deps.credentials.find(CLIENT_ID, credential.id))?.lastUsedAt, null);
      });
    });

    it('a status marked after the options is decided at the result (refused under "refuse")', async () => {
      await withHarness(
        async (h) => {
          const flow = new Flow(h, username('marked'));
          const { credential } = await flow.register();
          const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
          const options = await flow.assertionOptions();
          const marked = await h.deps.credentials.markAuthenticatorStatus(
            { clientId: CLIENT_ID, aaguid: stored!.aaguid, status: 'REVOKED', at: h.clock.now() },
            () => [],
          );
          assert.equal(marked.length, 1);
          const res = await h.post(PATHS.assertionResult, flow.authenticator.authenticate(options), {
            origin: flow.origin,
          });
          expectFailure(res, 'AUTHENTICATOR_STATUS_NOT_ACCEPTED', 400);
          assert.equal((await h.deps.credentials.find(CLIENT_ID, credential.id))?.lastUsedAt, null);
        },
        [applicationConfig({ compromisedAuthenticators: 'refuse' })],
      );
    });
  });
}
