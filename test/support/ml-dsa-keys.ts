// ML-DSA key pairs for the test authenticators, made and used with @noble/post-quantum on every runtime
// (Node.js 20 and 22 have no ML-DSA in node:crypto). The public half is the service's own MlDsaPublicKey.
import { randomBytes, type KeyObject } from 'node:crypto';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { COSE_ALGORITHMS } from '../../src/webauthn/cose.js';
import { MlDsaPublicKey, type MlDsaLevel } from '../../src/webauthn/ml-dsa.js';

const NOBLE = { 44: ml_dsa44, 65: ml_dsa65, 87: ml_dsa87 } as const;

/** The private half of an ML-DSA key pair (FIPS 204 expanded secret key). */
export class MlDsaPrivateKey {
  constructor(
    readonly level: MlDsaLevel,
    readonly secretKey: Uint8Array,
  ) {}

  /** Pure ML-DSA with an empty context, as a WebAuthn authenticator signs (hedged: a fresh signature each time). */
  sign(data: Uint8Array): Buffer {
    return Buffer.from(NOBLE[this.level].sign(data, this.secretKey));
  }
}

/** A key a test authenticator signs with, and the public key that goes with it. */
export type SigningKey = KeyObject | MlDsaPrivateKey;
export type VerifyingKey = KeyObject | MlDsaPublicKey;

export function generateMlDsaKeyPair(level: MlDsaLevel): { privateKey: MlDsaPrivateKey; publicKey: MlDsaPublicKey } {
  const { secretKey, publicKey } = NOBLE[level].keygen(randomBytes(32));
  return {
    privateKey: new MlDsaPrivateKey(level, secretKey),
    publicKey: new MlDsaPublicKey(level, Buffer.from(publicKey)),
  };
}

/** The algorithms of formats whose certificate certifies the credential key (none certifies an ML-DSA one). */
export const CLASSICAL_ALGORITHMS: readonly number[] = COSE_ALGORITHMS.filter((a) => a.family !== 'ml-dsa').map(
  (a) => a.alg,
);

/** The KeyObject of a classical key; a builder that cannot attest an ML-DSA key says so. */
export function classicalKey<K extends SigningKey | VerifyingKey>(key: K, what: string): Extract<K, KeyObject> {
  if (key instanceof MlDsaPrivateKey || key instanceof MlDsaPublicKey)
    throw new Error(`${what}: an ML-DSA key cannot be attested by this format`);
  return key as Extract<K, KeyObject>;
}
