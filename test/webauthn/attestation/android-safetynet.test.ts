// "android-safetynet" (WebAuthn L3 §8.5): every requirement with a negative test (FIDO Resp-B F-1..F-7).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { androidSafetynet } from '../../../src/webauthn/attestation/android-safetynet.js';
import { ANDROID_SAFETYNET_ROOT_CERTIFICATES } from '../../../src/webauthn/roots/index.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import { createAttestationCa, generateKey } from '../../support/pki.js';
import { androidSafetynet as soft } from '../../support/statements/android-safetynet.js';
import { rejects, run } from './harness.js';

const NOW = new Date('2030-06-01T12:00:00Z');

describe('android-safetynet attestation (§8.5)', () => {
  const ca = createAttestationCa('Soft Google Trust Services', 'rsa2048');
  const key = generateKey('rsa2048');
  const base = { ca, key, timestampMs: NOW.getTime() - 5_000 };

  it('accepts a valid response as basic attestation chained to the signing CA', () => {
    const outcome = run(androidSafetynet, soft, { extra: base, now: NOW });
    assert.equal(outcome.type, 'basic');
    assert.equal(outcome.formatRoots, ANDROID_SAFETYNET_ROOT_CERTIFICATES);
    const decision = createTrustEvaluator({ anchors: [ca.root.cert], requireTrusted: true }).evaluate({
      fmt: 'android-safetynet',
      aaguid: 'b93fd961-f2e6-462f-b122-82002247de78',
      outcome,
      now: NOW,
    });
    assert.equal(decision.trusted, true);
  });

  it('step 1: ver is a non-empty string (F-1)', () => {
    rejects('ANDROID_SAFETYNET_ATTESTATION_VERSION_EMPTY', androidSafetynet, soft, {
      extra: { ...base, ver: '' },
      now: NOW,
    });
    rejects('ANDROID_SAFETYNET_ATTESTATION_VERSION_EMPTY', androidSafetynet, soft, {
      extra: { ...base, ver: 3 },
      now: NOW,
    });
  });

  it('step 1: response is a JWS (F-2)', () => {
    rejects('ANDROID_SAFETYNET_ATTESTATION_DATA_INVALID', androidSafetynet, soft, {
      extra: { ...base, response: Buffer.alloc(0) },
      now: NOW,
    });
    rejects('ANDROID_SAFETYNET_ATTESTATION_DATA_INVALID', androidSafetynet, soft, {
      extra: { ...base, response: Buffer.from('not.a jws') },
      now: NOW,
    });
  });

  it('step 2: nonce is base64(SHA-256(authenticatorData ‖ clientDataHash)) (F-3)', () => {
    rejects('ANDROID_SAFETYNET_ATTESTATION_NONCE_NOT_MATCHED', androidSafetynet, soft, {
      extra: { ...base, nonce: Buffer.alloc(32).toString('base64') },
      now: NOW,
    });
  });

  it('step 3: the JWS carries its certificate chain (F-4)', () => {
    rejects('ANDROID_SAFETYNET_ATTESTATION_CERTIFICATE_NOT_INCLUDED', androidSafetynet, soft, {
      extra: { ...base, omitX5c: true },
      now: NOW,
    });
  });

  it('step 3: the signing certificate is issued to attest.android.com', () => {
    rejects('ANDROID_SAFETYNET_ATTESTATION_HOSTNAME_NOT_MATCHED', androidSafetynet, soft, {
      extra: { ...base, hostname: 'attest.example.com' },
      now: NOW,
    });
  });

  it('step 3: the JWS signature verifies with that certificate, with a supported alg', () => {
    rejects('ATTESTATION_SIGNATURE_VERIFICATION_FAIL', androidSafetynet, soft, {
      extra: { ...base, signWithOtherKey: true },
      now: NOW,
    });
    rejects('ANDROID_SAFETYNET_ATTESTATION_NOT_SUPPORTED_SIGNATURE_ALGORITHM', androidSafetynet, soft, {
      extra: { ...base, alg: 'HS256' },
      now: NOW,
    });
  });

  it('step 4: ctsProfileMatch is true (F-5)', () => {
    rejects('ANDROID_SAFETYNET_ATTESTATION_CTS_PROFILE_MATCH_NOT_SET', androidSafetynet, soft, {
      extra: { ...base, ctsProfileMatch: false },
      now: NOW,
    });
    rejects('ANDROID_SAFETYNET_ATTESTATION_CTS_PROFILE_MATCH_NOT_SET', androidSafetynet, soft, {
      extra: { ...base, ctsProfileMatch: 'true' },
      now: NOW,
    });
  });

  it('timestampMs is not in the future (F-6) and not older than a minute (F-7), by the ceremony clock', () => {
    rejects('ANDROID_SAFETYNET_ATTESTATION_TIMESTAMP_INVALID', androidSafetynet, soft, {
      extra: { ...base, timestampMs: NOW.getTime() + 1_000 },
      now: NOW,
    });
    rejects('ANDROID_SAFETYNET_ATTESTATION_TIMESTAMP_INVALID', androidSafetynet, soft, {
      extra: { ...base, timestampMs: NOW.getTime() - 61_000 },
      now: NOW,
    });
    assert.equal(
      run(androidSafetynet, soft, { extra: { ...base, timestampMs: NOW.getTime() - 60_000 }, now: NOW }).type,
      'basic',
    );
  });
});
