// The credentialsToken rule of an attestation result, over a real socket on every store (docs/decisions.md
// "A credentialsToken proves a sign-in"): only the registration that gives a user their first credential
// issues one. The outside review's attack (register another passkey under alice's name, take the token it
// answered, list and delete alice's passkeys) must fail.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectFailure, expectOk, Flow, START, username } from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';
import { BACKENDS, type BackendStores } from '../support/backends.js';

const LIST = '/api/credentials/list';
const DELETE = '/api/credentials/delete';

for (const backend of BACKENDS) {
  describe(`credentialsToken of a registration, ${backend.name} (real socket)`, () => {
    let stores: BackendStores;
    let h: SocketHarness;
    let aliceFirst: { credentialId: string; credentialsToken?: string };
    let alice: Flow;

    before(async () => {
      let clock: () => number = () => START;
      stores = await backend.open(() => clock());
      h = await SocketHarness.start({ credentials: stores.credentials, challenges: stores.challenges });
      clock = h.clock.now;
      alice = new Flow(h, username('alice'));
      aliceFirst = expectOk((await alice.register()).res);
    });
    after(async () => {
      await h?.close();
      await stores?.close();
    });

    it("the user's first credential comes with a token", () => {
      assert.match(String(aliceFirst.credentialsToken), /^v1\./);
    });

    it("another passkey registered under a known user name gets none, and cannot reach the user's passkeys", async () => {
      // The attacker: a new authenticator, the victim's user name, no sign-in.
      const attacker = new Flow(h, username('alice'));
      const added = expectOk((await attacker.register()).res);
      assert.equal(typeof added.credentialId, 'string');
      assert.equal('credentialsToken' in added, false);
      // Nothing to list or delete with: no token, or one made up.
      expectFailure(await h.post(LIST, { username: username('alice') }), 'INVALID_REQUEST_BODY', 400);
      expectFailure(
        await h.post(DELETE, {
          username: username('alice'),
          credentialId: aliceFirst.credentialId,
          credentialsToken: 'v1.zzzzzzzz.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        }),
        'CREDENTIALS_TOKEN_INVALID',
        403,
      );
      const kept = await stores.credentials.find(h.deps.config.applications[0]!.clientId, aliceFirst.credentialId);
      assert.ok(kept, "alice's first passkey is still there");
    });

    it('the owner registering a second passkey gets none either; a sign-in does', async () => {
      const second = expectOk((await alice.register()).res);
      assert.equal('credentialsToken' in second, false);
      const signedIn = expectOk((await alice.authenticate({ credentialId: aliceFirst.credentialId })).res);
      assert.match(String(signedIn.credentialsToken), /^v1\./);
      const listed = expectOk(
        await h.post(LIST, { username: username('alice'), credentialsToken: signedIn.credentialsToken }),
      );
      assert.equal(listed.credentials.length, 3);
    });
  });
}
