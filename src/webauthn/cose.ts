// THE table of COSE algorithms (RFC 9053, RFC 8230, RFC 8812, RFC 9964, RFC 9864), the curves they use, and the
// signature check. Options (pubKeyCredParams), key parsing (cose-key.ts) and every signature check read it, so adding
// an algorithm is one entry here.

import { constants, type KeyObject, verify } from 'node:crypto';
import { DEFAULT_ML_DSA_VERIFIER, MlDsaPublicKey, type MlDsaLevel, type MlDsaVerifier } from './ml-dsa.js';

type Hash = 'sha1' | 'sha256' | 'sha384' | 'sha512';

export type CoseAlgorithm = CoseAlgorithmFamily & {
  /** Offered in pubKeyCredParams only where an application's `algorithms` lists it (not by default). */
  readonly optIn?: true;
};

type CoseAlgorithmFamily =
  | {
      readonly alg: number;
      readonly name: string;
      readonly family: 'ecdsa';
      readonly hash: Hash;
      readonly crv: EcCurve;
    }
  | { readonly alg: number; readonly name: string; readonly family: 'eddsa'; readonly crv: 'Ed25519' }
  | { readonly alg: number; readonly name: string; readonly family: 'rsa-pss'; readonly hash: Hash }
  | { readonly alg: number; readonly name: string; readonly family: 'rsa-pkcs1'; readonly hash: Hash }
  | { readonly alg: number; readonly name: string; readonly family: 'ml-dsa'; readonly level: MlDsaLevel };

/** A public key a signature is checked with: node:crypto's, or an ML-DSA key (checked by an MlDsaVerifier). */
export type PublicKey = KeyObject | MlDsaPublicKey;

export type EcCurve = 'P-256' | 'P-384' | 'P-521';

/** The supported algorithms, in the order they are offered in pubKeyCredParams (docs/decisions.md). */
export const COSE_ALGORITHMS: readonly CoseAlgorithm[] = [
  { alg: -7, name: 'ES256', family: 'ecdsa', hash: 'sha256', crv: 'P-256' },
  { alg: -35, name: 'ES384', family: 'ecdsa', hash: 'sha384', crv: 'P-384' },
  { alg: -36, name: 'ES512', family: 'ecdsa', hash: 'sha512', crv: 'P-521' },
  { alg: -8, name: 'EdDSA', family: 'eddsa', crv: 'Ed25519' },
  { alg: -37, name: 'PS256', family: 'rsa-pss', hash: 'sha256' },
  { alg: -38, name: 'PS384', family: 'rsa-pss', hash: 'sha384' },
  { alg: -39, name: 'PS512', family: 'rsa-pss', hash: 'sha512' },
  { alg: -257, name: 'RS256', family: 'rsa-pkcs1', hash: 'sha256' },
  { alg: -258, name: 'RS384', family: 'rsa-pkcs1', hash: 'sha384' },
  { alg: -259, name: 'RS512', family: 'rsa-pkcs1', hash: 'sha512' },
  // SHA-1: offered only where an application's policy enables it (FIDO conformance, old TPMs).
  { alg: -65535, name: 'RS1', family: 'rsa-pkcs1', hash: 'sha1', optIn: true },
  // Post-quantum (RFC 9964, AKP keys): offered only where an application's `algorithms` lists them.
  { alg: -48, name: 'ML-DSA-44', family: 'ml-dsa', level: 44, optIn: true },
  { alg: -49, name: 'ML-DSA-65', family: 'ml-dsa', level: 65, optIn: true },
  { alg: -50, name: 'ML-DSA-87', family: 'ml-dsa', level: 87, optIn: true },
  // Fully specified (RFC 9864 §2): the same signatures as ES256, ES384, ES512 and EdDSA, the curve named by
  // the identifier itself. Accepted wherever an application's `algorithms` lists them, offered only there:
  // browsers and authenticators that know them are still few (docs/decisions.md).
  { alg: -9, name: 'ESP256', family: 'ecdsa', hash: 'sha256', crv: 'P-256', optIn: true },
  { alg: -51, name: 'ESP384', family: 'ecdsa', hash: 'sha384', crv: 'P-384', optIn: true },
  { alg: -52, name: 'ESP512', family: 'ecdsa', hash: 'sha512', crv: 'P-521', optIn: true },
  { alg: -19, name: 'Ed25519', family: 'eddsa', crv: 'Ed25519', optIn: true },
];

const BY_ALG = new Map(COSE_ALGORITHMS.map((a) => [a.alg, a]));

/** The RS1 identifier, never offered by default. */
export const COSE_ALG_RS1 = -65535;

/** Is `alg` one of the post-quantum algorithms (ML-DSA, RFC 9964)? */
export function isPostQuantum(alg: number): boolean {
  return BY_ALG.get(alg)?.family === 'ml-dsa';
}

/** The post-quantum algorithms' identifiers, in table order (the admin API counts their users). */
export const POST_QUANTUM_ALGORITHMS: readonly number[] = COSE_ALGORITHMS.filter((a) => a.family === 'ml-dsa').map(
  (a) => a.alg,
);

/**
 * What pubKeyCredParams offers when a policy does not narrow it: every entry except those offered only
 * when configured (RS1, the post-quantum and the fully-specified ones), in table order.
 */
export const DEFAULT_OFFERED_ALGORITHMS: readonly number[] = COSE_ALGORITHMS.filter((a) => a.optIn !== true).map(
  (a) => a.alg,
);

export function coseAlgorithm(alg: number): CoseAlgorithm | undefined {
  return BY_ALG.get(alg);
}

/**
 * The NIST curves (FIPS 186-5 / SEC 2): COSE crv id, coordinate size in bytes, Node's name (as
 * KeyObject.asymmetricKeyDetails.namedCurve reports it), and the field prime p and constant b of
 * y² = x³ − 3x + b, which the on-curve check of a credential key needs.
 */
export const EC_CURVES: Record<
  EcCurve,
  { readonly crv: number; readonly size: number; readonly node: string; readonly p: bigint; readonly b: bigint }
> = {
  'P-256': {
    crv: 1,
    size: 32,
    node: 'prime256v1',
    p: 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn,
    b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn,
  },
  'P-384': {
    crv: 2,
    size: 48,
    node: 'secp384r1',
    p: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffffn,
    b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn,
  },
  'P-521': {
    crv: 3,
    size: 66,
    node: 'secp521r1',
    p: (1n << 521n) - 1n,
    b: 0x0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00n,
  },
};
/** The shortest RSA modulus a credential or attestation key may have. */
export const MIN_RSA_BITS = 2048;

/** Does `key` have the type (and curve) that `alg` signs with? Guards x5c leaves against a mislabelled alg. */
export function keyMatchesAlgorithm(alg: number, key: PublicKey): boolean {
  const entry = BY_ALG.get(alg);
  if (!entry) return false;
  if (key instanceof MlDsaPublicKey) return entry.family === 'ml-dsa' && entry.level === key.level;
  switch (entry.family) {
    case 'ml-dsa':
      return key.asymmetricKeyType === `ml-dsa-${entry.level}`;
    case 'ecdsa':
      return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === EC_CURVES[entry.crv].node;
    case 'eddsa':
      return key.asymmetricKeyType === 'ed25519';
    case 'rsa-pss':
    case 'rsa-pkcs1':
      return key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS;
  }
}

/** Is the certificate key `certified` the key `key`? (No certificate here certifies an ML-DSA key.) */
export function sameKey(certified: KeyObject, key: PublicKey): boolean {
  return !(key instanceof MlDsaPublicKey) && certified.equals(key);
}

/**
 * Verifies `signature` over `data` with `alg` (ECDSA signatures are DER, as WebAuthn sends them; PSS uses
 * a salt as long as the hash, RFC 8230; ML-DSA is pure ML-DSA with an empty context, checked by `mlDsa`).
 * Never throws: a malformed signature, or a key whose type or curve does not fit `alg`, gives false.
 */
export function verifySignature(
  alg: number,
  key: PublicKey,
  data: Uint8Array,
  signature: Uint8Array,
  mlDsa: MlDsaVerifier = DEFAULT_ML_DSA_VERIFIER,
): boolean {
  const entry = BY_ALG.get(alg);
  // A key of another type would be used with its own scheme by node:crypto (e.g. ECDSA under an RSA alg).
  if (!entry || !keyMatchesAlgorithm(alg, key)) return false;
  if (key instanceof MlDsaPublicKey) return mlDsa.verify(key, data, signature);
  try {
    switch (entry.family) {
      case 'ml-dsa':
        return verify(null, data, key, signature);
      case 'ecdsa':
        // The KeyObject itself, not { key, dsaEncoding: 'der' } (DER is the default): on Node.js 22 and later
        // an options object costs 12 µs more per verification (docs/performance.md).
        return verify(entry.hash, data, key, signature);
      case 'eddsa':
        return verify(null, data, key, signature);
      case 'rsa-pss':
        return verify(
          entry.hash,
          data,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: HASH_BYTES[entry.hash] },
          signature,
        );
      case 'rsa-pkcs1':
        // PKCS #1 v1.5 is the default padding of an RSA key.
        return verify(entry.hash, data, key, signature);
    }
  } catch {
    return false;
  }
}

const HASH_BYTES: Record<Hash, number> = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 };
