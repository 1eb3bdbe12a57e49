// "android-key" (WebAuthn L3 §8.4): a software Android keystore — the credential key signs, and a
// certificate for it carries the KeyDescription extension. `extra` (AndroidKeyExtra) breaks one thing.

import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';
import { AsnIntegerBigIntConverter, AsnPropTypes } from '@peculiar/asn1-schema';
import { defineSequence, derOf } from '../asn1-schema.js';
import { createAttestationCa, createLeaf, type AttestationCa, type IssueOptions, type KeyPair } from '../pki.js';
import { signWith } from './sign.js';
import type { StatementBuilder, StatementInput } from './types.js';
import { CLASSICAL_ALGORITHMS, classicalKey } from '../ml-dsa-keys.js';

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

/** The AuthorizationList fields the soft keystore writes: EXPLICIT tags, in ascending order as DER requires. */
class AuthorizationList {
  purpose?: number[];
  algorithm?: number;
  ecCurve?: number;
  allApplications?: null;
  creationDateTime?: bigint;
  origin?: number;
}
defineSequence(AuthorizationList, [
  ['purpose', { type: AsnPropTypes.Integer, context: 1, repeated: 'set', optional: true }],
  ['algorithm', { type: AsnPropTypes.Integer, context: 2, optional: true }],
  ['ecCurve', { type: AsnPropTypes.Integer, context: 10, optional: true }],
  ['allApplications', { type: AsnPropTypes.Null, context: 600, optional: true }],
  [
    'creationDateTime',
    { type: AsnPropTypes.Integer, context: 701, optional: true, converter: AsnIntegerBigIntConverter },
  ],
  ['origin', { type: AsnPropTypes.Integer, context: 702, optional: true }],
]);

class KeyDescription {
  attestationVersion = 3;
  attestationSecurityLevel = 1; // TrustedEnvironment
  keymasterVersion = 4;
  keymasterSecurityLevel = 1;
  attestationChallenge = new ArrayBuffer(0);
  uniqueId = new ArrayBuffer(0);
  softwareEnforced = new AuthorizationList();
  teeEnforced = new AuthorizationList();
}
defineSequence(KeyDescription, [
  ['attestationVersion', { type: AsnPropTypes.Integer }],
  ['attestationSecurityLevel', { type: AsnPropTypes.Enumerated }],
  ['keymasterVersion', { type: AsnPropTypes.Integer }],
  ['keymasterSecurityLevel', { type: AsnPropTypes.Enumerated }],
  ['attestationChallenge', { type: AsnPropTypes.OctetString }],
  ['uniqueId', { type: AsnPropTypes.OctetString }],
  ['softwareEnforced', { type: AuthorizationList }],
  ['teeEnforced', { type: AuthorizationList }],
]);

/** The KeyDescription extension value (attestation version 3 layout, as Keymaster 4 emits). */
export function keyDescription(challenge: Buffer, extra: AndroidKeyExtra): Buffer {
  const software = Object.assign(new AuthorizationList(), { creationDateTime: BigInt(Date.UTC(2030, 0, 1)) });
  // SET OF: DER orders the members by their encodings, which for these small INTEGERs is numeric order.
  const tee = Object.assign(new AuthorizationList(), {
    purpose: [...(extra.purpose ?? [2])].sort((a, b) => a - b),
    algorithm: 3,
    ecCurve: 1,
  });
  (extra.originIn === 'software' ? software : tee).origin = extra.origin ?? 0;
  if (extra.allApplications) (extra.allApplications === 'software' ? software : tee).allApplications = null;
  return derOf(
    Object.assign(new KeyDescription(), {
      attestationChallenge: new Uint8Array(challenge).buffer,
      softwareEnforced: software,
      teeEnforced: tee,
    }),
  );
}

export const androidKey: StatementBuilder = {
  fmt: 'android-key',
  credentialAlgorithms: CLASSICAL_ALGORITHMS,
  build(input: StatementInput): Map<string, CborEncodable> {
    const extra = (input.options.extra ?? {}) as AndroidKeyExtra;
    const ca = extra.ca ?? createAttestationCa('Soft Android Keystore');
    const value = extra.extensionValue ?? keyDescription(extra.challenge ?? input.clientDataHash, extra);
    const leaf = createLeaf(ca.intermediate, {
      key: extra.certifiedKey ?? {
        publicKey: classicalKey(input.credential.publicKey, 'android-key'),
        privateKey: classicalKey(input.credential.privateKey, 'android-key'),
      },
      subject: { CN: 'Android Keystore Key' },
      extensions: extra.omitExtension ? [] : [{ oid: '1.3.6.1.4.1.11129.2.1.17', valueDer: value }],
      ...extra.certificate,
    });
    const x5c = [leaf.der, ca.intermediate.der, ...(extra.sendRoot ? [ca.root.der] : [])];
    const alg = input.credential.alg;
    return new Map<string, CborEncodable>([
      ['alg', alg],
      [
        'sig',
        signWith(
          alg,
          (extra.certifiedKey ?? input.credential).privateKey,
          Buffer.concat([input.authData, input.clientDataHash]),
        ),
      ],
      ['x5c', x5c],
    ]);
  },
};
