// COSE_Key maps from public KeyObjects, for the soft authenticator and the tests that build credentials. The
// service only reads COSE keys (src/webauthn/cose.ts), so the writing direction lives here.
import type { KeyObject } from 'node:crypto';
import { coseAlgorithm } from '../../src/webauthn/cose.js';
import { MlDsaPublicKey } from '../../src/webauthn/ml-dsa.js';

// COSE labels and values (RFC 9052 §7, RFC 9053 §7.1).
const KTY = 1;
const ALG = 3;
const KTY_OKP = 1;
const KTY_EC2 = 2;
const KTY_RSA = 3;
const KTY_AKP = 7;
const CURVE_IDS = { 'P-256': 1, 'P-384': 2, 'P-521': 3, Ed25519: 6 } as const;

/** The COSE_Key map of a public key for `alg`: EC2 (crv, x, y), OKP (crv, x), RSA (n, e) or AKP (pub). */
export function coseKeyMapFromKeyObject(alg: number, key: KeyObject | MlDsaPublicKey): Map<number, number | Buffer> {
  const algorithm = coseAlgorithm(alg);
  if (!algorithm) throw new Error(`unsupported COSE algorithm ${alg}`);
  if (key instanceof MlDsaPublicKey)
    return new Map<number, number | Buffer>([
      [KTY, KTY_AKP],
      [ALG, alg],
      [-1, key.raw],
    ]);
  const jwk = key.export({ format: 'jwk' });
  const bytes = (text: string | undefined) => Buffer.from(text ?? '', 'base64url');
  switch (algorithm.family) {
    case 'ecdsa':
      return new Map<number, number | Buffer>([
        [KTY, KTY_EC2],
        [ALG, alg],
        [-1, CURVE_IDS[algorithm.crv]],
        [-2, bytes(jwk.x)],
        [-3, bytes(jwk.y)],
      ]);
    case 'eddsa':
      return new Map<number, number | Buffer>([
        [KTY, KTY_OKP],
        [ALG, alg],
        [-1, CURVE_IDS.Ed25519],
        [-2, bytes(jwk.x)],
      ]);
    case 'ml-dsa':
      return new Map<number, number | Buffer>([
        [KTY, KTY_AKP],
        [ALG, alg],
        [-1, Buffer.from(String((jwk as { pub?: string }).pub ?? ''), 'base64url')],
      ]);
    case 'rsa-pss':
    case 'rsa-pkcs1':
      return new Map<number, number | Buffer>([
        [KTY, KTY_RSA],
        [ALG, alg],
        [-1, bytes(jwk.n)],
        [-2, bytes(jwk.e)],
      ]);
  }
}
