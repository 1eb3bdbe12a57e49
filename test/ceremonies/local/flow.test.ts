// The local variant end to end through inject: options with rp.id/rpId = localhost and nothing from
// storage, registration for every attestation format and algorithm the soft authenticator supports,
// the blob handed back, repeated sign-in with it, and not one call to the credential store.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_ALGORITHMS } from '../../../src/schemas/values.js';
import { openLocalCredential } from '../../../src/ceremonies/local-blob.js';
import { deriveUserHandle } from '../../../src/ceremonies/user-handle.js';
import { COSE_ALGORITHMS } from '../../../src/webauthn/cose.js';
import { CLIENT_ID, PATHS, START, applicationConfig, expectOk } from '../../support/harness.js';
import { STATEMENT_BUILDERS } from '../../support/statements/index.js';
import { LocalFlow, LocalRig, local } from './support.js';

describe('local variant: options', () => {
  it('attestation options: rp.id localhost, user.id derived, excludeCredentials empty, no origin header needed', async () => {
    const rig = new LocalRig();
    const body = expectOk(await rig.post(PATHS.attestationOptions, { username: local('alice'), displayName: 'Alice' }));
    assert.equal(body.rp.id, 'localhost');
    assert.equal(body.rp.name, 'Test IdP');
    assert.equal(body.user.name, 'alice#localhost');
    assert.equal(body.user.displayName, 'Alice');
    assert.equal(body.user.id, deriveUserHandle(rig.secrets.userHandleKey, CLIENT_ID, 'alice#localhost'));
    assert.deepEqual(body.excludeCredentials, []);
    assert.deepEqual(
      body.pubKeyCredParams,
      DEFAULT_ALGORITHMS.map((alg) => ({ type: 'public-key', alg })),
    );
    assert.deepEqual(body.extensions, { credProps: true });
    assert.equal(body.timeout, 180000);
    assert.deepEqual(rig.store.calls, [], 'local options never read the credential store');
  });

  it('assertion options: rpId localhost and allowCredentials the remembered id (no key is stored)', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'alice');
    const kept = await flow.registered();
    const body = await flow.assertionOptions({ userVerification: 'required' });
    assert.equal(body.rpId, 'localhost');
    assert.deepEqual(body.allowCredentials, [
      { type: 'public-key', id: kept.credentialId, transports: ['hybrid', 'internal'] },
    ]);
    assert.equal(body.userVerification, 'required');
    assert.match(body.challenge, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(rig.store.calls, []);
  });

  it('user.id of "alice#localhost" differs from the standard variant\'s "alice#<domain>"', async () => {
    const rig = new LocalRig();
    const localBody = expectOk(await rig.post(PATHS.attestationOptions, { username: local('alice') }));
    const standardBody = expectOk(await rig.h.post(PATHS.attestationOptions, { username: 'alice#idp.example.test' }));
    assert.notEqual(localBody.user.id, standardBody.user.id);
  });
});

/** Every (format, algorithm) pair the soft authenticator can produce and the application offers. */
function cases(): { fmt: string; alg: number }[] {
  const offered = COSE_ALGORITHMS.map((a) => a.alg);
  const all: { fmt: string; alg: number }[] = [];
  for (const builder of STATEMENT_BUILDERS.values()) {
    for (const { alg } of COSE_ALGORITHMS) {
      if (!offered.includes(alg)) continue;
      if (builder.credentialAlgorithms && !builder.credentialAlgorithms.includes(alg)) continue;
      all.push({ fmt: builder.fmt, alg });
    }
  }
  return all;
}

describe('local variant: registration and sign-in for every format and algorithm', () => {
  const app = applicationConfig({ algorithms: COSE_ALGORITHMS.map((a) => a.alg) });
  const all = cases();

  it('covers several formats and every algorithm of the COSE table', () => {
    assert.ok(new Set(all.map((c) => c.fmt)).size >= 3, 'at least none, packed and fido-u2f');
    for (const { alg } of COSE_ALGORITHMS)
      assert.ok(
        all.some((c) => c.alg === alg),
        `algorithm ${alg} is covered`,
      );
  });

  for (const { fmt, alg } of all) {
    it(`${fmt}, alg ${alg}: ok + localhost blob holding the credential; signs in twice; stores nothing`, async () => {
      const rig = new LocalRig({ apps: [app] });
      const flow = new LocalFlow(rig, 'dave', { fmt, transports: ['usb', 'nfc'] });
      const { res, credential, options } = await flow.register({ alg });
      const body = expectOk(res);
      assert.deepEqual(Object.keys(body).sort(), [
        'aaguid',
        'acr',
        'amr',
        'attestationFormat',
        'attestationTrusted',
        'attestationType',
        'authenticatorName',
        'authenticatorVerified',
        'backupEligible',
        'backupState',
        'credentialId',
        'discoverable',
        'errorMessage',
        'localhost',
        'sessionId',
        'signCount',
        'status',
        'userHandle',
        'userVerified',
        'username',
      ]);
      assert.equal(body.username, 'dave#localhost');
      assert.equal(body.credentialId, credential.id);
      assert.equal(body.userHandle, options.user.id);
      assert.equal(body.attestationFormat, fmt);
      assert.match(body.localhost, /^[A-Za-z0-9_-]+$/);

      const inside = openLocalCredential(body.localhost, rig.secrets.localBlobKeys, {
        clientId: CLIENT_ID,
        credentialId: credential.id,
      });
      const soft = flow.authenticator.credential(credential.id)!;
      assert.equal(inside.clientId, CLIENT_ID);
      assert.equal(inside.rpId, 'localhost');
      assert.equal(inside.username, 'dave#localhost');
      assert.equal(inside.userHandle, options.user.id);
      assert.equal(inside.credentialId, credential.id);
      assert.deepEqual(Buffer.from(inside.publicKey), soft.cose);
      assert.equal(inside.algorithm, alg);
      assert.equal(inside.attestationFormat, fmt);
      assert.deepEqual(inside.transports, ['usb', 'nfc']);
      assert.equal(inside.userVerified, true);
      assert.equal(inside.residentKey, true);
      assert.equal(inside.createdAt, START);

      const kept = { credentialId: credential.id, localhost: body.localhost };
      for (let round = 0; round < 2; round += 1) {
        const signIn = await flow.authenticate(kept);
        const { localhost: _blob, ...identity } = { localhost: undefined, ...expectOk(signIn.res) };
        assert.deepEqual(identity, {
          status: 'ok',
          errorMessage: '',
          sessionId: '',
          username: 'dave#localhost',
          userHandle: options.user.id,
          credentialId: credential.id,
          userVerified: true,
          backupEligible: false,
          backupState: false,
          aaguid: inside.aaguid,
          authenticatorName: null,
          authenticatorVerified: false,
          signCount: inside.signCount + round + 1,
          amr: ['hwk', 'user', 'mfa'],
          acr: 'phr',
        });
        assert.equal(_blob, undefined, 'an assertion answer carries no blob');
      }
      assert.deepEqual(rig.store.calls, [], 'the local variant never calls the credential store');
    });
  }
});

describe('local variant: what the blob records', () => {
  it('flags, AAGUID, attestation type and credProps.rk as the registration reported them', async () => {
    const rig = new LocalRig();
    const aaguid = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const flow = new LocalFlow(rig, 'erin', { fmt: 'packed', aaguid, flags: { be: true, bs: true, uv: false } });
    const { res, credential } = await flow.register(
      { clientExtensionResults: { credProps: { rk: false } } },
      { authenticatorSelection: { userVerification: 'discouraged' } },
    );
    const inside = openLocalCredential(expectOk(res).localhost, rig.secrets.localBlobKeys, {
      clientId: CLIENT_ID,
      credentialId: credential.id,
    });
    assert.equal(inside.aaguid, '00112233-4455-6677-8899-aabbccddeeff');
    assert.equal(inside.attestationType, 'self');
    assert.equal(inside.backupEligible, true);
    assert.equal(inside.backupState, true);
    assert.equal(inside.userVerified, false);
    assert.equal(inside.residentKey, false);
  });

  it('the blob is sealed under the newest configured key and never shows the public key or username', async () => {
    const rig = new LocalRig({
      secrets: {
        userHandleKey: Buffer.alloc(32, 1),
        localBlobKeys: [
          { id: 'newest', key: Buffer.alloc(32, 2) },
          { id: 'older', key: Buffer.alloc(32, 3) },
        ],
      },
    });
    const flow = new LocalFlow(rig, 'frank');
    const { res, credential } = await flow.register();
    const blob = Buffer.from(expectOk(res).localhost, 'base64url');
    assert.equal(blob.subarray(2, 2 + blob[1]!).toString(), 'newest');
    assert.ok(!blob.includes(flow.authenticator.credential(credential.id)!.cose));
    assert.ok(!blob.includes(Buffer.from('frank#localhost')));
  });

  it('a second registration of the same user and authenticator is not refused (nothing to compare with)', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'gina');
    const first = await flow.registered();
    const second = await flow.registered();
    assert.notEqual(first.credentialId, second.credentialId);
    expectOk((await flow.authenticate(first)).res);
    expectOk((await flow.authenticate(second)).res);
    assert.deepEqual(rig.store.calls, []);
  });
});
