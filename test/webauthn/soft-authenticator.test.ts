// The soft authenticator itself: what it sends is what a browser and an authenticator send, and every
// statement builder of its table produces a statement the matching verifier accepts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCbor } from '../../src/webauthn/cbor.js';
import { supportedAttestationFormats } from '../../src/webauthn/attestation/index.js';
import { STATEMENT_BUILDERS } from '../support/statements/index.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { authenticate, creationOptions, register, requestOptions, RP_ID, ORIGIN } from './helpers.js';

describe('soft authenticator', () => {
  it('sends clientDataJSON like a browser: type, challenge, origin, crossOrigin in that order', () => {
    const options = creationOptions();
    const json = new SoftAuthenticator().register(options);
    const text = Buffer.from(json.response.clientDataJSON, 'base64url').toString('utf8');
    assert.equal(
      text,
      JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: ORIGIN, crossOrigin: false }),
    );
    assert.equal(json.id, json.rawId);
    assert.equal(json.type, 'public-key');
    assert.deepEqual(json.response.transports, ['internal', 'hybrid']);
    const obj = decodeCbor(Buffer.from(json.response.attestationObject, 'base64url')) as Map<string, unknown>;
    assert.equal(obj.get('fmt'), 'none');
    assert.deepEqual(obj.get('attStmt'), new Map());
  });

  it('uses the first offered algorithm it supports, and the RP ID of the options', () => {
    const r = register(new SoftAuthenticator(), {}, creationOptions([-999, -257, -7]));
    assert.equal(r.verified.publicKey.alg, -257);
    const json = new SoftAuthenticator().register(
      { ...creationOptions(), rp: { name: 'x' } },
      { origin: `https://${RP_ID}:8443` },
    );
    assert.ok(json.id.length > 0);
  });

  it('picks the allowed credential it holds, or a discoverable one when allowCredentials is empty', () => {
    const auth = new SoftAuthenticator();
    const first = register(auth);
    const second = register(auth);
    assert.equal(auth.authenticate(requestOptions([second.json.id])).id, second.json.id);
    assert.equal(auth.authenticate(requestOptions([])).id, first.json.id);
    assert.equal(auth.authenticate(requestOptions([]), { credentialId: second.json.id }).id, second.json.id);
    assert.throws(() => auth.authenticate(requestOptions(['AAAA'])), /holds no credential/);
  });

  it('advances its counter by the configured increment, or keeps it at zero', () => {
    const auth = new SoftAuthenticator({ counter: { start: 100, increment: 5 } });
    const r = register(auth);
    assert.equal(r.verified.signCount, 100);
    assert.equal(authenticate(auth, r).signCount, 105);
    assert.equal(authenticate(auth, r, {}, { signCount: 105 }).signCount, 110);
  });

  it("sends the owner's user handle by default and omits it on request", () => {
    const auth = new SoftAuthenticator();
    const r = register(auth);
    const options = requestOptions([r.json.id]);
    assert.equal(auth.authenticate(options).response.userHandle, r.options.user.id);
    assert.equal('userHandle' in auth.authenticate(options, { userHandle: null }).response, false);
  });

  for (const fmt of STATEMENT_BUILDERS.keys()) {
    it(`fmt "${fmt}": its statement builder and the verifier of the same name agree`, () => {
      assert.ok(supportedAttestationFormats().includes(fmt), `${fmt} has no verifier`);
      const auth = new SoftAuthenticator({ fmt });
      const r = register(auth, {}, creationOptions([-7, -257]));
      assert.equal(r.verified.fmt, fmt);
      assert.equal(authenticate(auth, r).flags.up, true);
    });
  }
});
