// `authenticatorVerified` (and so a model name shown as verified) only for an AAGUID a trusted attestation
// proved (issue 23): over a real socket, on every credential store, in the registration and sign-in answers,
// a user's own list and the admin view. Self attestation proves no AAGUID, even where the application's
// metadata calls it trusted (surrogate basic); a chain to the application's anchors does.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { credentialView } from '../../src/admin/views.js';
import { indexMetadata, verifyMetadataBlob } from '../../src/webauthn/metadata/index.js';
import { createTrustEvaluator } from '../../src/webauthn/trust.js';
import { CLIENT_ID, Flow, START, expectOk, username } from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';
import { CREDENTIAL_STORES, type OpenedCredentialStore } from '../support/credential-stores.js';
import { blobPayload, createTestMds, mdsEntry } from '../support/mds.js';
import { createChain } from '../support/pki.js';

const YUBIKEY = 'cb69481e-8ff7-4039-93ec-0a2729a154a8';
const VENDOR_KEY = '11111111-2222-4333-8444-555555555555';
const mds = createTestMds();
const vendor = createChain();
const metadata = indexMetadata(
  verifyMetadataBlob(
    mds.sign(
      blobPayload([
        mdsEntry({ aaguid: YUBIKEY, description: 'YubiKey 5 Series', attestationTypes: ['basic_surrogate'] }),
        mdsEntry({ aaguid: VENDOR_KEY, description: 'Vendor Key', roots: [vendor.root.cert] }),
      ]),
    ),
    [mds.root.cert],
    new Date(START),
  ),
);
const aaguidBytes = (aaguid: string) => Buffer.from(aaguid.replace(/-/g, ''), 'hex');

for (const kind of CREDENTIAL_STORES) {
  describe(`authenticatorVerified only for a proven AAGUID, ${kind.name} store (real socket)`, () => {
    let opened: OpenedCredentialStore;
    let h: SocketHarness;

    before(async () => {
      opened = await kind.open();
      h = await SocketHarness.start({
        credentials: opened.store,
        trust: createTrustEvaluator({ anchors: [], requireTrusted: false, metadata }),
      });
    });
    after(async () => {
      await h.close();
      await opened.close();
    });

    /** Registers, signs in, lists the user's own passkeys and reads the admin view: every verdict shown. */
    async function everyVerdict(flow: Flow, statement: object): Promise<{ name: string | null; verified: boolean[] }> {
      const registered = expectOk((await flow.register({ statement })).res);
      const signedIn = expectOk((await flow.authenticate()).res);
      const list = await h.post('/api/credentials/list', {
        username: flow.user,
        credentialsToken: signedIn.credentialsToken,
      });
      assert.equal(list.status, 200, list.body);
      const [own] = list.json().credentials;
      const stored = await opened.store.find(CLIENT_ID, registered.credentialId);
      const admin = credentialView(stored!);
      assert.equal(registered.authenticatorName, signedIn.authenticatorName);
      return {
        name: signedIn.authenticatorName,
        verified: [
          registered.authenticatorVerified,
          signedIn.authenticatorVerified,
          own.authenticatorVerified,
          admin.authenticatorVerified,
        ],
      };
    }

    it('a software key that self-attests a YubiKey AAGUID the metadata lists is never shown verified', async () => {
      const flow = new Flow(h, username('mallory'), { fmt: 'packed', aaguid: aaguidBytes(YUBIKEY) });
      const answer = await everyVerdict(flow, {});
      assert.deepEqual(answer.verified, [false, false, false, false]);
    });

    it('a chain to the statement’s roots proves the AAGUID: shown verified, with the metadata name', async () => {
      const flow = new Flow(h, username('victor'), { fmt: 'packed', aaguid: aaguidBytes(VENDOR_KEY) });
      const answer = await everyVerdict(flow, {
        attestation: { x5c: vendor.x5c, privateKey: vendor.leaf.privateKey },
      });
      assert.deepEqual(answer, { name: 'Vendor Key', verified: [true, true, true, true] });
    });
  });
}
