// Ceremonies (challenges): found by the challenge in clientDataJSON, bound to client, operation, variant and
// origin; single use whether verification succeeds or fails; gone after `timeout`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CLIENT_ID,
  Flow,
  Harness,
  ORIGIN,
  PATHS,
  applicationConfig,
  expectFailure,
  expectOk,
  username,
} from '../support/harness.js';

describe('challenge lifetime and single use', () => {
  it('a result after the timeout → SESSION_NOT_FOUND (the fake clock advanced past expiresAt)', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('late'));
    const options = await flow.attestationOptions();
    const credential = flow.authenticator.register(options);
    h.clock.advance(180_001);
    expectFailure(await h.post(PATHS.attestationResult, credential), 'SESSION_NOT_FOUND', 400);
    assert.equal(await h.deps.credentials.find(CLIENT_ID, credential.id), undefined);
  });

  it('a result just within the timeout succeeds', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('intime'));
    const options = await flow.attestationOptions();
    h.clock.advance(179_000);
    expectOk(await h.post(PATHS.attestationResult, flow.authenticator.register(options)));
  });

  it("the application's timeoutMs sets both the options' timeout and the lifetime", async () => {
    const h = new Harness({ apps: [applicationConfig({ timeoutMs: 60_000 })] });
    const flow = new Flow(h, username('short'));
    const options = await flow.attestationOptions();
    assert.equal(options.timeout, 60_000);
    h.clock.advance(60_001);
    expectFailure(
      await h.post(PATHS.attestationResult, flow.authenticator.register(options)),
      'SESSION_NOT_FOUND',
      400,
    );
  });

  it('the same registration posted twice → the second gets SESSION_ALREADY_REVOKED', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('twice'));
    const options = await flow.attestationOptions();
    const credential = flow.authenticator.register(options);
    expectOk(await h.post(PATHS.attestationResult, credential));
    expectFailure(await h.post(PATHS.attestationResult, credential), 'SESSION_ALREADY_REVOKED', 400);
  });

  it('a failed verification consumes the challenge too: a corrected retry gets SESSION_ALREADY_REVOKED', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('retry'));
    await flow.register();
    const options = await flow.assertionOptions();
    const broken = flow.authenticator.authenticate(options, { breaks: 'flipSignature' });
    expectFailure(await h.post(PATHS.assertionResult, broken), 'ASSERTION_SIGNATURE_VERIFICATION_FAIL', 400);
    const good = flow.authenticator.authenticate(options);
    expectFailure(await h.post(PATHS.assertionResult, good), 'SESSION_ALREADY_REVOKED', 400);
  });

  it('an assertion replayed after success → SESSION_ALREADY_REVOKED, the counter is not touched again', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('replay'));
    const { credential } = await flow.register();
    const { res, credential: assertion } = await flow.authenticate();
    expectOk(res);
    const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
    expectFailure(await h.post(PATHS.assertionResult, assertion), 'SESSION_ALREADY_REVOKED', 400);
    assert.deepEqual(await h.deps.credentials.find(CLIENT_ID, credential.id), stored);
  });

  it('a challenge of another operation → SESSION_NOT_FOUND (registration challenge used to sign in)', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('mixed'));
    await flow.register();
    const creation = await flow.attestationOptions();
    const assertion = flow.authenticator.authenticate({ challenge: creation.challenge, rpId: creation.rp.id });
    const detail = expectFailure(await h.post(PATHS.assertionResult, assertion), 'SESSION_NOT_FOUND', 400);
    assert.match(detail, /registration/);
  });

  it('a challenge issued to another Client ID → SESSION_NOT_FOUND', async () => {
    const other = applicationConfig({ clientId: 'other-client' });
    const h = new Harness({ apps: [applicationConfig(), other] });
    const flow = new Flow(h, username('cross'));
    const options = await flow.attestationOptions();
    const credential = flow.authenticator.register(options);
    expectFailure(
      await h.post(PATHS.attestationResult, credential, { clientId: 'other-client' }),
      'SESSION_NOT_FOUND',
      400,
    );
    // ...and the rightful caller still has its ceremony.
    expectOk(await h.post(PATHS.attestationResult, credential));
  });

  it('standard: the result must come with the same origin header as the options → ORIGIN_NOT_MATCHED', async () => {
    const second = 'https://login.idp.example.test';
    const h = new Harness({ apps: [applicationConfig({ origins: [ORIGIN, second] })] });
    const flow = new Flow(h, username('origins'));
    const options = await flow.attestationOptions();
    const credential = flow.authenticator.register(options);
    const detail = expectFailure(
      await h.post(PATHS.attestationResult, credential, { origin: second }),
      'ORIGIN_NOT_MATCHED',
      400,
    );
    assert.match(detail, /origin header/);
  });

  it('standard: clientDataJSON.origin must equal the origin header, even if it is another registered origin', async () => {
    const second = 'https://login.idp.example.test';
    const h = new Harness({ apps: [applicationConfig({ origins: [ORIGIN, second] })] });
    const flow = new Flow(h, username('origins2'));
    const options = await flow.attestationOptions();
    const credential = flow.authenticator.register(options, { origin: second });
    expectFailure(await h.post(PATHS.attestationResult, credential), 'ORIGIN_NOT_MATCHED', 400);
  });

  it('crossOrigin: true fails unless the application allows it', async () => {
    const strict = new Flow(new Harness(), username('frame'));
    expectFailure((await strict.register({ crossOrigin: true })).res, 'CROSS_ORIGIN_NOT_ALLOWED', 400);
    const lenient = new Flow(
      new Harness({ apps: [applicationConfig({ allowCrossOrigin: true, topOrigins: ['https://portal.example'] })] }),
      username('frame'),
    );
    expectOk((await lenient.register({ crossOrigin: true, clientData: { topOrigin: 'https://portal.example' } })).res);
  });

  it('user verification required by the application policy: options say "required", UV=0 fails', async () => {
    const h = new Harness({ apps: [applicationConfig({ userVerification: 'required' })] });
    const flow = new Flow(h, username('policy'));
    const { options, res } = await flow.register(
      { flags: { uv: false } },
      { authenticatorSelection: { userVerification: 'discouraged' } },
    );
    assert.equal(options.authenticatorSelection.userVerification, 'required');
    expectFailure(res, 'USER_VERIFICATION_FLAG_NOT_SET', 400);
    expectOk((await flow.register()).res);
    const assertion = await flow.assertionOptions({ userVerification: 'discouraged' });
    assert.equal(assertion.userVerification, 'required');
    expectFailure((await flow.authenticate({ flags: { uv: false } })).res, 'USER_VERIFICATION_FLAG_NOT_SET', 400);
  });
});
