// "packed" (WebAuthn L3 §8.2): self attestation by default; full attestation when options.attestation
// gives a chain and the leaf's private key.
import { createPublicKey } from 'node:crypto';
import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';
import { defaultAlgForKey, signWith } from './sign.js';
import type { StatementBuilder } from './types.js';

export const packed: StatementBuilder = {
  fmt: 'packed',
  build({ authData, clientDataHash, credential, options }) {
    const data = Buffer.concat([authData, clientDataHash]);
    const full = options.attestation;
    if (!full) {
      return new Map<string, CborEncodable>([
        ['alg', credential.alg],
        ['sig', signWith(credential.alg, credential.privateKey, data)],
      ]);
    }
    const alg = full.alg ?? defaultAlgForKey(createPublicKey(full.privateKey));
    return new Map<string, CborEncodable>([
      ['alg', alg],
      ['sig', signWith(alg, full.privateKey, data)],
      ['x5c', [...full.x5c]],
    ]);
  },
};
