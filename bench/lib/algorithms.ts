// The signature check of one sign-in per COSE algorithm the service offers, in process: ES256 (the raw
// node:crypto verify every ES256 sign-in pays) beside ML-DSA-44/65/87 with each verifier this runtime has
// (node:crypto where it has ML-DSA, the pure-JS one everywhere), over signed data of a sign-in's size.

import { createHash, randomBytes } from 'node:crypto';
import {
  NODE_ML_DSA,
  NOBLE_ML_DSA,
  runtimeHasMlDsa,
  type MlDsaLevel,
  type MlDsaVerifier,
} from '../../src/webauthn/ml-dsa.js';
import { generateMlDsaKeyPair } from '../../test/support/ml-dsa-keys.js';
import { sideBySide, type Measured } from './inprocess.js';

const LEVELS: readonly MlDsaLevel[] = [44, 65, 87];

/** authenticatorData (37 bytes) ‖ SHA-256(clientDataJSON), what an authenticator signs at a sign-in. */
function signedData(): Buffer {
  return Buffer.concat([randomBytes(37), createHash('sha256').update(randomBytes(120)).digest()]);
}

export async function runAlgorithms(seconds: number): Promise<Measured[]> {
  const verifiers: MlDsaVerifier[] = runtimeHasMlDsa() ? [NODE_ML_DSA, NOBLE_ML_DSA] : [NOBLE_ML_DSA];
  const ops: [string, () => void][] = [];
  for (const level of LEVELS) {
    const { privateKey, publicKey } = generateMlDsaKeyPair(level);
    const data = signedData();
    const signature = privateKey.sign(data);
    for (const verifier of verifiers) {
      ops.push([
        `ML-DSA-${level}, ${verifier.name}`,
        () => {
          if (!verifier.verify(publicKey, data, signature)) throw new Error(`ML-DSA-${level} refused its signature`);
        },
      ]);
    }
  }
  return sideBySide(seconds, ops);
}
