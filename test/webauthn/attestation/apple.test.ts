// "apple" anonymous attestation (WebAuthn L3 §8.8): every requirement with a negative test.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apple } from '../../../src/webauthn/attestation/apple.js';
import { APPLE_ROOT_CERTIFICATES } from '../../../src/webauthn/roots/index.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import { createAttestationCa, generateKey } from '../../support/pki.js';
import { apple as soft } from '../../support/statements/apple.js';
import { rejects, run } from './harness.js';

describe('apple anonymous attestation (§8.8)', () => {
  const ca = createAttestationCa('Soft Apple WebAuthn', 'p384');
  const base = { ca };

  it("accepts a valid statement as AnonCA with Apple's WebAuthn root as format root", () => {
    const outcome = run(apple, soft, { extra: base });
    assert.equal(outcome.type, 'anonca');
    assert.equal(outcome.formatRoots, APPLE_ROOT_CERTIFICATES);
    assert.match(APPLE_ROOT_CERTIFICATES[0]!.subject, /Apple WebAuthn Root CA/);
    const decision = createTrustEvaluator({ anchors: [ca.root.cert], requireTrusted: true }).evaluate({
      fmt: 'apple',
      aaguid: 'f24a8e70-d0d3-f82c-2937-32523cc4de5a',
      outcome,
      now: new Date(),
    });
    assert.equal(decision.trusted, true);
  });

  it('steps 2-4: the nonce extension holds SHA-256(authenticatorData ‖ clientDataHash)', () => {
    rejects('APPLE_ANONYMOUS_ATTESTATION_NONCE_NOT_MATCHED', apple, soft, {
      extra: { ...base, nonce: Buffer.alloc(32, 3) },
    });
  });

  it('the nonce extension is present and well formed', () => {
    rejects('APPLE_ANONYMOUS_ATTESTATION_DATA_NOT_FOUND', apple, soft, { extra: { ...base, omitExtension: true } });
    rejects('APPLE_ANONYMOUS_ATTESTATION_DATA_DECODING_FAIL', apple, soft, {
      extra: { ...base, extensionValue: Buffer.from('3003020101', 'hex') },
    });
    rejects('APPLE_ANONYMOUS_ATTESTATION_DATA_DECODING_FAIL', apple, soft, {
      extra: { ...base, extensionValue: Buffer.from(`0420${'00'.repeat(32)}`, 'hex') },
    });
  });

  it('step 5: the credential certificate certifies the credential public key', () => {
    rejects('APPLE_ANONYMOUS_ATTESTATION_PUBLIC_KEY_NOT_MATCHED', apple, soft, {
      extra: { ...base, certifiedKey: generateKey('p256') },
    });
  });

  it('x5c must be present', () => {
    rejects('INVALID_ATTESTATION_FORMAT', apple, soft, { extra: base, edit: (s) => s.delete('x5c') });
  });

  it('x5c in the wrong order fails (x5c[0] must be the credential certificate)', () => {
    rejects('APPLE_ANONYMOUS_ATTESTATION_DATA_NOT_FOUND', apple, soft, {
      extra: base,
      edit: (s) => s.set('x5c', [...(s.get('x5c') as Buffer[])].reverse()),
    });
  });
});
