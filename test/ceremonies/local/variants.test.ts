// The two variants never cross: a standard ceremony is never verified as local (and never answers a blob),
// a local ceremony never touches the credential store, and credentials of one variant do not sign in to
// the other. Then: every defect the soft authenticator can inject fails the same way in both variants.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CLIENT_ID, Flow, PATHS, expectFailure, expectOk, username } from '../../support/harness.js';
import type { AuthenticationBreak, RegistrationBreak } from '../../support/soft-authenticator.js';
import { LocalFlow, LocalRig } from './support.js';

describe('local and standard variants never cross', () => {
  it('a standard registration carrying extensions.localhost = true is refused (LOCAL_EXTENSION_UNEXPECTED); nothing stored, no blob', async () => {
    const rig = new LocalRig();
    const flow = new Flow(rig.h, username('alice'));
    const { res, credential } = await flow.register({}, {}, (c) => ({
      ...c,
      extensions: { ...c.extensions, localhost: true },
    }));
    expectFailure(res, 'LOCAL_EXTENSION_UNEXPECTED', 400);
    assert.equal(res.json().localhost, undefined);
    assert.equal(await rig.store.inner.find(CLIENT_ID, credential.id), undefined);
  });

  it('a standard sign-in carrying a valid local blob is refused (LOCAL_EXTENSION_UNEXPECTED)', async () => {
    const rig = new LocalRig();
    const localFlow = new LocalFlow(rig, 'alice');
    const kept = await localFlow.registered();
    const standard = new Flow(rig.h, username('alice'));
    expectOk((await standard.register()).res);
    const { res } = await standard.authenticate({}, {}, (c) => ({ ...c, extensions: { localhost: kept.localhost } }));
    expectFailure(res, 'LOCAL_EXTENSION_UNEXPECTED', 400);
  });

  it('a local registration sent as standard (no extensions.localhost, origin header) is refused (LOCAL_EXTENSION_MISSING)', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'alice', {}, { origin: 'https://idp.example.test' });
    const { res } = await flow.register({}, {}, (c) => ({ ...c, extensions: {} }));
    expectFailure(res, 'LOCAL_EXTENSION_MISSING', 400);
    assert.deepEqual(rig.store.calls, []);
  });

  it('a credential registered locally is unknown to the standard variant', async () => {
    const rig = new LocalRig();
    const localFlow = new LocalFlow(rig, 'alice');
    const kept = await localFlow.registered();
    const standard = new Flow(rig.h, username('alice'));
    standard.authenticator.credentials.push(...localFlow.authenticator.credentials);
    const { res } = await standard.authenticate({ credentialId: kept.credentialId, rpId: 'localhost' });
    expectFailure(res, 'CREDENTIAL_ID_NOT_FOUND', 400);
  });

  it("a credential registered in the standard variant cannot sign in locally, even with a blob of the user's local credential", async () => {
    const rig = new LocalRig();
    const standard = new Flow(rig.h, username('alice'));
    const { credential } = await standard.register();
    const localFlow = new LocalFlow(rig, 'alice');
    const kept = await localFlow.registered();
    localFlow.authenticator.credentials.push(...standard.authenticator.credentials);
    // Signed by the standard credential (over rpId localhost), presented with the local credential's blob.
    const { res } = await localFlow.authenticate({ credentialId: credential.id, localhost: kept.localhost });
    expectFailure(res, 'LOCAL_BLOB_CREDENTIAL_MISMATCH', 400);
  });

  it('a local challenge cannot be answered by a standard result, nor a standard challenge by a local one', async () => {
    const rig = new LocalRig();
    const localFlow = new LocalFlow(rig, 'alice');
    const kept = await localFlow.registered();
    // Local options, then the result sent as standard (origin header, no blob).
    const options = await localFlow.assertionOptions();
    const signed = localFlow.authenticator.authenticate(options, { credentialId: kept.credentialId });
    expectFailure(await rig.h.post(PATHS.assertionResult, { ...signed, extensions: {} }), 'LOCAL_BLOB_MISSING', 400);

    // Standard options, then the result sent as local (no origin header, a blob).
    const standard = new Flow(rig.h, username('alice'));
    expectOk((await standard.register()).res);
    const standardOptions = await standard.assertionOptions();
    const standardSigned = standard.authenticator.authenticate(standardOptions);
    expectFailure(
      await rig.post(PATHS.assertionResult, { ...standardSigned, extensions: { localhost: kept.localhost } }),
      'LOCAL_EXTENSION_UNEXPECTED',
      400,
    );
  });

  it("a username with the application's domain is standard even when the relay adds the local marker to options", async () => {
    const rig = new LocalRig();
    const res = await rig.h.post(PATHS.attestationOptions, {
      username: username('alice'),
      extensions: { localhost: true },
    });
    assert.equal(expectOk(res).rp.id, 'idp.example.test');
  });
});

/** Runs one registration with `brk` in the given variant; answers the error name, or 'ok'. */
async function registrationOutcome(variant: 'standard' | 'local', brk: RegistrationBreak): Promise<string> {
  const rig = new LocalRig();
  const options = {
    breaks: brk,
    ...(brk === 'flipSignature' || brk === 'attStmtAlg' || brk === 'signedData' ? { fmt: 'packed' } : {}),
  };
  const res =
    variant === 'local'
      ? (
          await new LocalFlow(rig, 'alice').register(options, {
            authenticatorSelection: { userVerification: 'required' },
          })
        ).res
      : (
          await new Flow(rig.h, username('alice')).register(options, {
            authenticatorSelection: { userVerification: 'required' },
          })
        ).res;
  const body = res.json();
  return body.status === 'ok' ? 'ok' : body.errorMessage[0];
}

async function authenticationOutcome(variant: 'standard' | 'local', brk: AuthenticationBreak): Promise<string> {
  const rig = new LocalRig();
  let res;
  if (variant === 'local') {
    const flow = new LocalFlow(rig, 'alice');
    const kept = await flow.registered();
    res = (await flow.authenticate(kept, { breaks: brk }, { userVerification: 'required' })).res;
  } else {
    const flow = new Flow(rig.h, username('alice'));
    expectOk((await flow.register()).res);
    res = (await flow.authenticate({ breaks: brk }, { userVerification: 'required' })).res;
  }
  const body = res.json();
  return body.status === 'ok' ? 'ok' : body.errorMessage[0];
}

describe('local verification is the standard verification (each defect fails the same way)', () => {
  const registrationBreaks: RegistrationBreak[] = [
    'type',
    'challenge',
    'origin',
    'crossOrigin',
    'topOrigin',
    'tokenBindingNotObject',
    'tokenBindingStatus',
    'rpIdHash',
    'up',
    'uv',
    'bsWithoutBe',
    'trailingBytes',
    'signedData',
    'flipSignature',
    'atFlagCleared',
    'attStmtAlg',
    'unknownFmt',
    'credentialIdMismatch',
    'rawIdMismatch',
  ];
  for (const brk of registrationBreaks) {
    it(`registration, ${brk}`, async () => {
      const standard = await registrationOutcome('standard', brk);
      assert.notEqual(standard, 'ok', `the standard variant refuses ${brk}`);
      assert.equal(await registrationOutcome('local', brk), standard);
    });
  }

  const authenticationBreaks: AuthenticationBreak[] = [
    'type',
    'challenge',
    'origin',
    'crossOrigin',
    'topOrigin',
    'tokenBindingNotObject',
    'tokenBindingStatus',
    'rpIdHash',
    'up',
    'uv',
    'bsWithoutBe',
    'trailingBytes',
    'signedData',
    'flipSignature',
    'userHandle',
    'rawIdMismatch',
  ];
  for (const brk of authenticationBreaks) {
    it(`authentication, ${brk}`, async () => {
      const standard = await authenticationOutcome('standard', brk);
      assert.notEqual(standard, 'ok', `the standard variant refuses ${brk}`);
      assert.equal(await authenticationOutcome('local', brk), standard);
    });
  }
});

describe('the signature counter in the local variant (docs/local-variant.md)', () => {
  it('cannot be tracked: a counter that goes back between two sign-ins is not detected', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'alice', { counter: { start: 5, increment: 1 } });
    const kept = await flow.registered();
    expectOk((await flow.authenticate(kept, { signCount: 10 })).res);
    expectOk((await flow.authenticate(kept, { signCount: 7 })).res);
    assert.deepEqual(rig.store.calls, []);
  });

  it('synced passkeys (counter always 0, BE and BS set) sign in repeatedly', async () => {
    const rig = new LocalRig();
    const flow = new LocalFlow(rig, 'alice', { counter: 'zero', flags: { be: true, bs: true } });
    const kept = await flow.registered();
    for (let i = 0; i < 3; i += 1) expectOk((await flow.authenticate(kept)).res);
  });
});
