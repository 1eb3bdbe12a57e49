// "tpm" (WebAuthn L3 §8.3): every requirement, and a negative test that breaks exactly that one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tpm } from '../../../src/webauthn/attestation/tpm.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import { createAttestationCa, generateKey } from '../../support/pki.js';
import { tpm as soft } from '../../support/statements/tpm.js';
import { rejects, run } from './harness.js';

describe('tpm attestation (§8.3)', () => {
  const ca = createAttestationCa('Soft TPM Vendor', 'rsa2048');
  const aikKey = generateKey('rsa2048');
  const base = { ca, aikKey };

  it('accepts an RSA credential (RS256) as AttCA with the AIK chain, which trusts the vendor root', () => {
    const outcome = run(tpm, soft, { alg: -257, extra: base });
    assert.equal(outcome.type, 'attca');
    assert.equal(outcome.trustPath.length, 2);
    const decision = createTrustEvaluator({ anchors: [ca.root.cert], requireTrusted: true }).evaluate({
      fmt: 'tpm',
      aaguid: '01020304-0506-4708-890a-0b0c0d0e0f10',
      outcome,
      now: new Date(),
    });
    assert.equal(decision.trusted, true);
  });

  it('accepts an EC P-256 credential, an RS1 signature (old TPMs) and a SHA-1 pubArea.nameAlg with its SHA-1 name', () => {
    assert.equal(run(tpm, soft, { alg: -7, extra: base }).type, 'attca');
    assert.equal(run(tpm, soft, { alg: -257, extra: { ...base, alg: -65535 } }).type, 'attca');
    assert.equal(run(tpm, soft, { alg: -257, extra: { ...base, pubAreaNameAlg: 0x0004 } }).type, 'attca');
    assert.equal(run(tpm, soft, { alg: -257, extra: { ...base, pubAreaNameAlg: 0x000c } }).type, 'attca');
  });

  it('step 5: the attested name is hashed with pubArea.nameAlg, not another algorithm (deviation from Resp-9 P-3)', () => {
    // A SHA-1 name of a pubArea whose nameAlg is SHA-256, and the reverse: both hash the right bytes,
    // but neither is pubArea's name (§8.3), so a TPM did not certify this object under that name.
    rejects('TPM_ATTESTATION_CERTINFO_PUBAREA_HASH_NOT_MATCHED', tpm, soft, {
      alg: -257,
      extra: { ...base, attestedNameAlg: 0x0004 },
    });
    rejects('TPM_ATTESTATION_CERTINFO_PUBAREA_HASH_NOT_MATCHED', tpm, soft, {
      alg: -257,
      extra: { ...base, pubAreaNameAlg: 0x0004, attestedNameAlg: 0x000b },
    });
  });

  it('pubArea.nameAlg must be a known hash algorithm (TPM_ATTESTATION_INVALID_HASH_ALGORITHM)', () => {
    rejects('TPM_ATTESTATION_INVALID_HASH_ALGORITHM', tpm, soft, {
      alg: -257,
      extra: { ...base, pubAreaNameAlg: 0x0099, attestedNameAlg: 0x000b },
    });
  });

  it('accepts an AIK certificate whose AAGUID extension matches authenticator data', () => {
    assert.equal(run(tpm, soft, { alg: -257, extra: { ...base, aikAaguid: true } }).type, 'attca');
  });

  it('step 2: ver must be "2.0" (TPM_ATTESTATION_DATA_INVALID)', () => {
    rejects('TPM_ATTESTATION_DATA_INVALID', tpm, soft, { alg: -257, extra: { ...base, ver: '1.2' } });
  });

  it('attStmt shape: certInfo, pubArea, x5c, sig present (INVALID_ATTESTATION_FORMAT)', () => {
    for (const field of ['certInfo', 'pubArea', 'x5c', 'sig', 'alg']) {
      rejects('INVALID_ATTESTATION_FORMAT', tpm, soft, { alg: -257, extra: base, edit: (s) => s.delete(field) });
    }
  });

  it('malformed pubArea or certInfo (TPM_ATTESTATION_DATA_INVALID)', () => {
    rejects('TPM_ATTESTATION_DATA_INVALID', tpm, soft, {
      alg: -257,
      extra: { ...base, pubAreaTrailing: Buffer.from([0]) },
    });
    rejects('TPM_ATTESTATION_DATA_INVALID', tpm, soft, {
      alg: -257,
      extra: base,
      edit: (s) => s.set('certInfo', (s.get('certInfo') as Buffer).subarray(0, 20)),
    });
  });

  it('step 3: pubArea is the credential public key (…_PUBAREA_UNIQUE_NOT_MATCH_TO_CREDENTIAL_PUBKEY)', () => {
    rejects('TPM_ATTESTATION_CERTINFO_PUBAREA_UNIQUE_NOT_MATCH_TO_CREDENTIAL_PUBKEY', tpm, soft, {
      alg: -257,
      extra: { ...base, pubAreaKey: generateKey('rsa2048').publicKey },
    });
    rejects('TPM_ATTESTATION_CERTINFO_PUBAREA_UNIQUE_NOT_MATCH_TO_CREDENTIAL_PUBKEY', tpm, soft, {
      alg: -7,
      extra: { ...base, pubAreaKey: generateKey('p256').publicKey },
    });
    rejects('TPM_ATTESTATION_CERTINFO_PUBAREA_UNIQUE_NOT_MATCH_TO_CREDENTIAL_PUBKEY', tpm, soft, {
      alg: -7,
      extra: { ...base, pubAreaKey: generateKey('p384').publicKey },
    });
  });

  it('step 5: certInfo.magic is TPM_GENERATED_VALUE', () => {
    rejects('TPM_ATTESTATION_CERTINFO_MAGIC_NOT_MATCHED', tpm, soft, {
      alg: -257,
      extra: { ...base, magic: 0xff544348 },
    });
  });

  it('step 5: certInfo.type is TPM_ST_ATTEST_CERTIFY', () => {
    rejects('TPM_ATTESTATION_CERTINFO_TYPE_NOT_MATCHED', tpm, soft, { alg: -257, extra: { ...base, type: 0x8018 } });
  });

  it('step 5: certInfo.extraData is the hash of authenticatorData ‖ clientDataHash', () => {
    rejects('TPM_ATTESTATION_CERTINFO_EXTRADATA_NOT_MATCHED', tpm, soft, {
      alg: -257,
      extra: { ...base, extraData: Buffer.alloc(32, 7) },
    });
  });

  it('step 5: certInfo.attested.name is the name of pubArea', () => {
    rejects('TPM_ATTESTATION_CERTINFO_PUBAREA_HASH_NOT_MATCHED', tpm, soft, {
      alg: -257,
      extra: { ...base, attestedName: Buffer.concat([Buffer.from([0, 0x0b]), Buffer.alloc(32, 1)]) },
    });
    rejects('TPM_ATTESTATION_INVALID_HASH_ALGORITHM', tpm, soft, {
      alg: -257,
      extra: { ...base, attestedName: Buffer.concat([Buffer.from([0, 0x99]), Buffer.alloc(32, 1)]) },
    });
  });

  it('step 6: sig over certInfo verifies with the AIK key', () => {
    rejects('ATTESTATION_SIGNATURE_VERIFICATION_FAIL', tpm, soft, {
      alg: -257,
      extra: { ...base, signWithOtherKey: true },
    });
  });

  it('step 6: alg is supported and matches the AIK key', () => {
    rejects('INVALID_COSE_ALGORITHM', tpm, soft, { alg: -257, extra: base, edit: (s) => s.set('alg', -9999) });
    rejects('TPM_ATTESTATION_ALGORITHM_NOT_MATCHED', tpm, soft, {
      alg: -257,
      extra: base,
      edit: (s) => s.set('alg', -7),
    });
  });

  it('§8.3.1: AIK certificate version 3', () => {
    rejects('TPM_ATTESTATION_CERTIFICATE_VERSION_INVALID', tpm, soft, {
      alg: -257,
      extra: { ...base, aikCertificate: { version: 1 } },
    });
  });

  it('§8.3.1: AIK certificate subject empty', () => {
    rejects('TPM_ATTESTATION_CERTIFICATE_SUBJECT_FIELD_INVALID', tpm, soft, {
      alg: -257,
      extra: { ...base, aikCertificate: { subject: { CN: 'AIK' } } },
    });
  });

  it('§8.3.1: subject alternative name with a registered TPM manufacturer, model and version', () => {
    const san = (attrs: { type: string; value: string }[]) => ({
      ...base,
      aikCertificate: { subjectAltName: { directoryNames: [attrs] } },
    });
    rejects('TPM_ATTESTATION_CERTIFICATE_SAN_INVALID', tpm, soft, {
      alg: -257,
      extra: { ...base, aikCertificate: { subjectAltName: undefined } },
    });
    rejects('TPM_ATTESTATION_CERTIFICATE_SAN_INVALID', tpm, soft, {
      alg: -257,
      extra: san([
        { type: '2.23.133.2.1', value: 'id:12345678' },
        { type: '2.23.133.2.2', value: 'm' },
        { type: '2.23.133.2.3', value: 'v' },
      ]),
    });
    rejects('TPM_ATTESTATION_CERTIFICATE_SAN_INVALID', tpm, soft, {
      alg: -257,
      extra: san([
        { type: '2.23.133.2.2', value: 'm' },
        { type: '2.23.133.2.3', value: 'v' },
      ]),
    });
    rejects('TPM_ATTESTATION_CERTIFICATE_SAN_INVALID', tpm, soft, {
      alg: -257,
      extra: san([
        { type: '2.23.133.2.1', value: 'id:FFFFF1D0' },
        { type: '2.23.133.2.3', value: 'v' },
      ]),
    });
    rejects('TPM_ATTESTATION_CERTIFICATE_SAN_INVALID', tpm, soft, {
      alg: -257,
      extra: san([
        { type: '2.23.133.2.1', value: 'id:FFFFF1D0' },
        { type: '2.23.133.2.2', value: 'm' },
      ]),
    });
    // A real vendor (Infineon) in separate RDNs is accepted.
    assert.equal(
      run(tpm, soft, {
        alg: -257,
        extra: san([
          { type: '2.23.133.2.1', value: 'id:49465800' },
          { type: '2.23.133.2.2', value: 'SLB9670' },
          { type: '2.23.133.2.3', value: 'id:0007003D' },
        ]),
      }).type,
      'attca',
    );
  });

  it('§8.3.1: extended key usage contains tcg-kp-AIKCertificate', () => {
    rejects('TPM_ATTESTATION_CERTIFICATE_EXTENDED_KEY_USAGE_INVALID', tpm, soft, {
      alg: -257,
      extra: { ...base, aikCertificate: { extendedKeyUsage: ['1.3.6.1.5.5.7.3.2'] } },
    });
    rejects('TPM_ATTESTATION_CERTIFICATE_EXTENDED_KEY_USAGE_INVALID', tpm, soft, {
      alg: -257,
      extra: { ...base, aikCertificate: { extendedKeyUsage: [] } },
    });
  });

  it('§8.3.1: basic constraints CA is false', () => {
    rejects('TPM_ATTESTATION_CERTIFICATE_BASIC_CONSTRAINTS_INVALID', tpm, soft, {
      alg: -257,
      extra: { ...base, aikCertificate: { basicConstraints: { ca: true } } },
    });
  });

  it('§8.3.1: an AAGUID extension must match authenticator data', () => {
    rejects('TPM_ATTESTATION_CERTIFICATE_INVALID', tpm, soft, {
      alg: -257,
      extra: { ...base, aikAaguid: Buffer.alloc(16, 9) },
    });
  });

  it('x5c in the wrong order fails (the AIK must be first)', () => {
    rejects('ATTESTATION_SIGNATURE_VERIFICATION_FAIL', tpm, soft, {
      alg: -257,
      extra: base,
      edit: (s) => s.set('x5c', [...(s.get('x5c') as Buffer[])].reverse()),
    });
  });
});
