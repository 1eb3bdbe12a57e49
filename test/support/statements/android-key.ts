// "android-key" (WebAuthn L3 §8.4): a software Android keystore — the credential key signs, and a
// certificate for it carries the KeyDescription extension. `extra` (AndroidKeyExtra) breaks one thing.

import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';
import * as der from '../der.js';
import { createAttestationCa, createLeaf, type AttestationCa, type IssueOptions, type KeyPair } from '../pki.js';
import { signWith } from './sign.js';
import type { StatementBuilder, StatementInput } from './types.js';

export interface AndroidKeyExtra {
  /** The CA that issues the attestation certificate (default: a fresh one). */
  readonly ca?: AttestationCa;
  /** Send the root as the last x5c element, as factory-provisioned devices do. */
  readonly sendRoot?: boolean;
  /** Replace attestationChallenge (default: clientDataHash). */
  readonly challenge?: Buffer;
  /** Put allApplications in this list. */
  readonly allApplications?: 'software' | 'tee';
  /** KM origin (default 0 = generated), and which list carries it. */
  readonly origin?: number;
  readonly originIn?: 'software' | 'tee';
  /** KM purposes (default [2] = sign). */
  readonly purpose?: readonly number[];
  readonly omitExtension?: boolean;
  /** Extension value bytes to use as is. */
  readonly extensionValue?: Buffer;
  /** The certificate certifies this key pair instead of the credential key, and it signs (so only the key match is wrong). */
  readonly certifiedKey?: KeyPair;
  readonly certificate?: IssueOptions;
}

function authorizationList(fields: readonly { tag: number; value: Buffer }[]): Buffer {
  return der.sequence([...fields].sort((a, b) => a.tag - b.tag).map(({ tag, value }) => der.explicit(tag, value)));
}

/** The KeyDescription extension value (attestation version 3 layout, as Keymaster 4 emits). */
export function keyDescription(challenge: Buffer, extra: AndroidKeyExtra): Buffer {
  const software: { tag: number; value: Buffer }[] = [{ tag: 701, value: der.integer(Date.UTC(2030, 0, 1)) }];
  const tee: { tag: number; value: Buffer }[] = [
    { tag: 1, value: der.set((extra.purpose ?? [2]).map((p) => der.integer(p))) },
    { tag: 2, value: der.integer(3) }, // algorithm EC
    { tag: 10, value: der.integer(1) }, // ecCurve P-256
  ];
  (extra.originIn === 'software' ? software : tee).push({ tag: 702, value: der.integer(extra.origin ?? 0) });
  if (extra.allApplications) (extra.allApplications === 'software' ? software : tee).push({ tag: 600, value: der.nullValue() });
  return der.sequence([
    der.integer(3), // attestationVersion
    der.tlv('universal', false, 0x0a, Buffer.from([1])), // attestationSecurityLevel: TrustedEnvironment
    der.integer(4), // keymasterVersion
    der.tlv('universal', false, 0x0a, Buffer.from([1])), // keymasterSecurityLevel
    der.octetString(challenge),
    der.octetString(Buffer.alloc(0)), // uniqueId
    authorizationList(software),
    authorizationList(tee),
  ]);
}

export const androidKey: StatementBuilder = {
  fmt: 'android-key',
  build(input: StatementInput): Map<string, CborEncodable> {
    const extra = (input.options.extra ?? {}) as AndroidKeyExtra;
    const ca = extra.ca ?? createAttestationCa('Soft Android Keystore');
    const value = extra.extensionValue ?? keyDescription(extra.challenge ?? input.clientDataHash, extra);
    const leaf = createLeaf(ca.intermediate, {
      key: extra.certifiedKey ?? { publicKey: input.credential.publicKey, privateKey: input.credential.privateKey },
      subject: { CN: 'Android Keystore Key' },
      extensions: extra.omitExtension ? [] : [{ oid: '1.3.6.1.4.1.11129.2.1.17', valueDer: value }],
      ...extra.certificate,
    });
    const x5c = [leaf.der, ca.intermediate.der, ...(extra.sendRoot ? [ca.root.der] : [])];
    const alg = input.credential.alg;
    return new Map<string, CborEncodable>([
      ['alg', alg],
      ['sig', signWith(alg, (extra.certifiedKey ?? input.credential).privateKey, Buffer.concat([input.authData, input.clientDataHash]))],
      ['x5c', x5c],
    ]);
  },
};
