// Is a record's public key a key this application can verify with? It must decode as a COSE_Key and be a valid
// key of its algorithm (webauthn/cose-key.ts makes the same checks a registration makes: a point on its
// curve, a sane RSA modulus and exponent, an ML-DSA key of its level's size), and that algorithm must be
// among the application's `algorithms`. The algorithm table is webauthn/cose.ts's, the only one.
import { FidoError } from '../errors/catalogue.js';
import { coseAlgorithm } from '../webauthn/cose.js';
import { importCosePublicKey } from '../webauthn/cose-key.js';
import type { RefusalReason } from './record.js';

export type KeyCheck = { readonly algorithm: number } | { readonly reason: RefusalReason; readonly message: string };

export function checkPublicKey(cose: Uint8Array, algorithms: readonly number[]): KeyCheck {
  let alg: number;
  try {
    alg = importCosePublicKey(cose).alg;
  } catch (error) {
    if (!(error instanceof FidoError)) throw error;
    if (error.code === 'INVALID_COSE_ALGORITHM')
      return { reason: 'ALGORITHM_NOT_ALLOWED', message: error.detail ?? 'the COSE algorithm is not supported' };
    return { reason: 'INVALID_PUBLIC_KEY', message: error.detail ?? 'the public key is not valid' };
  }
  if (!algorithms.includes(alg)) {
    const name = coseAlgorithm(alg)?.name ?? String(alg);
    return {
      reason: 'ALGORITHM_NOT_ALLOWED',
      message: `${name} (${alg}) is not among the application's algorithms (${algorithms.join(', ')})`,
    };
  }
  return { algorithm: alg };
}
