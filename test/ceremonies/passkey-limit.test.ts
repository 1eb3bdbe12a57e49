// Issue 35 item 2: `applications[].maxPasskeysPerUser` (default 100) over a real socket, on every store. The
// 101st registration of a user fails with 409 PASSKEY_LIMIT_REACHED and stores nothing: at the attestation
// options of a user already at the limit (no challenge stored), and at the result of a ceremony begun under it
// (the store's insert refuses: CredentialStore.createCounted), also when several results of one user arrive at
// once (docs/decisions.md "A user's passkey limit").
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CLIENT_ID, expectFailure, expectOk, Flow, PATHS, START, username } from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';
import { BACKENDS, type BackendStores } from '../support/backends.js';

/** Registers `count` passkeys under `name`, each with an authenticator of its own, `parallel` at a time. */
async function registerMany(h: SocketHarness, name: string, count: number, parallel = 10): Promise<void> {
  for (let done = 0; done < count; done += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - done) }, async () =>
      expectOk((await new Flow(h, name).register()).res),
    );
    await Promise.all(batch);
  }
}

/** Options, then the authenticator's answer, without sending it: a ceremony begun now, finished later. */
async function begun(h: SocketHarness, name: string): Promise<{ credential: any; userHandle: string }> {
  const flow = new Flow(h, name);
  const options = await flow.attestationOptions();
  return { credential: flow.authenticator.register(options), userHandle: options.user.id };
}

for (const backend of BACKENDS) {
  describe(`a user's passkey limit, ${backend.name} (real socket)`, () => {
    let stores: BackendStores;
    let h: SocketHarness;
    const count = async (userHandle: string) => (await stores.credentials.listByUser(CLIENT_ID, userHandle)).length;

    before(async () => {
      let clock: () => number = () => START;
      stores = await backend.open(() => clock());
      h = await SocketHarness.start({ credentials: stores.credentials, challenges: stores.challenges });
      clock = h.clock.now;
    });
    after(async () => {
      await h?.close();
      await stores?.close();
    });

    it('the default is 100: the 101st registration is refused, 409 PASSKEY_LIMIT_REACHED, nothing stored', async () => {
      assert.equal(h.deps.config.applications[0]!.maxPasskeysPerUser, 100);
      const alice = username('alice');
      await registerMany(h, alice, 99);
      // Begun while alice had 99: its options were given; its result comes after her 100th.
      const late = await begun(h, alice);
      await registerMany(h, alice, 1);
      assert.equal(await count(late.userHandle), 100);

      const refused = await h.post(PATHS.attestationResult, late.credential);
      assert.match(expectFailure(refused, 'PASSKEY_LIMIT_REACHED', 409), /100 passkeys/);
      assert.equal(await stores.credentials.find(CLIENT_ID, late.credential.id), undefined, 'not stored');
      assert.equal(await count(late.userHandle), 100);

      // A new ceremony is refused at its options already, before the authenticator makes a key.
      const options = await h.post(PATHS.attestationOptions, { username: alice });
      expectFailure(options, 'PASSKEY_LIMIT_REACHED', 409);
      assert.equal(await count(late.userHandle), 100);

      // Another user is not held back; alice may sign in and, with one passkey fewer, register again.
      expectOk((await new Flow(h, username('bob')).register()).res);
      const [oldest] = await stores.credentials.listByUser(CLIENT_ID, late.userHandle);
      assert.equal(await stores.credentials.delete(CLIENT_ID, oldest!.credentialId), true);
      await registerMany(h, alice, 1);
      assert.equal(await count(late.userHandle), 100);
    });

    it('results of one user arriving at once: only enough to reach the limit are stored', async () => {
      const carol = username('carol');
      await registerMany(h, carol, 97);
      const ceremonies = await Promise.all(Array.from({ length: 6 }, () => begun(h, carol)));
      const answers = await Promise.all(ceremonies.map((c) => h.post(PATHS.attestationResult, c.credential)));
      const ok = answers.filter((res) => res.status === 200);
      assert.equal(ok.length, 3, answers.map((res) => res.body).join('\n'));
      for (const res of answers.filter((r) => r.status !== 200)) expectFailure(res, 'PASSKEY_LIMIT_REACHED', 409);
      assert.equal(await count(ceremonies[0]!.userHandle), 100);
      const stored = await Promise.all(ceremonies.map((c) => stores.credentials.find(CLIENT_ID, c.credential.id)));
      assert.equal(stored.filter((s) => s !== undefined).length, 3);
    });
  });
}
