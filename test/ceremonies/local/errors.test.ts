// Every named failure of the local variant through inject: the extensions.localhost rules, each
// LOCAL_BLOB_* error, origins against localOrigins, rpIdHash against localhost, and the variant switches.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LOCAL_BLOB_MAX_CHARS } from '../../../src/ceremonies/local-blob.js';
import { PATHS, applicationConfig, expectFailure, expectOk } from '../../support/harness.js';
import { LOCAL_PAGE, LocalFlow, LocalRig, blobKeyId, local, type Kept } from './support.js';

async function registeredFlow(
  user = 'alice',
  rig = new LocalRig(),
): Promise<{ rig: LocalRig; flow: LocalFlow; kept: Kept }> {
  const flow = new LocalFlow(rig, user);
  return { rig, flow, kept: await flow.registered() };
}

/** Signs in with `extensions.localhost` replaced by `marker` (undefined removes it). */
async function signInWithMarker(flow: LocalFlow, kept: Kept, marker: unknown) {
  return flow.authenticate(kept, {}, {}, (credential) => {
    const extensions = { ...credential.extensions };
    if (marker === undefined) delete extensions.localhost;
    else extensions.localhost = marker;
    return { ...credential, extensions };
  });
}

function blobBytes(kept: Kept): Buffer {
  return Buffer.from(kept.localhost, 'base64url');
}

describe('local variant: extensions.localhost on the attestation result', () => {
  for (const [name, marker] of [
    ['false', false],
    ['the string "true"', 'true'],
    ['1', 1],
    ['null', null],
    ['an object', {}],
  ] as const) {
    it(`LOCAL_EXTENSION_MISSING when it is ${name}; nothing is answered or stored`, async () => {
      const rig = new LocalRig();
      const flow = new LocalFlow(rig, 'alice');
      const { res } = await flow.register({}, {}, (c) => ({
        ...c,
        extensions: { ...c.extensions, localhost: marker },
      }));
      const text = expectFailure(res, 'LOCAL_EXTENSION_MISSING', 400);
      assert.match(text, /true/);
      assert.equal(res.json().localhost, undefined);
      assert.deepEqual(rig.store.calls, []);
    });
  }

  it('LOCAL_EXTENSION_MISSING when the relay forgot step 1 but sent an origin header as a standard relay would', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'alice', {}, { origin: 'https://idp.example.test' });
    const { res } = await flow.register({}, {}, (c) => ({ ...c, extensions: { credProps: { rk: true } } }));
    expectFailure(res, 'LOCAL_EXTENSION_MISSING', 400);
    assert.deepEqual(rig.store.calls, []);
  });

  it('other client extension results next to localhost are allowed', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'alice');
    const { res } = await flow.register({
      clientExtensionResults: { credProps: { rk: true }, 'example.extension': 'x' },
    });
    expectOk(res);
  });
});

describe('local variant: the blob on the assertion result (each named error)', () => {
  it('LOCAL_BLOB_MISSING for null and for an empty string', async () => {
    const { flow, kept } = await registeredFlow();
    expectFailure((await signInWithMarker(flow, kept, null)).res, 'LOCAL_BLOB_MISSING', 400);
    expectFailure((await signInWithMarker(flow, kept, '')).res, 'LOCAL_BLOB_MISSING', 400);
  });

  it('LOCAL_BLOB_MISSING when the relay forgot step 3 but sent an origin header as a standard relay would', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'alice', {}, { origin: 'https://idp.example.test' });
    const kept = await flow.registered();
    expectFailure((await signInWithMarker(flow, kept, undefined)).res, 'LOCAL_BLOB_MISSING', 400);
  });

  it('LOCAL_BLOB_NOT_STRING for true (the attestation marker), a number, an object and an array', async () => {
    const { flow, kept } = await registeredFlow();
    const text = expectFailure((await signInWithMarker(flow, kept, true)).res, 'LOCAL_BLOB_NOT_STRING', 400);
    assert.match(text, /attestation result/);
    for (const marker of [42, { blob: kept.localhost }, [kept.localhost]]) {
      expectFailure((await signInWithMarker(flow, kept, marker)).res, 'LOCAL_BLOB_NOT_STRING', 400);
    }
  });

  it('LOCAL_BLOB_MALFORMED for text that is not base64url (padding, "+", "/", spaces) or absurdly long', async () => {
    const { flow, kept } = await registeredFlow();
    const b = kept.localhost;
    for (const marker of [
      `${b}==`,
      `+${b.slice(1)}`,
      `/${b.slice(1)}`,
      `${b.slice(0, 10)} ${b.slice(10)}`,
      'A'.repeat(LOCAL_BLOB_MAX_CHARS + 4),
    ]) {
      expectFailure((await signInWithMarker(flow, kept, marker)).res, 'LOCAL_BLOB_MALFORMED', 400);
    }
  });

  it('LOCAL_BLOB_MALFORMED for a truncated blob and for one with trailing bytes', async () => {
    const { flow, kept } = await registeredFlow();
    const bytes = blobBytes(kept);
    for (const length of [1, 5, 20, bytes.length - 16, bytes.length - 1]) {
      const text = expectFailure(
        (await signInWithMarker(flow, kept, bytes.subarray(0, length).toString('base64url'))).res,
        'LOCAL_BLOB_MALFORMED',
        400,
      );
      assert.match(text, /truncated/);
    }
    const longer = Buffer.concat([bytes, Buffer.from([1, 2, 3])]).toString('base64url');
    expectFailure((await signInWithMarker(flow, kept, longer)).res, 'LOCAL_BLOB_MALFORMED', 400);
  });

  it('LOCAL_BLOB_TAMPERED for a changed byte in the nonce, the ciphertext or the tag', async () => {
    const { flow, kept } = await registeredFlow();
    const bytes = blobBytes(kept);
    const headerLength = 2 + bytes[1]! + 2;
    for (const index of [headerLength, headerLength + 12, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[index] = altered[index]! ^ 0x20;
      expectFailure(
        (await signInWithMarker(flow, kept, altered.toString('base64url'))).res,
        'LOCAL_BLOB_TAMPERED',
        400,
      );
    }
  });

  it('LOCAL_BLOB_KEY_UNKNOWN for a blob sealed by a key this service does not hold (retired, or another deployment)', async () => {
    const { rig, flow, kept } = await registeredFlow();
    const sealedWith = blobKeyId(kept.localhost);
    rig.useSecrets({
      userHandleKey: rig.secrets.userHandleKey,
      localBlobKeys: [{ id: 'elsewhere', key: Buffer.alloc(32, 0x42) }],
    });
    const text = expectFailure((await flow.authenticate(kept)).res, 'LOCAL_BLOB_KEY_UNKNOWN', 400);
    assert.ok(text.includes(sealedWith), 'the text names the key id, which is no secret');
    assert.deepEqual(rig.store.calls, []);
  });

  it('LOCAL_BLOB_VERSION_UNSUPPORTED for a blob whose version byte is not 1', async () => {
    const { flow, kept } = await registeredFlow();
    const bytes = blobBytes(kept);
    bytes[0] = 2;
    expectFailure(
      (await signInWithMarker(flow, kept, bytes.toString('base64url'))).res,
      'LOCAL_BLOB_VERSION_UNSUPPORTED',
      400,
    );
  });

  it('LOCAL_BLOB_APPLICATION_MISMATCH for a blob issued to another application of the same deployment', async () => {
    const other = applicationConfig({
      clientId: 'other-client',
      domain: 'other.example.test',
      origins: ['https://other.example.test'],
    });
    const rig = new LocalRig({ apps: [applicationConfig(), other] });
    const theirs = new LocalFlow(rig, 'alice', {}, { clientId: 'other-client' });
    const kept = await theirs.registered();
    // The same authenticator signs in to the first application with the other application's blob.
    const ours = new LocalFlow(rig, 'alice');
    ours.authenticator.credentials.push(...theirs.authenticator.credentials);
    expectFailure((await ours.authenticate(kept)).res, 'LOCAL_BLOB_APPLICATION_MISMATCH', 400);
  });

  it('LOCAL_BLOB_USER_MISMATCH for a blob of another user, even with the right signature', async () => {
    const rig = new LocalRig();
    const alice = new LocalFlow(rig, 'alice');
    const kept = await alice.registered();
    const mallory = new LocalFlow(rig, 'mallory');
    mallory.authenticator.credentials.push(...alice.authenticator.credentials);
    expectFailure((await mallory.authenticate(kept, { userHandle: null })).res, 'LOCAL_BLOB_USER_MISMATCH', 400);
  });

  it('LOCAL_BLOB_CREDENTIAL_MISMATCH for the blob of another credential of the same user', async () => {
    const { flow, kept } = await registeredFlow();
    const second = await flow.registered();
    const { res } = await flow.authenticate(second, {}, {}, (c) => ({
      ...c,
      extensions: { ...c.extensions, localhost: kept.localhost },
    }));
    expectFailure(res, 'LOCAL_BLOB_CREDENTIAL_MISMATCH', 400);
  });

  it('a failed result consumes its challenge, and the blob still works for the next ceremony', async () => {
    const { rig, flow, kept } = await registeredFlow();
    const { res, credential } = await signInWithMarker(flow, kept, 'AAAA');
    expectFailure(res, 'LOCAL_BLOB_VERSION_UNSUPPORTED', 400);
    expectFailure(
      await rig.post(PATHS.assertionResult, { ...credential, extensions: { localhost: kept.localhost } }),
      'SESSION_ALREADY_REVOKED',
      400,
    );
    expectOk((await flow.authenticate(kept)).res);
  });

  it('no error text carries key material', async () => {
    const { rig, flow, kept } = await registeredFlow();
    const bytes = blobBytes(kept);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
    const bodies = [
      (await signInWithMarker(flow, kept, bytes.toString('base64url'))).res.body,
      (await signInWithMarker(flow, kept, 'AQ')).res.body,
      (await signInWithMarker(flow, kept, true)).res.body,
    ];
    const logs = JSON.stringify(rig.h.logs);
    for (const { key } of rig.secrets.localBlobKeys) {
      for (const encoding of ['hex', 'base64', 'base64url'] as const) {
        for (const text of [...bodies, logs]) assert.ok(!text.includes(key.toString(encoding)), 'key material leaked');
      }
    }
  });
});

describe('local variant: the same verification as the standard variant', () => {
  it("the response's userHandle must be the blob's user (USER_HANDLE_NOT_MATCHED)", async () => {
    const { flow, kept } = await registeredFlow();
    expectFailure((await flow.authenticate(kept, { breaks: 'userHandle' })).res, 'USER_HANDLE_NOT_MATCHED', 400);
  });

  it('a signature by another key than the one in the blob fails (ASSERTION_SIGNATURE_VERIFICATION_FAIL)', async () => {
    const { flow, kept } = await registeredFlow();
    expectFailure(
      (await flow.authenticate(kept, { breaks: 'flipSignature' })).res,
      'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
      400,
    );
  });

  it('user verification required by the options is enforced (USER_VERIFICATION_FLAG_NOT_SET)', async () => {
    const { flow, kept } = await registeredFlow();
    expectFailure(
      (await flow.authenticate(kept, { flags: { uv: false } }, { userVerification: 'required' })).res,
      'USER_VERIFICATION_FLAG_NOT_SET',
      400,
    );
    const reg = await flow.register(
      { flags: { uv: false } },
      { authenticatorSelection: { userVerification: 'required' } },
    );
    expectFailure(reg.res, 'USER_VERIFICATION_FLAG_NOT_SET', 400);
  });
});

describe('local variant: origins (clientDataJSON.origin against localOrigins) and rpIdHash', () => {
  const outcome = async (localOrigins: readonly string[] | undefined, origin: string) => {
    const rig = new LocalRig(localOrigins ? { apps: [applicationConfig({ localOrigins })] } : {});
    const flow = new LocalFlow(rig, 'alice', { origin });
    const { res } = await flow.register();
    return { rig, flow, res };
  };

  it('default https://localhost accepts any port of https://localhost', async () => {
    for (const origin of [
      'https://localhost',
      'https://localhost:8443',
      'https://localhost:3000',
      'https://localhost:65535',
    ]) {
      expectOk((await outcome(undefined, origin)).res);
    }
  });

  it('default refuses other schemes, hosts and look-alikes (ORIGIN_NOT_MATCHED)', async () => {
    for (const origin of [
      'http://localhost:8443',
      'https://localhost.evil.example',
      'https://evil.example',
      'https://sub.localhost:8443',
      'https://idp.example.test',
      'https://localhost:8443/path',
      'https://localhost:8443/',
    ]) {
      const { res, rig } = await outcome(undefined, origin);
      expectFailure(res, 'ORIGIN_NOT_MATCHED', 400);
      assert.deepEqual(rig.store.calls, []);
    }
  });

  it('an origin that is no URL at all is INVALID_ORIGIN, as in the standard variant', async () => {
    for (const origin of ['null', 'https://'])
      expectFailure((await outcome(undefined, origin)).res, 'INVALID_ORIGIN', 400);
  });

  it('an entry with a port allows only that port; a development hostname can be listed', async () => {
    const list = ['https://dev.example.test:8443', 'http://localhost:3000'];
    expectOk((await outcome(list, 'https://dev.example.test:8443')).res);
    expectOk((await outcome(list, 'http://localhost:3000')).res);
    for (const origin of [
      'https://dev.example.test:8444',
      'https://dev.example.test',
      'https://localhost:8443',
      'http://localhost:3001',
    ]) {
      expectFailure((await outcome(list, origin)).res, 'ORIGIN_NOT_MATCHED', 400);
    }
  });

  it('the assertion is held to localOrigins too', async () => {
    const { flow } = await outcome(undefined, LOCAL_PAGE);
    const kept = await flow.registered();
    expectFailure((await flow.authenticate(kept, { origin: 'https://evil.example' })).res, 'ORIGIN_NOT_MATCHED', 400);
    expectOk((await flow.authenticate(kept, { origin: 'https://localhost:9999' })).res);
  });

  it('rpIdHash must be SHA-256("localhost"), not of the application\'s domain (RPID_HASH_NOT_MATCHED)', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'alice');
    expectFailure((await flow.register({ rpId: 'idp.example.test' })).res, 'RPID_HASH_NOT_MATCHED', 400);
    const kept = await flow.registered();
    expectFailure((await flow.authenticate(kept, { rpId: 'idp.example.test' })).res, 'RPID_HASH_NOT_MATCHED', 400);
  });
});

describe('local variant: selection and switches', () => {
  it('an origin header on local calls is ignored, whatever it says', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'alice', {}, { origin: 'https://unregistered.example' });
    const kept = await flow.registered();
    expectOk((await flow.authenticate(kept)).res);
  });

  it('VARIANT_NOT_ALLOWED for an application without "local" in variants, on options and results', async () => {
    const rig = new LocalRig({ apps: [applicationConfig({ variants: ['standard'] })] });
    expectFailure(await rig.post(PATHS.attestationOptions, { username: local('alice') }), 'VARIANT_NOT_ALLOWED', 403);
    expectFailure(await rig.post(PATHS.assertionOptions, { username: local('alice') }), 'VARIANT_NOT_ALLOWED', 403);
    const enabled = await registeredFlow();
    const { credential } = await signInWithMarker(enabled.flow, enabled.kept, enabled.kept.localhost);
    expectFailure(await rig.post(PATHS.assertionResult, credential), 'VARIANT_NOT_ALLOWED', 403);
  });

  it('LOCAL_VARIANT_DISABLED when the deployment switched the local variant off, on every operation', async () => {
    const rig = new LocalRig({ config: { local: { enabled: false } } });
    expectFailure(
      await rig.post(PATHS.attestationOptions, { username: local('alice') }),
      'LOCAL_VARIANT_DISABLED',
      403,
    );
    expectFailure(await rig.post(PATHS.assertionOptions, { username: local('alice') }), 'LOCAL_VARIANT_DISABLED', 403);
    const enabled = await registeredFlow();
    const reg = await new LocalFlow(enabled.rig, 'bob').register();
    expectFailure(await rig.post(PATHS.attestationResult, reg.credential), 'LOCAL_VARIANT_DISABLED', 403);
    const { credential } = await signInWithMarker(enabled.flow, enabled.kept, enabled.kept.localhost);
    expectFailure(await rig.post(PATHS.assertionResult, credential), 'LOCAL_VARIANT_DISABLED', 403);
  });
});
