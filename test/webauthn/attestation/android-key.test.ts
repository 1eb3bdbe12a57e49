// "android-key" (WebAuthn L3 §8.4): every requirement with a negative test, and both chain shapes
// (root sent by factory-provisioned devices, root absent on remotely provisioned ones).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FidoError } from '../../../src/errors/catalogue.js';
import { androidKey } from '../../../src/webauthn/attestation/android-key.js';
import { ANDROID_KEY_ROOT_CERTIFICATES } from '../../../src/webauthn/roots/index.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import { createAttestationCa, generateKey } from '../../support/pki.js';
import { androidKey as soft } from '../../support/statements/android-key.js';
import { rejects, run } from './harness.js';

const AAGUID = 'b93fd961-f2e6-462f-b122-82002247de78';

describe('android-key attestation (§8.4)', () => {
  const ca = createAttestationCa('Soft Android Keystore');
  const base = { ca };

  it("accepts a valid statement as basic attestation with Google's roots as format roots", () => {
    const outcome = run(androidKey, soft, { extra: base });
    assert.equal(outcome.type, 'basic');
    assert.equal(outcome.trustPath.length, 2);
    assert.equal(outcome.formatRoots, ANDROID_KEY_ROOT_CERTIFICATES);
    assert.ok(
      ANDROID_KEY_ROOT_CERTIFICATES.some((c) => c.subject.includes('Key Attestation CA1')),
      'the RKP root is bundled',
    );
  });

  it('chains whether or not the device sends the root (RKP devices do not)', () => {
    const evaluator = createTrustEvaluator({ anchors: [ca.root.cert], requireTrusted: true });
    for (const sendRoot of [false, true]) {
      const outcome = run(androidKey, soft, { extra: { ...base, sendRoot } });
      assert.equal(outcome.trustPath.length, sendRoot ? 3 : 2);
      assert.equal(evaluator.evaluate({ fmt: 'android-key', aaguid: AAGUID, outcome, now: new Date() }).trusted, true);
    }
  });

  it('an unknown root is untrusted (default policy records it, requireTrusted refuses)', () => {
    const outcome = run(androidKey, soft, { extra: base });
    assert.equal(
      createTrustEvaluator({ anchors: [], requireTrusted: false }).evaluate({
        fmt: 'android-key',
        aaguid: AAGUID,
        outcome,
        now: new Date(),
      }).trusted,
      false,
    );
    assert.throws(
      () =>
        createTrustEvaluator({ anchors: [], requireTrusted: true }).evaluate({
          fmt: 'android-key',
          aaguid: AAGUID,
          outcome,
          now: new Date(),
        }),
      (e: unknown) => e instanceof FidoError && e.code === 'ATTESTATION_NOT_TRUSTED',
    );
  });

  it('accepts other credential algorithms (ES384, RS256, EdDSA)', () => {
    for (const alg of [-35, -257, -8]) assert.equal(run(androidKey, soft, { alg, extra: base }).type, 'basic');
  });

  it('step 2: sig verifies with the key of x5c[0]', () => {
    rejects('ATTESTATION_SIGNATURE_VERIFICATION_FAIL', androidKey, soft, {
      extra: base,
      edit: (s) => {
        const sig = s.get('sig') as Buffer;
        sig[sig.length - 5]! ^= 1;
      },
    });
  });

  it('alg is supported and matches the certificate key', () => {
    rejects('INVALID_COSE_ALGORITHM', androidKey, soft, { extra: base, edit: (s) => s.set('alg', -9999) });
    rejects('ANDROID_KEY_ATTESTATION_ALGORITHM_NOT_MATCHED', androidKey, soft, {
      extra: base,
      edit: (s) => s.set('alg', -257),
    });
  });

  it('step 3: x5c[0] certifies the credential public key', () => {
    rejects('ANDROID_KEY_ATTESTATION_PUBLIC_KEY_NOT_MATCHED', androidKey, soft, {
      extra: { ...base, certifiedKey: generateKey('p256') },
    });
  });

  it('step 4: attestationChallenge is the clientDataHash', () => {
    rejects('ANDROID_KEY_ATTESTATION_ATTESTATION_CHALLENGE_NOT_MATCH_TO_CLIENT_DATA_HASH', androidKey, soft, {
      extra: { ...base, challenge: Buffer.alloc(32, 1) },
    });
  });

  it('step 4: allApplications is in neither list', () => {
    rejects('ANDROID_KEY_ATTESTATION_ATTESTATION_ALL_APPLICATION_SET', androidKey, soft, {
      extra: { ...base, allApplications: 'tee' },
    });
    rejects('ANDROID_KEY_ATTESTATION_ATTESTATION_ALL_APPLICATION_SET', androidKey, soft, {
      extra: { ...base, allApplications: 'software' },
    });
  });

  it('step 4: origin is KM_ORIGIN_GENERATED (software-enforced accepted by the default policy)', () => {
    rejects('ANDROID_KEY_ATTESTATION_ORIGIN_NOT_GENERATED', androidKey, soft, { extra: { ...base, origin: 2 } });
    assert.equal(run(androidKey, soft, { extra: { ...base, originIn: 'software' } }).type, 'basic');
  });

  it('step 4: purpose is exactly KM_PURPOSE_SIGN', () => {
    rejects('ANDROID_KEY_ATTESTATION_PURPOSE_NOT_SIGN', androidKey, soft, { extra: { ...base, purpose: [2, 3] } });
    rejects('ANDROID_KEY_ATTESTATION_PURPOSE_NOT_SIGN', androidKey, soft, { extra: { ...base, purpose: [0] } });
    rejects('ANDROID_KEY_ATTESTATION_PURPOSE_NOT_SIGN', androidKey, soft, { extra: { ...base, purpose: [] } });
  });

  it('the key description extension is present and well formed', () => {
    rejects('ANDROID_KEY_ATTESTATION_DATA_NOT_FOUND', androidKey, soft, { extra: { ...base, omitExtension: true } });
    rejects('ANDROID_KEY_ATTESTATION_DATA_DECODING_FAIL', androidKey, soft, {
      extra: { ...base, extensionValue: Buffer.from('300302010a', 'hex') },
    });
    rejects('ANDROID_KEY_ATTESTATION_DATA_DECODING_FAIL', androidKey, soft, {
      extra: { ...base, extensionValue: Buffer.from('3080', 'hex') },
    });
  });

  it('x5c in the wrong order fails', () => {
    rejects('ANDROID_KEY_ATTESTATION_ALGORITHM_NOT_MATCHED', androidKey, soft, {
      alg: -7,
      extra: { ...base, ca: createAttestationCa('RSA CA', 'rsa2048') },
      edit: (s) => s.set('x5c', [...(s.get('x5c') as Buffer[])].reverse()),
    });
    rejects('ATTESTATION_SIGNATURE_VERIFICATION_FAIL', androidKey, soft, {
      extra: base,
      edit: (s) => s.set('x5c', [...(s.get('x5c') as Buffer[])].reverse()),
    });
  });
});
