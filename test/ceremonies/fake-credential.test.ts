// An unknown user's stand-in credential is shaped like the application's real ones (issue 23), over a real
// socket on every credential store: its id as long as the ids the application stores (learned from its
// registered users' options), its transports those credentials have, and every descriptor's transports in
// one canonical order, stored and stand-in alike.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { deriveUserHandle } from '../../src/ceremonies/user-handle.js';
import { CLIENT_ID, PATHS, expectOk, username } from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';
import { credential } from '../support/admin-fixtures.js';
import { CREDENTIAL_STORES, type OpenedCredentialStore } from '../support/credential-stores.js';

const KEY = Buffer.alloc(32, 7); // the harness's user-handle key

for (const kind of CREDENTIAL_STORES) {
  describe(`stand-in credentials shaped like the application's, ${kind.name} store (real socket)`, () => {
    let opened: OpenedCredentialStore;
    let h: SocketHarness;
    const users = ['ann', 'ben', 'cat', 'dan'].map((u) => username(u));

    before(async () => {
      opened = await kind.open();
      for (const user of users) {
        await opened.store.create(
          credential({
            clientId: CLIENT_ID,
            username: user,
            userHandle: deriveUserHandle(KEY, CLIENT_ID, user),
            credentialId: randomBytes(32).toString('base64url'),
            transports: ['usb', 'nfc'],
          }),
        );
      }
      h = await SocketHarness.start({ credentials: opened.store });
    });
    after(async () => {
      await h.close();
      await opened.close();
    });

    const options = async (user: string) =>
      expectOk(await h.post(PATHS.assertionOptions, { username: user })).allowCredentials as {
        id: string;
        transports: string[];
      }[];

    it('registered users’ transports come in canonical order; unknown users’ stand-ins share their shape', async () => {
      for (const user of users) {
        const [real] = await options(user);
        assert.deepEqual(real!.transports, ['nfc', 'usb']);
        assert.equal(Buffer.from(real!.id, 'base64url').length, 32);
      }
      for (let i = 0; i < 20; i++) {
        const listed = await options(username(`nobody${i}`));
        assert.equal(listed.length, 1);
        assert.equal(Buffer.from(listed[0]!.id, 'base64url').length, 32, `stand-in ${i}`);
        assert.deepEqual(listed[0]!.transports, ['nfc', 'usb']);
      }
      // Stable: the same unknown user gets the same stand-in again.
      assert.deepEqual(await options(username('nobody3')), await options(username('nobody3')));
    });
  });
}
