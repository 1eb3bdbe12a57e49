// Issue #16 item 5 over a real socket: a relay that does only the specification's three steps can sign
// a security key (a non-discoverable credential, found by the browser only through allowCredentials) in
// to the local variant, because the service remembers which credential ids it registered for the user
// (never the key). The memory is bounded per user and expires: both tested with the injected clock.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LOCAL_CREDENTIAL_LIFETIME_MS } from '../../../src/ceremonies/attestation-result.js';
import { LOCAL_CREDENTIAL_LIMITS } from '../../../src/stores/types.js';
import { applicationConfig, expectOk, PATHS } from '../../support/harness.js';
import { LocalFlow } from './support.js';
import { SocketLocalRig } from './socket-rig.js';

const SECURITY_KEY = { transports: ['nfc', 'usb'], clientExtensionResults: { credProps: { rk: false } } } as const;
const DAY = 86_400_000;

describe('local variant: assertion options list the credential ids it registered (over the socket)', () => {
  let rig: SocketLocalRig;
  before(async () => {
    rig = await SocketLocalRig.start();
  });
  after(() => rig.close());

  it('a security key registered through the three steps is listed with its transports, and signs in', async () => {
    const flow = new LocalFlow(rig, 'keyholder');
    const kept = await flow.registered(SECURITY_KEY);
    const options = await flow.assertionOptions();
    assert.deepEqual(options.allowCredentials, [
      { type: 'public-key', id: kept.credentialId, transports: ['nfc', 'usb'] },
    ]);
    // The authenticator is not told which credential to use: like a browser with a security key, it finds
    // the one the options name (soft-authenticator.ts `pick`).
    const assertion = flow.authenticator.authenticate(options);
    assert.equal(assertion.id, kept.credentialId);
    const res = await rig.post(PATHS.assertionResult, { ...assertion, extensions: { localhost: kept.localhost } });
    expectOk(res);
    assert.deepEqual(rig.store.calls, [], 'the local variant still never touches the credential store');
  });

  it('several credentials of one user are listed oldest first; another user sees none of them', async () => {
    const flow = new LocalFlow(rig, 'two-keys');
    const first = await flow.registered(SECURITY_KEY);
    const second = await flow.registered({ transports: ['hybrid', 'internal'] });
    const listed = (await flow.assertionOptions()).allowCredentials;
    assert.deepEqual(
      listed.map((d: { id: string }) => d.id),
      [first.credentialId, second.credentialId],
    );
    assert.deepEqual(listed[1].transports, ['hybrid', 'internal']);
    const stranger = (await new LocalFlow(rig, 'stranger').assertionOptions()).allowCredentials;
    assert.equal(stranger.length, 1);
    assert.ok(![first.credentialId, second.credentialId].includes(stranger[0].id));
  });

  it("an unknown user gets a stand-in like the standard variant's: stable, shaped like the listed keys", async () => {
    const unknown = new LocalFlow(rig, 'nobody');
    const one = (await unknown.assertionOptions()).allowCredentials;
    const two = (await unknown.assertionOptions()).allowCredentials;
    assert.deepEqual(one, two);
    assert.equal(one.length, 1);
    // The security keys the tests above registered and listed: 32-byte ids, NFC and USB (stand-in.test.ts).
    assert.equal(Buffer.from(one[0].id, 'base64url').length, 32);
    assert.deepEqual(one[0].transports, ['nfc', 'usb']);
    assert.notDeepEqual((await new LocalFlow(rig, 'somebody-else').assertionOptions()).allowCredentials, one);
  });

  it('before any registered user was listed, the stand-in is a synced passkey: 20 bytes, hybrid/internal', async () => {
    const fresh = await SocketLocalRig.start();
    try {
      const one = (await new LocalFlow(fresh, 'nobody').assertionOptions()).allowCredentials;
      assert.equal(Buffer.from(one[0].id, 'base64url').length, 20);
      assert.deepEqual(one[0].transports, ['hybrid', 'internal']);
    } finally {
      await fresh.close();
    }
  });

  it('the next attestation options exclude the remembered ids with their transports; a new user excludes none', async () => {
    const flow = new LocalFlow(rig, 'registers-twice');
    const kept = await flow.registered(SECURITY_KEY);
    const again = await flow.attestationOptions();
    assert.deepEqual(again.excludeCredentials, [
      { type: 'public-key', id: kept.credentialId, transports: ['nfc', 'usb'] },
    ]);
    // As the standard variant answers a user without credentials: nothing to exclude, no stand-in.
    assert.deepEqual((await new LocalFlow(rig, 'newcomer').attestationOptions()).excludeCredentials, []);
    assert.deepEqual(rig.store.calls, [], 'the local variant still never touches the credential store');
  });

  it('a sign-in without a user name (#localhost) still lists nothing', async () => {
    const flow = new LocalFlow(rig, 'named');
    await flow.registered();
    const options = expectOk(await rig.post(PATHS.assertionOptions, { username: '#localhost' }));
    assert.deepEqual(options.allowCredentials, []);
  });
});

describe('local variant: the remembered ids expire and are bounded (injected clock, over the socket)', () => {
  it(`a registration is remembered for ${LOCAL_CREDENTIAL_LIFETIME_MS / DAY} days, then the user looks unknown`, async () => {
    const rig = await SocketLocalRig.start();
    try {
      const flow = new LocalFlow(rig, 'forgetful');
      const kept = await flow.registered(SECURITY_KEY);
      rig.h.clock.advance(LOCAL_CREDENTIAL_LIFETIME_MS);
      assert.deepEqual(
        (await flow.assertionOptions()).allowCredentials.map((d: { id: string }) => d.id),
        [kept.credentialId],
      );
      rig.h.clock.advance(1);
      const after = (await flow.assertionOptions()).allowCredentials;
      assert.equal(after.length, 1);
      assert.notEqual(after[0].id, kept.credentialId);
      // The stand-in of an unknown user, shaped like the security key its options listed before.
      assert.deepEqual(after[0].transports, ['nfc', 'usb']);
      assert.equal(Buffer.from(after[0].id, 'base64url').length, 32);
    } finally {
      await rig.close();
    }
  });

  it(`at most ${LOCAL_CREDENTIAL_LIMITS.perUser} per user: the oldest are forgotten first`, async () => {
    const rig = await SocketLocalRig.start();
    try {
      const flow = new LocalFlow(rig, 'collector');
      const kept = [];
      for (let i = 0; i < LOCAL_CREDENTIAL_LIMITS.perUser + 2; i += 1) {
        kept.push(await flow.registered(SECURITY_KEY));
        rig.h.clock.advance(1000);
      }
      const listed = (await flow.assertionOptions()).allowCredentials.map((d: { id: string }) => d.id);
      assert.deepEqual(
        listed,
        kept.slice(2).map((k) => k.credentialId),
      );
    } finally {
      await rig.close();
    }
  });

  it('an application that reveals unknown users answers [] for a user it does not remember', async () => {
    const rig = await SocketLocalRig.start({ apps: [applicationConfig({ revealUnknownUsers: true })] });
    try {
      assert.deepEqual((await new LocalFlow(rig, 'unremembered').assertionOptions()).allowCredentials, []);
    } finally {
      await rig.close();
    }
  });
});
