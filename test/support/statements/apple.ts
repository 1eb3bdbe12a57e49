// "apple" (WebAuthn L3 §8.8): a software anonymization CA that certifies the credential key with the
// ceremony's nonce in extension 1.2.840.113635.100.8.2. `extra` (AppleExtra) breaks one thing at a time.

import { createHash } from 'node:crypto';
import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';
import { AsnPropTypes } from '@peculiar/asn1-schema';
import { defineSequence, derOf } from '../asn1-schema.js';
import { createAttestationCa, createLeaf, type AttestationCa, type KeyPair } from '../pki.js';
import type { StatementBuilder, StatementInput } from './types.js';
import { CLASSICAL_ALGORITHMS, classicalKey } from '../ml-dsa-keys.js';

export interface AppleExtra {
  readonly ca?: AttestationCa;
  /** Replace the nonce (default SHA-256(authData ‖ clientDataHash)). */
  readonly nonce?: Buffer;
  readonly omitExtension?: boolean;
  /** Extension value bytes to use as is. */
  readonly extensionValue?: Buffer;
  /** Certify this key pair instead of the credential key. */
  readonly certifiedKey?: KeyPair;
}

/** SEQUENCE { nonce [1] EXPLICIT OCTET STRING }, as Apple's anonymization CA writes it. */
class AppleNonce {
  nonce = new ArrayBuffer(0);
}
defineSequence(AppleNonce, [['nonce', { type: AsnPropTypes.OctetString, context: 1 }]]);

export function appleNonceExtension(nonce: Buffer): Buffer {
  return derOf(Object.assign(new AppleNonce(), { nonce: new Uint8Array(nonce).buffer }));
}

export const apple: StatementBuilder = {
  fmt: 'apple',
  credentialAlgorithms: CLASSICAL_ALGORITHMS,
  build(input: StatementInput): Map<string, CborEncodable> {
    const extra = (input.options.extra ?? {}) as AppleExtra;
    const ca = extra.ca ?? createAttestationCa('Soft Apple WebAuthn', 'p384');
    const nonce =
      extra.nonce ??
      createHash('sha256')
        .update(Buffer.concat([input.authData, input.clientDataHash]))
        .digest();
    const leaf = createLeaf(ca.intermediate, {
      key: extra.certifiedKey ?? {
        publicKey: classicalKey(input.credential.publicKey, 'apple'),
        privateKey: classicalKey(input.credential.privateKey, 'apple'),
      },
      subject: { O: 'Apple Inc.', ST: 'California', CN: 'credential certificate' },
      extensions: extra.omitExtension
        ? []
        : [{ oid: '1.2.840.113635.100.8.2', valueDer: extra.extensionValue ?? appleNonceExtension(nonce) }],
    });
    return new Map<string, CborEncodable>([['x5c', [leaf.der, ca.intermediate.der]]]);
  },
};
