// "tpm" (WebAuthn L3 §8.3): a software TPM 2.0 — pubArea for the credential key, certInfo from a
// TPM2_Certify over authenticatorData ‖ clientDataHash, signed by an AIK whose certificate meets §8.3.1.
// `extra` (TpmExtra) breaks exactly one requirement at a time.

import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';
import { coseAlgorithm } from '../../../src/webauthn/cose.js';
import {
  aaguidExtension,
  createAttestationCa,
  createLeaf,
  generateKey,
  type AttestationCa,
  type IssueOptions,
  type KeyPair,
} from '../pki.js';
import { signWith } from './sign.js';
import type { StatementBuilder, StatementInput } from './types.js';
import { classicalKey } from '../ml-dsa-keys.js';

export interface TpmExtra {
  /** The CA that issues the AIK certificate (default: a fresh one per statement). */
  readonly ca?: AttestationCa;
  /** COSE alg of the AIK signature (default RS256; RS1 for old TPMs). */
  readonly alg?: number;
  readonly ver?: unknown;
  readonly magic?: number;
  readonly type?: number;
  /** Replace extraData. */
  readonly extraData?: Buffer;
  /** Hash algorithm id (TPM_ALG_ID) of pubArea.nameAlg (default SHA-256). */
  readonly pubAreaNameAlg?: number;
  /** Hash algorithm id (TPM_ALG_ID) of attested.name (default: pubArea's nameAlg). */
  readonly attestedNameAlg?: number;
  /** Replace attested.name. */
  readonly attestedName?: Buffer;
  /** pubArea describes this key instead of the credential key. */
  readonly pubAreaKey?: KeyObject;
  /** Bytes appended to pubArea (certified as is, so only the structure is wrong). */
  readonly pubAreaTrailing?: Buffer;
  /** AIK key pair (default RSA 2048) and certificate options merged over the §8.3.1 defaults. */
  readonly aikKey?: KeyPair;
  readonly aikCertificate?: IssueOptions;
  /** Put the AAGUID extension in the AIK certificate with this value (true = the authenticator's). */
  readonly aikAaguid?: Buffer | true;
  /** Sign certInfo with another key than the AIK's. */
  readonly signWithOtherKey?: boolean;
}

const TPM_ALG_RSA = 0x0001;
const TPM_ALG_ECC = 0x0023;
const TPM_ALG_NULL = 0x0010;
const TPM_ALG_SHA256 = 0x000b;
const NAME_HASH: Record<number, string> = { 0x0004: 'sha1', 0x000b: 'sha256', 0x000c: 'sha384', 0x000d: 'sha512' };
const CURVE_ID: Record<string, number> = { 'P-256': 0x0003, 'P-384': 0x0004, 'P-521': 0x0005 };

export const TPM_FIDO_MANUFACTURER = 'id:FFFFF1D0';

/** The §8.3.1 AIK certificate: version 3, empty subject, TPM SAN, tcg-kp-AIKCertificate, not a CA. */
export function aikCertificateOptions(): IssueOptions {
  return {
    subject: [],
    subjectAltName: {
      critical: true,
      directoryNames: [
        [
          { type: '2.23.133.2.1', value: TPM_FIDO_MANUFACTURER },
          { type: '2.23.133.2.2', value: 'SoftTPM' },
          { type: '2.23.133.2.3', value: 'id:00020000' },
        ],
      ],
    },
    extendedKeyUsage: ['2.23.133.8.3'],
    basicConstraints: { ca: false },
  };
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}
function sized(bytes: Buffer): Buffer {
  return Buffer.concat([u16(bytes.length), bytes]);
}

/** TPMT_PUBLIC for an RSA or EC public key (no symmetric, no scheme, as a TPM signing key for WebAuthn). */
export function encodePubArea(key: KeyObject, nameAlg = TPM_ALG_SHA256): Buffer {
  const jwk = key.export({ format: 'jwk' });
  const b = (s: string | undefined) => Buffer.from(s ?? '', 'base64url');
  const header = (type: number) =>
    Buffer.concat([
      u16(type),
      u16(nameAlg),
      u32(0x00060472),
      sized(Buffer.alloc(0)),
      u16(TPM_ALG_NULL),
      u16(TPM_ALG_NULL),
    ]);
  if (jwk.kty === 'RSA') {
    const n = b(jwk.n);
    const e = b(jwk.e);
    const exponent = e.equals(Buffer.from([1, 0, 1])) ? 0 : Number(BigInt(`0x${e.toString('hex')}`));
    return Buffer.concat([header(TPM_ALG_RSA), u16(n.length * 8), u32(exponent), sized(n)]);
  }
  const curve = CURVE_ID[jwk.crv ?? ''];
  if (jwk.kty !== 'EC' || curve === undefined) throw new Error('soft TPM: RSA and NIST EC keys only');
  return Buffer.concat([header(TPM_ALG_ECC), u16(curve), u16(TPM_ALG_NULL), sized(b(jwk.x)), sized(b(jwk.y))]);
}

function tpmName(nameAlg: number, pubArea: Buffer): Buffer {
  const hash = NAME_HASH[nameAlg];
  if (!hash) throw new Error('soft TPM: unknown name hash');
  return Buffer.concat([u16(nameAlg), createHash(hash).update(pubArea).digest()]);
}

export const tpm: StatementBuilder = {
  fmt: 'tpm',
  credentialAlgorithms: [-257, -65535, -7, -35, -36, -37, -38, -39, -258, -259],
  build(input: StatementInput): Map<string, CborEncodable> {
    const extra = (input.options.extra ?? {}) as TpmExtra;
    const alg = extra.alg ?? -257;
    const hash = (() => {
      const entry = coseAlgorithm(alg);
      return entry && 'hash' in entry ? entry.hash : 'sha256';
    })();
    const pubArea = Buffer.concat([
      encodePubArea(extra.pubAreaKey ?? classicalKey(input.credential.publicKey, 'tpm'), extra.pubAreaNameAlg),
      extra.pubAreaTrailing ?? Buffer.alloc(0),
    ]);
    const attestedName =
      extra.attestedName ?? tpmName(extra.attestedNameAlg ?? extra.pubAreaNameAlg ?? TPM_ALG_SHA256, pubArea);
    const extraData =
      extra.extraData ??
      createHash(hash)
        .update(Buffer.concat([input.authData, input.clientDataHash]))
        .digest();
    const certInfo = Buffer.concat([
      u32(extra.magic ?? 0xff544347),
      u16(extra.type ?? 0x8017),
      sized(tpmName(TPM_ALG_SHA256, Buffer.from('qualified signer'))),
      sized(extraData),
      randomBytes(8),
      u32(1),
      u32(0),
      Buffer.from([1]), // clockInfo
      randomBytes(8), // firmwareVersion
      sized(attestedName),
      sized(tpmName(TPM_ALG_SHA256, randomBytes(16))), // qualifiedName
    ]);
    const ca = extra.ca ?? createAttestationCa('Soft TPM Vendor');
    const aikKey = extra.aikKey ?? generateKey('rsa2048');
    const aaguidExt =
      extra.aikAaguid === undefined ? [] : [aaguidExtension(extra.aikAaguid === true ? input.aaguid : extra.aikAaguid)];
    const aik = createLeaf(ca.intermediate, {
      ...aikCertificateOptions(),
      key: aikKey,
      extensions: aaguidExt,
      ...extra.aikCertificate,
    });
    const signer = extra.signWithOtherKey ? generateKey('rsa2048').privateKey : aikKey.privateKey;
    return new Map<string, CborEncodable>([
      ['ver', (extra.ver ?? '2.0') as CborEncodable],
      ['alg', alg],
      ['x5c', [aik.der, ca.intermediate.der]],
      ['sig', signWith(alg, signer, certInfo)],
      ['certInfo', certInfo],
      ['pubArea', pubArea],
    ]);
  },
};
