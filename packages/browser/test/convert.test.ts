// The browser helper in Node.js: it loads without browser globals and does its own conversions there.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  base64urlToBuffer,
  bufferToBase64url,
  creationOptionsFromJSON,
  credentialToJSON,
  describeWebAuthnError,
  requestOptionsFromJSON,
  webAuthnAvailability,
  type CredentialLike,
} from '../src/index.js';

const bytes = (...values: number[]) => new Uint8Array(values).buffer;
const hex = (buffer: BufferSource) =>
  Buffer.from(buffer instanceof ArrayBuffer ? buffer : buffer.buffer).toString('hex');

describe('browser helper: conversions without a browser', () => {
  it('has no PublicKeyCredential here, so the conversions below are its own', () => {
    assert.equal(typeof (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential, 'undefined');
  });

  it('base64url both ways, without padding, and refuses other alphabets', () => {
    assert.equal(bufferToBase64url(bytes(0xfb, 0xff, 0x00)), '-_8A');
    assert.equal(hex(base64urlToBuffer('-_8A')), 'fbff00');
    assert.equal(bufferToBase64url(new Uint8Array([1, 2, 3, 4]).subarray(1, 3)), 'AgM');
    assert.throws(() => base64urlToBuffer('a+b/'), TypeError);
  });

  it('creation options: drops the envelope and null members, decodes challenge, user.id and excluded ids', () => {
    const { publicKey } = creationOptionsFromJSON({
      status: 'ok',
      errorMessage: '',
      sessionId: 's-1',
      rp: { id: 'idp.example.com', name: 'IdP' },
      user: { id: 'AQID', name: 'alice#idp.example.com', displayName: 'Alice' },
      challenge: '-_8A',
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      authenticatorSelection: { authenticatorAttachment: null, userVerification: 'preferred' },
      excludeCredentials: [{ type: 'public-key', id: 'BAU' }],
      attestation: 'none',
    });
    const options = publicKey as unknown as Record<string, unknown>;
    assert.equal('status' in options || 'errorMessage' in options || 'sessionId' in options, false);
    assert.equal(hex(publicKey.challenge), 'fbff00');
    assert.equal(hex(publicKey.user.id), '010203');
    assert.equal(publicKey.user.name, 'alice#idp.example.com');
    assert.equal(hex(publicKey.excludeCredentials![0]!.id), '0405');
    assert.deepEqual(publicKey.authenticatorSelection, { userVerification: 'preferred' });
  });

  it('request options: decodes challenge and allowed ids; an answer without a challenge is refused', () => {
    const { publicKey } = requestOptionsFromJSON({
      status: 'ok',
      errorMessage: '',
      challenge: 'AQID',
      rpId: 'idp.example.com',
      allowCredentials: [{ type: 'public-key', id: 'BAU' }],
    });
    assert.equal(hex(publicKey.challenge), '010203');
    assert.equal(hex(publicKey.allowCredentials![0]!.id), '0405');
    assert.throws(() => requestOptionsFromJSON({ status: 'ok' }), TypeError);
  });

  it('credential → the result body with the service field names (extensions, not clientExtensionResults)', () => {
    const credential = {
      id: 'AQID',
      rawId: bytes(1, 2, 3),
      type: 'public-key',
      response: { clientDataJSON: bytes(9), authenticatorData: bytes(8), signature: bytes(7), userHandle: null },
      getClientExtensionResults: () => ({ credProps: { rk: true } }),
    } as unknown as CredentialLike;
    assert.deepEqual(credentialToJSON(credential), {
      id: 'AQID',
      rawId: 'AQID',
      type: 'public-key',
      response: { clientDataJSON: 'CQ', authenticatorData: 'CA', signature: 'Bw' },
      extensions: { credProps: { rk: true } },
    });
  });

  it('explains browser exceptions and reports that Node.js is no place for passkeys', () => {
    assert.match(describeWebAuthnError({ name: 'InvalidStateError' }, 'create'), /already holds a passkey/);
    assert.match(describeWebAuthnError({ name: 'NotAllowedError' }, 'get'), /^Not signed in/);
    assert.equal(webAuthnAvailability().ok, false);
  });
});
