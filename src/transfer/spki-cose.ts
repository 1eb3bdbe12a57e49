// A public key stored as an X.509 SubjectPublicKeyInfo (LINE fido2-server's USER_KEY.public_key) turned into the
// COSE_Key the service stores, for the COSE algorithm the source names beside it: EC2 for ECDSA (the curve must
// be the algorithm's), OKP for EdDSA (Ed25519), RSA for RSASSA-PKCS1-v1_5 and PSS. The algorithm table is
// webauthn/cose.ts's; the import then checks the COSE key as a registration would (key-check.ts).
import { createPublicKey, type KeyObject } from 'node:crypto';
import { encodeCbor } from '../webauthn/cbor-encode.js';
import { coseAlgorithm, EC_CURVES } from '../webauthn/cose.js';
import type { RefusalReason } from './record.js';

export type SpkiConversion = { readonly cose: Buffer } | { readonly reason: RefusalReason; readonly message: string };

// COSE labels and values (RFC 9052 §7, RFC 9053 §7).
const KTY = 1;
const ALG = 3;
const KTY_OKP = 1;
const KTY_EC2 = 2;
const KTY_RSA = 3;
const CRV_ED25519 = 6;

export function coseFromSpki(spki: Uint8Array, alg: number): SpkiConversion {
  const entry = coseAlgorithm(alg);
  if (entry === undefined)
    return { reason: 'ALGORITHM_NOT_ALLOWED', message: `COSE algorithm ${alg} is not one the service knows` };
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  } catch {
    return { reason: 'INVALID_PUBLIC_KEY', message: 'the public key is not an X.509 SubjectPublicKeyInfo' };
  }
  const type = key.asymmetricKeyType;
  const jwk = key.export({ format: 'jwk' });
  const bytes = (text: string | undefined) => Buffer.from(text ?? '', 'base64url');
  const what =
    type === 'ec' ? `EC ${jwk.crv}` : type === 'ed25519' ? 'Ed25519' : type?.startsWith('rsa') ? 'RSA' : String(type);
  const mismatch = (): SpkiConversion => ({
    reason: 'INVALID_PUBLIC_KEY',
    message: `the public key is ${what}, not a key of ${entry.name} (${alg})`,
  });
  switch (entry.family) {
    case 'ecdsa':
      if (type !== 'ec' || jwk.crv !== entry.crv) return mismatch();
      return {
        cose: encodeCbor(
          new Map<number, number | Buffer>([
            [KTY, KTY_EC2],
            [ALG, alg],
            [-1, EC_CURVES[entry.crv].crv],
            [-2, bytes(jwk.x)],
            [-3, bytes(jwk.y)],
          ]),
        ),
      };
    case 'eddsa':
      if (type !== 'ed25519') return mismatch();
      return {
        cose: encodeCbor(
          new Map<number, number | Buffer>([
            [KTY, KTY_OKP],
            [ALG, alg],
            [-1, CRV_ED25519],
            [-2, bytes(jwk.x)],
          ]),
        ),
      };
    case 'rsa-pss':
    case 'rsa-pkcs1':
      if (type !== 'rsa' && type !== 'rsa-pss') return mismatch();
      return {
        cose: encodeCbor(
          new Map<number, number | Buffer>([
            [KTY, KTY_RSA],
            [ALG, alg],
            [-1, bytes(jwk.n)],
            [-2, bytes(jwk.e)],
          ]),
        ),
      };
    case 'ml-dsa':
      return { reason: 'ALGORITHM_NOT_ALLOWED', message: `${entry.name} keys are not read from an X.509 key here` };
  }
}
