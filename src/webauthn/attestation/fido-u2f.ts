// "fido-u2f" attestation (WebAuthn L3 §8.6): a U2F device's registration signature, made by its single
// P-256 attestation certificate over 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ 0x04 ‖ x ‖ y.

import { FidoError } from '../../errors/catalogue.js';
import { certificatePublicKey } from '../x509.js';
import { verifySignature } from '../cose.js';
import { readSig, readX5c } from './fields.js';
import type { AttestationFormat } from './types.js';

const ES256 = -7;
const COSE_KTY_EC2 = 2;
const COSE_CRV_P256 = 1;

function notEcc(detail: string): FidoError {
  return new FidoError('U2F_ATTESTATION_KEY_NOT_ECC_TYPE', `fido-u2f: ${detail}`);
}

export const fidoU2f: AttestationFormat = {
  fmt: 'fido-u2f',
  verify({ attStmt, authData, credentialKey, clientDataHash }) {
    // Step 1: attStmt holds x5c and sig.
    const x5c = readX5c('fido-u2f', attStmt);
    const sig = readSig('fido-u2f', attStmt);
    const attested = authData.attestedCredentialData;
    if (!attested) throw new FidoError('CREDENTIAL_NOT_INCLUDED', 'fido-u2f: no attested credential data');
    // U2F devices have no AAGUID: the field must be all zero.
    if (!attested.aaguid.equals(Buffer.alloc(16)))
      throw new FidoError('U2F_ATTESTATION_AAGUID_INVALID', 'fido-u2f: the AAGUID must be all zero');

    // Step 2: exactly one certificate, whose key is EC P-256.
    if (x5c.length !== 1)
      throw new FidoError('INVALID_ATTESTATION_FORMAT', 'fido-u2f: x5c must hold exactly one certificate');
    const certKey = certificatePublicKey(x5c[0]!, 'fido-u2f: x5c[0]');
    if (certKey.asymmetricKeyType !== 'ec' || certKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw notEcc('the attestation certificate key must be EC P-256');
    }

    // Steps 3-4: the credential key as an uncompressed P-256 point.
    const map = credentialKey.coseMap;
    const x = map.get(-2);
    const y = map.get(-3);
    if (
      credentialKey.alg !== ES256 ||
      map.get(1) !== COSE_KTY_EC2 ||
      map.get(-1) !== COSE_CRV_P256 ||
      !Buffer.isBuffer(x) ||
      !Buffer.isBuffer(y) ||
      x.length !== 32 ||
      y.length !== 32
    ) {
      throw notEcc('the credential key must be an ES256 P-256 key');
    }

    // Step 5: verificationData.
    const verificationData = Buffer.concat([
      Buffer.from([0x00]),
      authData.rpIdHash,
      clientDataHash,
      attested.credentialId,
      Buffer.from([0x04]),
      x,
      y,
    ]);

    // Step 6: ECDSA P-256 / SHA-256 with the certificate's key.
    if (!verifySignature(ES256, certKey, verificationData, sig)) {
      throw new FidoError(
        'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
        'fido-u2f: sig does not verify with the attestation certificate',
      );
    }

    // Step 7: Basic or AttCA cannot be told apart here; the trust evaluator decides trust from x5c.
    return { type: 'basic', trustPath: x5c };
  },
};
