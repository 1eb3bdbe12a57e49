// An independent check of the soft authenticator: responses it makes are accepted by another verifier
// (@simplewebauthn/server, a dev dependency), and its damaged responses are refused by both.
// So our own verifier is not only tested against our own authenticator's reading of the specification.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { AuthenticationCredentialJSON, RegistrationCredentialJSON } from '../../src/webauthn/types.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { ORIGIN, RP_ID, creationOptions, register, requestOptions } from './helpers.js';

function asRegistrationResponse(json: RegistrationCredentialJSON) {
  return {
    id: json.id,
    rawId: json.rawId,
    type: json.type,
    response: {
      clientDataJSON: json.response.clientDataJSON,
      attestationObject: json.response.attestationObject,
      transports: [],
    },
    clientExtensionResults: {},
  };
}

function asAuthenticationResponse(json: AuthenticationCredentialJSON) {
  return {
    id: json.id,
    rawId: json.rawId,
    type: json.type,
    response: { ...json.response, userHandle: json.response.userHandle ?? undefined },
    clientExtensionResults: {},
  };
}

// One algorithm per key type and padding that both implementations support (SimpleWebAuthn has no
// ES512 / P-521); RS384/RS512 differ from RS256 only in the hash, and RSA keys are slow to generate.
const CASES: readonly (readonly [number, string])[] = [
  [-7, 'none'],
  [-7, 'packed'],
  [-35, 'packed'],
  [-8, 'packed'],
  [-37, 'packed'],
  [-257, 'packed'],
  [-259, 'none'],
];

describe('interoperability with @simplewebauthn/server', () => {
  for (const [alg, fmt] of CASES) {
    it(`alg ${alg}, fmt ${fmt}: both verifiers accept the registration and the assertion`, async () => {
      const auth = new SoftAuthenticator({ fmt, counter: { start: 7 } });
      const registered = register(auth, { alg }, creationOptions([alg]));
      const reg = await verifyRegistrationResponse({
        response: asRegistrationResponse(registered.json),
        expectedChallenge: registered.options.challenge,
        expectedOrigin: ORIGIN,
        expectedRPID: RP_ID,
        requireUserVerification: true,
        supportedAlgorithmIDs: [alg],
      });
      assert.equal(reg.verified, true);
      const info = reg.registrationInfo!;
      assert.deepEqual(Buffer.from(info.credential.publicKey), registered.verified.publicKey.cose);

      const options = requestOptions([registered.json.id]);
      const assertion = auth.authenticate(options);
      const result = await verifyAuthenticationResponse({
        response: asAuthenticationResponse(assertion),
        expectedChallenge: options.challenge,
        expectedOrigin: ORIGIN,
        expectedRPID: RP_ID,
        requireUserVerification: true,
        credential: { id: info.credential.id, publicKey: info.credential.publicKey, counter: info.credential.counter },
      });
      assert.equal(result.verified, true);
      assert.equal(result.authenticationInfo.newCounter, 8);
    });
  }

  it('a flipped assertion signature is refused by the other verifier too', async () => {
    const auth = new SoftAuthenticator();
    const registered = register(auth);
    const options = requestOptions([registered.json.id]);
    const assertion = auth.authenticate(options, { breaks: 'flipSignature' });
    const outcome = await verifyAuthenticationResponse({
      response: asAuthenticationResponse(assertion),
      expectedChallenge: options.challenge,
      expectedOrigin: ORIGIN,
      expectedRPID: RP_ID,
      credential: { id: registered.json.id, publicKey: new Uint8Array(registered.verified.publicKey.cose), counter: 0 },
    }).then(
      (r) => r.verified,
      () => false,
    );
    assert.equal(outcome, false);
  });
});
