// Signing with a COSE algorithm of the table (the counterpart of verifySignature, for test authenticators).
import { constants, sign, type KeyObject } from 'node:crypto';
import { coseAlgorithm } from '../../../src/webauthn/cose.js';
import { MlDsaPrivateKey, type SigningKey } from '../ml-dsa-keys.js';

const HASH_BYTES = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 } as const;

export function signWith(alg: number, privateKey: SigningKey, data: Uint8Array): Buffer {
  const entry = coseAlgorithm(alg);
  if (!entry) throw new Error(`unsupported COSE algorithm ${alg}`);
  if (privateKey instanceof MlDsaPrivateKey) {
    if (entry.family !== 'ml-dsa' || entry.level !== privateKey.level)
      throw new Error(`an ML-DSA-${privateKey.level} key cannot sign ${entry.name}`);
    return privateKey.sign(data);
  }
  switch (entry.family) {
    case 'ml-dsa':
      return sign(null, data, privateKey);
    case 'ecdsa':
      return sign(entry.hash, data, { key: privateKey, dsaEncoding: 'der' });
    case 'eddsa':
      return sign(null, data, privateKey);
    case 'rsa-pss':
      return sign(entry.hash, data, {
        key: privateKey,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: HASH_BYTES[entry.hash],
      });
    case 'rsa-pkcs1':
      return sign(entry.hash, data, { key: privateKey, padding: constants.RSA_PKCS1_PADDING });
  }
}

/** The COSE alg a key signs with by default (P-256 → ES256, P-384 → ES384, P-521 → ES512, Ed25519 → EdDSA, RSA → RS256). */
export function defaultAlgForKey(key: KeyObject): number {
  if (key.asymmetricKeyType === 'ed25519') return -8;
  if (key.asymmetricKeyType === 'rsa') return -257;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve === 'secp384r1') return -35;
  if (curve === 'secp521r1') return -36;
  return -7;
}
