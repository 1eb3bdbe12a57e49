// ML-DSA (FIPS 204) signature checks for the post-quantum COSE algorithms of RFC 9964, with two verifiers
// that give the same answers: node:crypto where the runtime has ML-DSA (Node.js 24.7 and later, OpenSSL
// 3.5), and @noble/post-quantum (pure JavaScript) where it does not. This is the one file that imports it.

import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';

export type MlDsaLevel = 44 | 65 | 87;

/** Sizes of FIPS 204 §4 Table 2: public key and signature bytes per parameter set. */
export const ML_DSA_SIZES: Record<MlDsaLevel, { readonly publicKey: number; readonly signature: number }> = {
  44: { publicKey: 1312, signature: 2420 },
  65: { publicKey: 1952, signature: 3309 },
  87: { publicKey: 2592, signature: 4627 },
};

/**
 * An ML-DSA public key (the `pub` of an AKP COSE key, RFC 9964), of the right size for its level. The same
 * value on every runtime; a verifier that needs an imported form keeps it here, made at the first check.
 */
export class MlDsaPublicKey {
  #native: KeyObject | undefined;

  constructor(
    readonly level: MlDsaLevel,
    readonly raw: Buffer,
  ) {}

  /** The node:crypto form (imported once; only on a runtime that has ML-DSA). */
  nativeKey(): KeyObject {
    this.#native ??= createPublicKey({
      key: { kty: 'AKP', alg: `ML-DSA-${this.level}`, pub: this.raw.toString('base64url') },
      format: 'jwk',
    });
    return this.#native;
  }
}

/** Checks an ML-DSA signature (pure ML-DSA, empty context, as WebAuthn signs). Never throws. */
export interface MlDsaVerifier {
  readonly name: 'node:crypto' | '@noble/post-quantum';
  verify(key: MlDsaPublicKey, data: Uint8Array, signature: Uint8Array): boolean;
}

/** Does this runtime's node:crypto have ML-DSA? (Node.js 24.7+ built with OpenSSL 3.5.) */
export function runtimeHasMlDsa(): boolean {
  try {
    createPublicKey({
      key: { kty: 'AKP', alg: 'ML-DSA-44', pub: Buffer.alloc(ML_DSA_SIZES[44].publicKey).toString('base64url') },
      format: 'jwk',
    });
    return true;
  } catch {
    return false;
  }
}

export const NODE_ML_DSA: MlDsaVerifier = {
  name: 'node:crypto',
  verify(key, data, signature) {
    if (signature.length !== ML_DSA_SIZES[key.level].signature) return false;
    try {
      return verify(null, data, key.nativeKey(), signature);
    } catch {
      return false;
    }
  },
};

const NOBLE = { 44: ml_dsa44, 65: ml_dsa65, 87: ml_dsa87 } as const;

export const NOBLE_ML_DSA: MlDsaVerifier = {
  name: '@noble/post-quantum',
  verify(key, data, signature) {
    if (signature.length !== ML_DSA_SIZES[key.level].signature) return false;
    try {
      return NOBLE[key.level].verify(signature, data, key.raw);
    } catch {
      return false;
    }
  },
};

/** node:crypto's verifier where the runtime has ML-DSA, else the pure-JavaScript one (a fact of the runtime). */
export const DEFAULT_ML_DSA_VERIFIER: MlDsaVerifier = runtimeHasMlDsa() ? NODE_ML_DSA : NOBLE_ML_DSA;
