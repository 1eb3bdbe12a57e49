// POST /api/assertion/result over a real socket, on every credential store: what a sign-in without a user
// name answers must not tell who exists (issue 23). A credential id that by-name options handed out (a real
// user's, or an unknown user's stand-in), posted with a random user handle, fails the same way. The
// application's backupEligibility policy holds at sign-in too (WebAuthn L3 §7.2 step 18).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  CLIENT_ID,
  DOMAIN,
  Flow,
  PATHS,
  applicationConfig,
  expectFailure,
  expectOk,
  username,
} from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { CREDENTIAL_STORES, type OpenedCredentialStore } from '../support/credential-stores.js';

for (const kind of CREDENTIAL_STORES) {
  describe(`nameless sign-in with a by-name credential id, ${kind.name} store (real socket)`, () => {
    let opened: OpenedCredentialStore;
    let h: SocketHarness;
    const authenticator = new SoftAuthenticator({ origin: 'https://idp.example.test' });

    before(async () => {
      opened = await kind.open();
      h = await SocketHarness.start({ credentials: opened.store });
      const options = expectOk(await h.post(PATHS.attestationOptions, { username: username('alice') }));
      expectOk(await h.post(PATHS.attestationResult, authenticator.register(options)));
    });
    after(async () => {
      await h.close();
      await opened.close();
    });

    /** The id by-name options hand out for this user (the real one, or the stand-in). */
    async function offeredId(user: string): Promise<string> {
      const options = expectOk(await h.post(PATHS.assertionOptions, { username: username(user) }));
      assert.equal(options.allowCredentials.length, 1);
      return options.allowCredentials[0].id;
    }

    /** A nameless ceremony answered with `id` and a random user handle (alice's key signs, id swapped). */
    async function namelessWith(id: string): Promise<{ status: number; body: any }> {
      const options = expectOk(await h.post(PATHS.assertionOptions, { username: `#${DOMAIN}` }));
      const made = authenticator.authenticate(options, { userHandle: randomBytes(32).toString('base64url') });
      const res = await h.post(PATHS.assertionResult, { ...made, id, rawId: id });
      return { status: res.status, body: res.json() };
    }

    it('a known user’s id and an unknown user’s stand-in answer alike: name, message and signals', async () => {
      const real = await offeredId('alice');
      const standIn = await offeredId('nobody');
      assert.notEqual(real, standIn);
      const known = await namelessWith(real);
      const unknown = await namelessWith(standIn);
      assert.equal(known.status, 400);
      assert.equal(known.body.errorMessage[0], 'CREDENTIAL_ID_NOT_FOUND');
      assert.deepEqual(known.body.signals, { unknownCredential: { rpId: DOMAIN, credentialId: real } });
      const masked = (reply: { status: number; body: any }, id: string) =>
        JSON.stringify({ status: reply.status, body: reply.body }).replaceAll(id, '<id>');
      assert.equal(masked(known, real), masked(unknown, standIn));
    });

    it('the owner’s own handle still signs in', async () => {
      const options = expectOk(await h.post(PATHS.assertionOptions, { username: `#${DOMAIN}` }));
      const body = expectOk(await h.post(PATHS.assertionResult, authenticator.authenticate(options)));
      assert.equal(body.username, username('alice'));
    });
  });
}

for (const kind of CREDENTIAL_STORES) {
  describe(`backupEligibility policy at sign-in, ${kind.name} store (real socket)`, () => {
    let opened: OpenedCredentialStore;
    const harnesses: SocketHarness[] = [];
    before(async () => {
      opened = await kind.open();
    });
    after(async () => {
      for (const h of harnesses) await h.close();
      await opened.close();
    });

    const cases = [
      { policy: 'required', registered: true, signedIn: false, name: 'BACKUP_ELIGIBILITY_REQUIRED' },
      { policy: 'forbidden', registered: false, signedIn: true, name: 'BACKUP_ELIGIBILITY_NOT_ALLOWED' },
    ] as const;
    for (const c of cases) {
      it(`${c.policy}: a sign-in whose BE contradicts it is refused as a registration is; the stored flag stays`, async () => {
        const h = await SocketHarness.start({
          credentials: opened.store,
          apps: [applicationConfig({ backupEligibility: c.policy })],
        });
        harnesses.push(h);
        const flow = new Flow(h, username(`be-${c.policy}`));
        const registered = expectOk((await flow.register({ flags: { be: c.registered } })).res);
        // The same refusal a registration with this flag gets.
        const other = new Flow(h, username(`be-${c.policy}-other`));
        expectFailure((await other.register({ flags: { be: c.signedIn } })).res, c.name, 400);
        for (const options of [{}, { username: `#${DOMAIN}` }]) {
          const { res } = await flow.authenticate({ flags: { be: c.signedIn } }, options);
          expectFailure(res, c.name, 400);
        }
        const stored = await opened.store.find(CLIENT_ID, registered.credentialId);
        assert.equal(stored?.backupEligible, c.registered);
        assert.equal(stored?.lastUsedAt, null);
        // A sign-in that keeps to the policy still works.
        expectOk((await flow.authenticate({ flags: { be: c.registered } })).res);
      });
    }
  });
}
