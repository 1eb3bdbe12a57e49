// A user whose passkeys were imported keeps the user handle its authenticators hold (src/ceremonies/user-handle.ts):
// registration options answer it as user.id, sign-in by name and without a name find the user by it, and the
// signals carry it. A user registered here keeps the derived handle.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { CLIENT_ID, DOMAIN, Flow, Harness, ORIGIN, PATHS, expectOk, username } from '../support/harness.js';
import { heldPasskey } from '../support/held-passkeys.js';
import { deriveUserHandle } from '../../src/ceremonies/user-handle.js';
import type { CredentialRecord } from '../../src/stores/types.js';

const KEY = Buffer.alloc(32, 7); // the Harness's user-handle key

async function importAnn(h: Harness) {
  const held = heldPasskey({ alg: -7, rpId: DOMAIN, origin: ORIGIN, userHandle: randomBytes(16), signCount: 41 });
  const record: CredentialRecord = {
    clientId: CLIENT_ID,
    credentialId: held.credentialId,
    userHandle: held.userHandle,
    username: username('ann'),
    publicKey: held.cose,
    algorithm: -7,
    signCount: 41,
    transports: ['internal'],
    aaguid: '00000000-0000-0000-0000-000000000000',
    attestationFormat: 'none',
    attestationType: 'none',
    attestationTrusted: false,
    backupEligible: true,
    backupState: true,
    userVerified: false,
    residentKey: true,
    cloneWarning: false,
    createdAt: 1_600_000_000_000,
    lastUsedAt: null,
  };
  await h.deps.credentials.importBatch(
    CLIENT_ID,
    [{ username: username('ann'), userHandle: held.userHandle }],
    [record],
  );
  return held;
}

describe('imported user handles in the ceremonies', () => {
  it('registration options answer the kept handle as user.id, and the new passkey is stored under it', async () => {
    const h = new Harness();
    const held = await importAnn(h);
    const flow = new Flow(h, username('ann'));
    const { res, options } = await flow.register();
    assert.equal(options.user.id, held.userHandle);
    assert.deepEqual(
      options.excludeCredentials.map((c: { id: string }) => c.id),
      [held.credentialId],
    );
    const body = expectOk(res);
    assert.equal(body.userHandle, held.userHandle);
    const owned = await h.deps.credentials.listByUser(CLIENT_ID, held.userHandle);
    assert.equal(owned.length, 2);
  });

  it('signs in by name with the imported passkey, the counter going on, signals carrying the kept handle', async () => {
    const h = new Harness();
    const held = await importAnn(h);
    const flow = new Flow(h, username('ann'));
    (flow as { authenticator: typeof held.authenticator }).authenticator = held.authenticator;
    const { res, options } = await flow.authenticate();
    assert.deepEqual(
      options.allowCredentials.map((c: { id: string }) => c.id),
      [held.credentialId],
    );
    const body = expectOk(res);
    assert.equal(body.userHandle, held.userHandle);
    assert.equal(body.signCount, 42);
    assert.equal(body.signals.allAcceptedCredentials.userId, held.userHandle);
    assert.equal(body.signals.currentUserDetails.userId, held.userHandle);
    // The counter went on from the imported 41: an assertion at or below it fails as it does for any passkey.
    held.credential.signCount = 40;
    const again = await flow.authenticate({ signCount: 41 });
    assert.equal(again.res.json().errorMessage[0], 'SIGNATURE_COUNTER_NOT_INCREASED');
  });

  it('signs in without a user name: the handle the authenticator returns finds the imported user', async () => {
    const h = new Harness();
    const held = await importAnn(h);
    const flow = new Flow(h, `#${DOMAIN}`);
    (flow as { authenticator: typeof held.authenticator }).authenticator = held.authenticator;
    const { res, credential } = await flow.authenticate({ credentialId: held.credentialId });
    assert.equal(credential.response.userHandle, held.userHandle);
    const body = expectOk(res);
    assert.equal(body.username, username('ann'));
    assert.equal(body.signals.allAcceptedCredentials.userId, held.userHandle);
  });

  it('a user registered here keeps the derived handle', async () => {
    const h = new Harness();
    await importAnn(h);
    const flow = new Flow(h, username('bob'));
    const { options } = await flow.register();
    assert.equal(options.user.id, deriveUserHandle(KEY, CLIENT_ID, username('bob')));
    const res = await h.post(PATHS.assertionOptions, { username: username('bob') });
    assert.equal(res.status, 200);
  });
});
