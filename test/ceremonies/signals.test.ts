// The Signal API's arguments on the answers, over a real socket (docs/api.md "Signals"): every ok result
// of the standard variant carries signals.allAcceptedCredentials and signals.currentUserDetails; a sign-in
// without a user name whose credential the application does not have fails as before and carries
// signals.unknownCredential; a sign-in by name never does; the local variant carries none. Also the
// authenticator's name from the bundled lists, marked unverified without a trusted attestation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openApiDocument } from '../../src/admin/openapi.js';
import { checkResponse } from '../support/openapi-lookup.js';
import { CLIENT_ID, DOMAIN, Flow, PATHS, expectFailure, expectOk, username } from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';
import { LOCAL_PAGE } from './local/support.js';
import type { InjectResponse } from '../../src/http/app.js';

const GOOGLE = Buffer.from('ea9b8d664d011d213ce4b6b48cb575d4', 'hex');
const DOCUMENT = openApiDocument();
const IDENTITY = [
  'username',
  'userHandle',
  'credentialId',
  'userVerified',
  'backupEligible',
  'backupState',
  'aaguid',
  'authenticatorName',
  'authenticatorVerified',
  'signCount',
  'amr',
  'acr',
];

/** The answer conforms to the OpenAPI document (its signals included). */
function conforms(path: string, res: InjectResponse): void {
  assert.deepEqual(
    checkResponse(DOCUMENT, {
      path,
      method: 'POST',
      status: res.status,
      contentType: res.headers['content-type'] ?? '',
      body: res.body,
    }),
    [],
  );
}

describe('signals on the result answers (standard variant, real socket)', () => {
  let h: SocketHarness;
  before(async () => {
    h = await SocketHarness.start();
  });
  after(async () => h.close());

  it('a registration answers every credential of the user and the details its options gave', async () => {
    const flow = new Flow(h, username('alice'), { aaguid: GOOGLE });
    const first = await flow.register({}, { displayName: 'Alice Example' });
    conforms(PATHS.attestationResult, first.res);
    const userId = first.options.user.id;
    assert.deepEqual(expectOk(first.res).signals, {
      allAcceptedCredentials: { rpId: DOMAIN, userId, allAcceptedCredentialIds: [first.credential.id] },
      currentUserDetails: { rpId: DOMAIN, userId, name: 'alice#idp.example.test', displayName: 'Alice Example' },
    });
    h.clock.advance(1000);
    const second = await flow.register({}, { displayName: 'Alice E.' });
    const body = expectOk(second.res);
    assert.deepEqual(body.signals.allAcceptedCredentials.allAcceptedCredentialIds, [
      first.credential.id,
      second.credential.id,
    ]);
    // The newest registration's display name is what the IdP said last.
    assert.equal(body.signals.currentUserDetails.displayName, 'Alice E.');
  });

  it('a sign-in by name answers the credentials the user still has, not one deleted meanwhile', async () => {
    const flow = new Flow(h, username('bob'));
    const kept = await flow.register();
    h.clock.advance(1000);
    const dropped = await flow.register();
    const userId = kept.options.user.id;
    const before = await flow.authenticate({ credentialId: kept.credential.id });
    conforms(PATHS.assertionResult, before.res);
    assert.deepEqual(expectOk(before.res).signals.allAcceptedCredentials.allAcceptedCredentialIds, [
      kept.credential.id,
      dropped.credential.id,
    ]);
    assert.equal(await h.deps.credentials.delete(CLIENT_ID, dropped.credential.id), true);
    const afterDelete = expectOk((await flow.authenticate({ credentialId: kept.credential.id })).res);
    assert.deepEqual(afterDelete.signals, {
      allAcceptedCredentials: { rpId: DOMAIN, userId, allAcceptedCredentialIds: [kept.credential.id] },
      // No display name in the options: the user part, as the options answered it.
      currentUserDetails: { rpId: DOMAIN, userId, name: 'bob#idp.example.test', displayName: 'bob' },
    });
  });

  it('a sign-in without a user name answers them too', async () => {
    const flow = new Flow(h, username('carol'));
    const { credential, options } = await flow.register({}, { displayName: 'Carol' });
    const signIn = new Flow(h, `#${DOMAIN}`);
    signIn.authenticator.credentials.push(flow.authenticator.credential(credential.id)!);
    const res = (await signIn.authenticate({ credentialId: credential.id })).res;
    conforms(PATHS.assertionResult, res);
    const body = expectOk(res);
    assert.equal(body.username, 'carol#idp.example.test');
    assert.deepEqual(body.signals.allAcceptedCredentials, {
      rpId: DOMAIN,
      userId: options.user.id,
      allAcceptedCredentialIds: [credential.id],
    });
    assert.equal(body.signals.currentUserDetails.displayName, 'Carol');
  });

  it('a sign-in without a user name with a deleted credential fails as before, carrying signals.unknownCredential only', async () => {
    const flow = new Flow(h, username('dora'));
    const { credential } = await flow.register();
    await h.deps.credentials.delete(CLIENT_ID, credential.id);
    const signIn = new Flow(h, `#${DOMAIN}`);
    signIn.authenticator.credentials.push(flow.authenticator.credential(credential.id)!);
    const res = (await signIn.authenticate({ credentialId: credential.id })).res;
    expectFailure(res, 'CREDENTIAL_ID_NOT_FOUND', 400);
    conforms(PATHS.assertionResult, res);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['errorMessage', 'sessionId', 'signals', 'status']);
    assert.deepEqual(body.signals, { unknownCredential: { rpId: DOMAIN, credentialId: credential.id } });
  });

  it('a sign-in by name never carries a signal when it fails: not for a deleted credential, not for an unknown user', async () => {
    const flow = new Flow(h, username('erin'));
    const { credential } = await flow.register();
    // Options taken while the credential existed, the credential deleted before the result.
    const options = await flow.assertionOptions();
    await h.deps.credentials.delete(CLIENT_ID, credential.id);
    const sent = flow.authenticator.authenticate(options, { credentialId: credential.id });
    const gone = await h.post(PATHS.assertionResult, sent);
    expectFailure(gone, 'CREDENTIAL_ID_NOT_FOUND', 400);
    assert.deepEqual(Object.keys(gone.json()).sort(), ['errorMessage', 'sessionId', 'status']);
    // A user without credentials gets the stand-in; answering it must look like any failed signature.
    const nobody = new Flow(h, username('nobody'));
    const stand = await nobody.assertionOptions();
    const forged = flow.authenticator.authenticate(stand, { credentialId: credential.id });
    const res = await h.post(PATHS.assertionResult, {
      ...forged,
      id: stand.allowCredentials[0].id,
      rawId: stand.allowCredentials[0].id,
    });
    assert.equal(res.json().status, 'failed');
    assert.deepEqual(Object.keys(res.json()).sort(), ['errorMessage', 'sessionId', 'status']);
  });

  it("the authenticator's name comes from the bundled lists, unverified without a trusted attestation", async () => {
    const flow = new Flow(h, username('gina'), { aaguid: GOOGLE });
    const registered = expectOk((await flow.register()).res);
    assert.equal(registered.authenticatorName, 'Google Password Manager');
    assert.equal(registered.authenticatorVerified, false);
    const signedIn = expectOk((await flow.authenticate()).res);
    assert.deepEqual([signedIn.authenticatorName, signedIn.authenticatorVerified], ['Google Password Manager', false]);
    for (const key of IDENTITY) assert.ok(key in signedIn, key);
  });
});

describe('signals in the local variant (real socket)', () => {
  let h: SocketHarness;
  before(async () => {
    h = await SocketHarness.start();
  });
  after(async () => h.close());

  it('carry none: the service keeps no credential list there (docs/decisions.md "Beyond the specification")', async () => {
    const flow = new Flow(h, 'lena#localhost', {}, LOCAL_PAGE);
    const options = await flow.attestationOptions({}, { origin: null });
    const made = flow.authenticator.register(options);
    const res = await h.post(
      PATHS.attestationResult,
      { ...made, extensions: { ...made.extensions, localhost: true } },
      { origin: null },
    );
    const body = expectOk(res);
    assert.equal(body.signals, undefined);
    assert.equal(typeof body.localhost, 'string');
  });
});
