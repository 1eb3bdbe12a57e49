// "android-safetynet" (WebAuthn L3 §8.5): a software SafetyNet — a JWS with the ceremony's nonce, signed
// by a certificate for attest.android.com. `extra` (SafetyNetExtra) breaks one thing at a time.

import { createHash, sign } from 'node:crypto';
import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';
import { createAttestationCa, createLeaf, generateKey, type AttestationCa, type KeyPair } from '../pki.js';
import type { StatementBuilder, StatementInput } from './types.js';

export interface SafetyNetExtra {
  readonly ca?: AttestationCa;
  /** The signing certificate's key (default: a fresh RSA 2048 key). */
  readonly key?: KeyPair;
  readonly ver?: unknown;
  /**
   * Default: the statement input's `now` when the soft authenticator passes one (the ceremony clock), else
   * the real clock. Tests pass it together with the ceremony time.
   */
  readonly timestampMs?: number;
  readonly nonce?: string;
  readonly ctsProfileMatch?: unknown;
  readonly hostname?: string;
  readonly alg?: string;
  readonly omitX5c?: boolean;
  /** Sign with another key than the certificate's. */
  readonly signWithOtherKey?: boolean;
  /** Use these bytes as `response`. */
  readonly response?: Buffer;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export const androidSafetynet: StatementBuilder = {
  fmt: 'android-safetynet',
  build(input: StatementInput): Map<string, CborEncodable> {
    const extra = (input.options.extra ?? {}) as SafetyNetExtra;
    const ver = (extra.ver ?? '201516037') as CborEncodable;
    if (extra.response)
      return new Map<string, CborEncodable>([
        ['ver', ver],
        ['response', extra.response],
      ]);
    const ca = extra.ca ?? createAttestationCa('Soft Google Trust Services', 'rsa2048');
    const key = extra.key ?? generateKey('rsa2048');
    const hostname = extra.hostname ?? 'attest.android.com';
    const leaf = createLeaf(ca.intermediate, {
      key,
      subject: { O: 'Google LLC', CN: hostname },
      subjectAltName: { dns: [hostname] },
    });
    const header = {
      alg: extra.alg ?? 'RS256',
      ...(extra.omitX5c ? {} : { x5c: [leaf.der.toString('base64'), ca.intermediate.der.toString('base64')] }),
    };
    const payload = {
      nonce:
        extra.nonce ??
        createHash('sha256')
          .update(Buffer.concat([input.authData, input.clientDataHash]))
          .digest('base64'),
      timestampMs: extra.timestampMs ?? input.now?.getTime() ?? Date.now(),
      apkPackageName: 'com.google.android.gms',
      apkCertificateDigestSha256: ['8P1sW0EPJcslw7UzRsiXL64w+O50Ed+RBICtay1g24M='],
      ctsProfileMatch: extra.ctsProfileMatch ?? true,
      basicIntegrity: true,
    };
    const signingInput = `${b64url(header)}.${b64url(payload)}`;
    const signer = extra.signWithOtherKey ? generateKey('rsa2048').privateKey : key.privateKey;
    const signature = sign('sha256', Buffer.from(signingInput), signer).toString('base64url');
    return new Map<string, CborEncodable>([
      ['ver', ver],
      ['response', Buffer.from(`${signingInput}.${signature}`)],
    ]);
  },
};
