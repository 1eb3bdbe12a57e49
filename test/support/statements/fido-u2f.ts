// "fido-u2f" (WebAuthn L3 §8.6): a single P-256 certificate signs
// 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ 0x04 ‖ x ‖ y. Without options.attestation a fresh
// test root and leaf are made (only the leaf goes into x5c).
import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';
import { createChain } from '../pki.js';
import { signWith } from './sign.js';
import type { StatementBuilder } from './types.js';
import { classicalKey } from '../ml-dsa-keys.js';

export const fidoU2f: StatementBuilder = {
  fmt: 'fido-u2f',
  defaultAaguid: Buffer.alloc(16),
  credentialAlgorithms: [-7],
  build({ rpIdHash, clientDataHash, credentialId, credential, options }) {
    const jwk = classicalKey(credential.publicKey, 'fido-u2f').export({ format: 'jwk' });
    const point = Buffer.concat([
      Buffer.from([0x04]),
      Buffer.from(jwk.x ?? '', 'base64url'),
      Buffer.from(jwk.y ?? '', 'base64url'),
    ]);
    const data = Buffer.concat([Buffer.from([0x00]), rpIdHash, clientDataHash, credentialId, point]);
    let attestation = options.attestation;
    if (!attestation) {
      const chain = createChain({ intermediateCount: 0, leaf: { key: 'p256' } });
      attestation = { x5c: [chain.leaf.der], privateKey: chain.leaf.privateKey };
    }
    return new Map<string, CborEncodable>([
      ['sig', signWith(attestation.alg ?? -7, attestation.privateKey, data)],
      ['x5c', [...attestation.x5c]],
    ]);
  },
};
