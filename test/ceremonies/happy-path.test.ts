// Every operation's happy path through inject: several algorithms and attestation formats, registration
// then repeated sign-in, synced passkeys (counter 0, BE=BS=1), and the options' exact shapes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_ALGORITHMS } from '../../src/schemas/values.js';
import { KeyCache } from '../../src/ceremonies/key-cache.js';
import {
  CLIENT_ID,
  DOMAIN,
  Flow,
  Harness,
  PATHS,
  applicationConfig,
  expectFailure,
  expectOk,
  username,
} from '../support/harness.js';

describe('attestation options (registration challenge)', () => {
  it('answers rp, user, challenge, pubKeyCredParams, timeout, excludeCredentials, authenticatorSelection, attestation, extensions', async () => {
    const h = new Harness();
    const selection = { authenticatorAttachment: 'platform', requireResidentKey: true, userVerification: 'required' };
    const res = await h.post('/api/attestation/options', {
      username: username('alice'),
      displayName: 'Alice A.',
      authenticatorSelection: selection,
      attestation: 'direct',
      extensions: { 'example.extension': true },
    });
    const body = expectOk(res);
    assert.deepEqual(body.rp, { name: 'Test IdP', icon: '', id: DOMAIN });
    assert.equal(body.user.name, 'alice#idp.example.test');
    assert.equal(body.user.displayName, 'Alice A.');
    assert.equal(body.user.icon, '');
    assert.match(body.user.id, /^[A-Za-z0-9_-]{43}$/);
    assert.match(body.challenge, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      body.pubKeyCredParams,
      DEFAULT_ALGORITHMS.map((alg) => ({ type: 'public-key', alg })),
    );
    assert.equal(body.timeout, 180000);
    assert.deepEqual(body.excludeCredentials, []);
    assert.deepEqual(body.authenticatorSelection, selection);
    assert.equal(body.attestation, 'direct');
    assert.deepEqual(body.extensions, { 'example.extension': true, credProps: true });
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.ok(res.headers['x-request-id']);
  });

  it('defaults: displayName = the user part, attestation "none", a discoverable credential, extensions {credProps:true}', async () => {
    const h = new Harness();
    const body = expectOk(await h.post('/api/attestation/options', { username: username('bob#with#hashes') }));
    assert.equal(body.user.displayName, 'bob#with#hashes');
    assert.equal(body.attestation, 'none');
    assert.deepEqual(body.authenticatorSelection, { residentKey: 'required', requireResidentKey: true });
    assert.deepEqual(body.extensions, { credProps: true });
  });

  it('a selection silent on discoverability asks for a passkey; one that asks for less keeps it', async () => {
    const h = new Harness();
    const post = async (authenticatorSelection: Record<string, unknown>) =>
      expectOk(await h.post('/api/attestation/options', { username: username('carol'), authenticatorSelection }))
        .authenticatorSelection;
    assert.deepEqual(await post({ userVerification: 'preferred' }), {
      userVerification: 'preferred',
      residentKey: 'required',
      requireResidentKey: true,
    });
    assert.deepEqual(await post({ residentKey: 'discouraged' }), { residentKey: 'discouraged' });
    assert.deepEqual(await post({ requireResidentKey: false }), { requireResidentKey: false });
    assert.deepEqual(await post({ residentKey: 'preferred', requireResidentKey: false }), {
      residentKey: 'preferred',
      requireResidentKey: false,
    });
  });

  it('user.id is the same for the same username and differs between users', async () => {
    const h = new Harness();
    const a1 = expectOk(await h.post('/api/attestation/options', { username: username('alice') }));
    const a2 = expectOk(await h.post('/api/attestation/options', { username: username('alice') }));
    const b = expectOk(await h.post('/api/attestation/options', { username: username('bob') }));
    assert.equal(a1.user.id, a2.user.id);
    assert.notEqual(a1.user.id, b.user.id);
    assert.notEqual(a1.challenge, a2.challenge);
  });

  it("pubKeyCredParams follow the application's algorithms in order", async () => {
    const h = new Harness({ apps: [applicationConfig({ algorithms: [-8, -7, -65535] })] });
    const body = expectOk(await h.post('/api/attestation/options', { username: username('carol') }));
    assert.deepEqual(
      body.pubKeyCredParams.map((p: { alg: number }) => p.alg),
      [-8, -7, -65535],
    );
  });
});

/** The Signal API's arguments for dave, whose options named no display name (docs/api.md "Signals"). */
function signalsOf(userId: string, ids: readonly string[]) {
  return {
    allAcceptedCredentials: { rpId: 'idp.example.test', userId, allAcceptedCredentialIds: ids },
    currentUserDetails: { rpId: 'idp.example.test', userId, name: 'dave#idp.example.test', displayName: 'dave' },
  };
}

describe('registration then authentication (standard variant)', () => {
  const cases: { name: string; fmt: string; alg?: number }[] = [
    { name: 'none, ES256', fmt: 'none', alg: -7 },
    { name: 'packed self, ES384', fmt: 'packed', alg: -35 },
    { name: 'packed self, ES512', fmt: 'packed', alg: -36 },
    { name: 'packed self, EdDSA', fmt: 'packed', alg: -8 },
    { name: 'none, RS256', fmt: 'none', alg: -257 },
    { name: 'packed self, PS256', fmt: 'packed', alg: -37 },
    { name: 'fido-u2f, ES256', fmt: 'fido-u2f' },
  ];
  for (const c of cases) {
    it(`${c.name}: registers, stores, and signs in twice`, async () => {
      const h = new Harness();
      const flow = new Flow(h, username('dave'), { fmt: c.fmt });
      const { res, credential } = await flow.register(c.alg === undefined ? {} : { alg: c.alg });
      const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
      assert.ok(stored);
      // Who and how (docs/api.md): the envelope plus the identity of the stored credential.
      const { credentialsToken: registrationToken, ...registered } = expectOk(res);
      assert.match(registrationToken, /^v1\./);
      assert.deepEqual(registered, {
        status: 'ok',
        errorMessage: '',
        sessionId: '',
        username: 'dave#idp.example.test',
        userHandle: stored.userHandle,
        credentialId: credential.id,
        userVerified: true,
        backupEligible: false,
        backupState: false,
        aaguid: stored.aaguid,
        authenticatorName: null,
        authenticatorVerified: false,
        signCount: 0,
        amr: ['hwk', 'user', 'mfa'],
        acr: 'phr',
        discoverable: true,
        attestationFormat: c.fmt,
        attestationType: stored.attestationType,
        attestationTrusted: false,
        signals: signalsOf(stored.userHandle, [credential.id]),
      });
      assert.equal(stored.attestationFormat, c.fmt);
      assert.equal(stored.username, 'dave#idp.example.test');
      assert.deepEqual(stored.transports, ['internal', 'hybrid']);
      assert.equal(stored.residentKey, true);
      if (c.alg !== undefined) assert.equal(stored.algorithm, c.alg);

      for (let i = 0; i < 2; i++) {
        const { res: auth, options } = await flow.authenticate();
        const { credentialsToken, ...signedIn } = expectOk(auth);
        assert.match(credentialsToken, /^v1\./);
        assert.deepEqual(signedIn, {
          status: 'ok',
          errorMessage: '',
          sessionId: '',
          username: 'dave#idp.example.test',
          userHandle: stored.userHandle,
          credentialId: credential.id,
          userVerified: true,
          backupEligible: false,
          backupState: false,
          aaguid: stored.aaguid,
          authenticatorName: null,
          authenticatorVerified: false,
          signCount: i + 1,
          amr: ['hwk', 'user', 'mfa'],
          acr: 'phr',
          signals: signalsOf(stored.userHandle, [credential.id]),
        });
        assert.deepEqual(options.allowCredentials, [
          { type: 'public-key', id: credential.id, transports: ['hybrid', 'internal'] },
        ]);
      }
      const after = await h.deps.credentials.find(CLIENT_ID, credential.id);
      assert.equal(after?.signCount, 2);
      assert.equal(after?.lastUsedAt, h.clock.now());
    });
  }

  it('excludeCredentials lists the registered credential (with transports) on the next options call', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('erin'), { transports: ['usb', 'nfc'] });
    const { credential } = await flow.register();
    const again = await flow.attestationOptions();
    assert.deepEqual(again.excludeCredentials, [{ type: 'public-key', id: credential.id, transports: ['nfc', 'usb'] }]);
  });

  it('a synced passkey (counter always 0, BE=BS=1) signs in repeatedly', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('frank'), { counter: 'zero', flags: { be: true, bs: true } });
    const { res, credential } = await flow.register();
    expectOk(res);
    for (let i = 0; i < 3; i++) expectOk((await flow.authenticate()).res);
    const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
    assert.equal(stored?.signCount, 0);
    assert.equal(stored?.backupEligible, true);
    assert.equal(stored?.backupState, true);
    assert.equal(stored?.cloneWarning, false);
  });

  it('imports a credential key once and serves later sign-ins from the cache', async () => {
    const keyCache = new KeyCache(4);
    const h = new Harness({ keyCache });
    const flow = new Flow(h, username('gina'));
    await flow.register();
    assert.equal(keyCache.imports, 0);
    for (let i = 0; i < 3; i++) expectOk((await flow.authenticate()).res);
    assert.equal(keyCache.imports, 1);
    assert.equal(keyCache.size, 1);
  });

  it('assertion options echo userVerification and extensions, and give rpId', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('hana'));
    await flow.register();
    const options = await flow.assertionOptions({
      userVerification: 'required',
      extensions: { 'example.extension': true },
    });
    assert.equal(options.userVerification, 'required');
    assert.deepEqual(options.extensions, { 'example.extension': true });
    assert.equal(options.rpId, DOMAIN);
    assert.equal(options.timeout, 180000);
    const plain = await flow.assertionOptions();
    assert.equal(plain.userVerification, 'preferred');
    assert.deepEqual(plain.extensions, {});
  });

  it('reports one outcome per request with operation, client and variant', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('ivan'));
    await flow.register();
    assert.deepEqual(
      h.outcomes.map((o) => [o.operation, o.clientId, o.variant, o.httpStatus, o.errorName]),
      [
        ['attestation/options', CLIENT_ID, 'standard', 200, null],
        ['attestation/result', CLIENT_ID, 'standard', 200, null],
      ],
    );
    assert.ok(h.outcomes.every((o) => o.remoteAddress === '127.0.0.1' && o.requestId.length > 0));
  });

  it('reports the username and, for result calls, the credential id (the audit log reads them)', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('judy'));
    const { credential } = await flow.register();
    await flow.authenticate();
    expectFailure(await h.post(PATHS.assertionOptions, { username: 'no-domain' }), 'INVALID_USERNAME', 400);
    expectFailure(await h.post(PATHS.assertionOptions, '{'), 'MALFORMED_JSON', 400);
    assert.deepEqual(
      h.outcomes.map((o) => [o.operation, o.username, o.credentialId]),
      [
        ['attestation/options', username('judy'), null],
        ['attestation/result', username('judy'), credential.id],
        ['assertion/options', username('judy'), null],
        ['assertion/result', username('judy'), credential.id],
        ['assertion/options', 'no-domain', null],
        ['assertion/options', null, null],
      ],
    );
  });
});
