// THE table of COSE algorithms (RFC 9053, RFC 8230, RFC 8812). Options (pubKeyCredParams), key parsing and
// every signature check read it, so adding an algorithm is one entry here.

import { constants, createPublicKey, verify, type KeyObject, type JsonWebKey } from 'node:crypto';
import { FidoError } from '../errors.js';
import { CborError, DEFAULT_CBOR_LIMITS, decodeCbor, type CborLimits } from './cbor.js';
import type { CborValue, CredentialPublicKey } from './types.js';

type Hash = 'sha1' | 'sha256' | 'sha384' | 'sha512';

export type CoseAlgorithm =
  | {
      readonly alg: number;
      readonly name: string;
      readonly family: 'ecdsa';
      readonly hash: Hash;
      readonly crv: EcCurve;
    }
  | { readonly alg: number; readonly name: string; readonly family: 'eddsa'; readonly crv: 'Ed25519' }
  | { readonly alg: number; readonly name: string; readonly family: 'rsa-pss'; readonly hash: Hash }
  | { readonly alg: number; readonly name: string; readonly family: 'rsa-pkcs1'; readonly hash: Hash };

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
  { alg: -65535, name: 'RS1', family: 'rsa-pkcs1', hash: 'sha1' },
];

/** The RS1 identifier, never offered by default. */
export const COSE_ALG_RS1 = -65535;

/** What pubKeyCredParams offers when a policy does not narrow it: every entry except RS1, in table order. */
export const DEFAULT_OFFERED_ALGORITHMS: readonly number[] = COSE_ALGORITHMS.map((a) => a.alg).filter(
  (a) => a !== COSE_ALG_RS1,
);

const BY_ALG = new Map(COSE_ALGORITHMS.map((a) => [a.alg, a]));

export function coseAlgorithm(alg: number): CoseAlgorithm | undefined {
  return BY_ALG.get(alg);
}

// COSE key labels (RFC 9052 §7, RFC 9053 §7).
const KTY = 1;
const ALG = 3;
const CRV = -1;
const X = -2; // EC2/OKP x; RSA e is also -2
const Y = -3;
const RSA_N = -1;
const RSA_E = -2;
const KTY_OKP = 1;
const KTY_EC2 = 2;
const KTY_RSA = 3;
/**
 * The NIST curves (FIPS 186-5 / SEC 2): COSE crv id, coordinate size in bytes, Node's name (as
 * KeyObject.asymmetricKeyDetails.namedCurve reports it), and the field prime p and constant b of
 * y² = x³ − 3x + b, which the on-curve check of a credential key needs.
 */
const EC_CURVES: Record<
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
const CRV_ED25519 = 6;
const MIN_RSA_BITS = 2048;

/** How a COSE key is decoded: it has no floating-point labels or values (RFC 9052 §7: labels are int / tstr). */
export const COSE_KEY_CBOR_LIMITS: CborLimits = { ...DEFAULT_CBOR_LIMITS, refuseFloats: true };

/** A decoded value as a message names it: `3`, `the text string "OKP"`, `a byte string`, … */
function describeValue(value: CborValue): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return `the text string ${JSON.stringify(value.slice(0, 32))}`;
  if (Buffer.isBuffer(value)) return 'a byte string';
  if (value === undefined) return 'nothing';
  if (value === null || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'an array' : value instanceof Map ? 'a map' : 'a tagged value';
}

/** COSE key labels are integers or text strings (RFC 9052 §7); floats were refused while decoding. */
function checkLabels(map: Map<CborValue, CborValue>): void {
  for (const label of map.keys()) {
    const integer = typeof label === 'bigint' || (typeof label === 'number' && Number.isInteger(label));
    if (!integer && typeof label !== 'string')
      throw invalidKey(`COSE key labels are integers or text strings, found ${describeValue(label)}`);
  }
}

function invalidKey(detail: string): FidoError {
  return new FidoError('USER_PUBLIC_KEY_INVALID_KEY_SPEC', detail);
}

function bytesField(map: Map<CborValue, CborValue>, label: number, what: string): Buffer {
  const v = map.get(label);
  if (!Buffer.isBuffer(v) || v.length === 0)
    throw invalidKey(`${what} (label ${label}) must be a non-empty byte string`);
  return v;
}

/**
 * Is (x, y) a point of `curve`? Public-key validation of SEC 1 §3.2.2.1 steps 1-3 with BigInt: each
 * coordinate is `size` bytes and below p, and y² ≡ x³ − 3x + b (mod p). The point at infinity has no
 * affine coordinates, and (0, 0) fails the equation (b ≠ 0). The three curves have cofactor 1, so every
 * such point generates the prime-order group and step 4 (n·Q = ∞) holds by itself. This is the check
 * OpenSSL makes when it imports the key, at a few µs instead of the 130-200 µs an import costs.
 */
export function ecPointOnCurve(curve: EcCurve, x: Uint8Array, y: Uint8Array): boolean {
  const { size, p, b } = EC_CURVES[curve];
  if (x.length !== size || y.length !== size) return false;
  const X = toBigInt(x);
  const Y = toBigInt(y);
  if (X >= p || Y >= p) return false;
  // (x² − 3)·x + b is never negative (it is b − 2 at its lowest, x = 1), so % gives the residue.
  return (Y * Y) % p === ((X * X - 3n) * X + b) % p;
}

/** Big-endian unsigned integer of `bytes`, eight bytes at a time (no hex string in between). */
function toBigInt(bytes: Uint8Array): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const head = bytes.byteLength % 8;
  let value = 0n;
  for (let i = 0; i < head; i++) value = (value << 8n) | BigInt(bytes[i]!);
  for (let i = head; i < bytes.byteLength; i += 8) value = (value << 64n) | view.getBigUint64(i);
  return value;
}

/** Checks the key material of `map` for `entry` (everything the import would refuse) and returns it as a JWK. */
function validatedJwk(map: Map<CborValue, CborValue>, entry: CoseAlgorithm): JsonWebKey {
  const kty = map.get(KTY);
  switch (entry.family) {
    case 'ecdsa': {
      if (kty !== KTY_EC2) throw invalidKey(`${entry.name} needs kty EC2 (2), got ${describeValue(kty)}`);
      const curve = EC_CURVES[entry.crv];
      if (map.get(CRV) !== curve.crv)
        throw invalidKey(
          `${entry.name} needs curve ${entry.crv} (crv ${curve.crv}), got ${describeValue(map.get(CRV))}`,
        );
      const x = bytesField(map, X, 'x');
      const y = bytesField(map, Y, 'y');
      if (x.length !== curve.size || y.length !== curve.size)
        throw invalidKey(`${entry.crv} coordinates must be ${curve.size} bytes`);
      if (!ecPointOnCurve(entry.crv, x, y))
        throw invalidKey(`the ${entry.name} public key is not a point of ${entry.crv}`);
      return { kty: 'EC', crv: entry.crv, x: x.toString('base64url'), y: y.toString('base64url') };
    }
    case 'eddsa': {
      if (kty !== KTY_OKP) throw invalidKey(`EdDSA needs kty OKP (1), got ${describeValue(kty)}`);
      if (map.get(CRV) !== CRV_ED25519)
        throw invalidKey(`EdDSA keys must use curve Ed25519 (crv 6), got ${describeValue(map.get(CRV))}`);
      const x = bytesField(map, X, 'x');
      // OpenSSL imports any 32 bytes as an Ed25519 key (it decodes the point only when verifying).
      if (x.length !== 32) throw invalidKey('Ed25519 public keys are 32 bytes');
      return { kty: 'OKP', crv: 'Ed25519', x: x.toString('base64url') };
    }
    case 'rsa-pss':
    case 'rsa-pkcs1': {
      if (kty !== KTY_RSA) throw invalidKey(`${entry.name} needs kty RSA (3), got ${describeValue(kty)}`);
      const n = stripLeadingZeros(bytesField(map, RSA_N, 'n'));
      const e = stripLeadingZeros(bytesField(map, RSA_E, 'e'));
      // OpenSSL imports any n and e; these are the checks that make a key worth storing.
      if (n.length * 8 < MIN_RSA_BITS) throw invalidKey(`RSA modulus shorter than ${MIN_RSA_BITS} bits`);
      // An even or tiny exponent (e = 1 makes every value its own signature) is never a real key.
      if (e.length > 8 || (e[e.length - 1]! & 1) === 0 || (e.length === 1 && e[0]! < 3))
        throw invalidKey('RSA public exponent must be odd and at least 3');
      return { kty: 'RSA', n: n.toString('base64url'), e: e.toString('base64url') };
    }
  }
}

function stripLeadingZeros(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
}

/**
 * A credential key that passed every check at parse time. Its KeyObject is made at the first read of
 * `keyObject` and kept: importing costs as much as a signature check, and a `none` registration never
 * needs it (authentication imports through the key cache, packed self and the formats that compare keys
 * read it here).
 */
class ParsedCredentialKey implements CredentialPublicKey {
  readonly #name: string;
  readonly #jwk: JsonWebKey;
  #keyObject: KeyObject | undefined;

  constructor(
    readonly alg: number,
    readonly cose: Buffer,
    readonly coseMap: Map<CborValue, CborValue>,
    entry: CoseAlgorithm,
    jwk: JsonWebKey,
  ) {
    this.#name = entry.name;
    this.#jwk = jwk;
  }

  /** Throws USER_PUBLIC_KEY_INVALID_KEY_SPEC (as the parse would have) should OpenSSL ever refuse the key. */
  get keyObject(): KeyObject {
    if (this.#keyObject === undefined) {
      try {
        this.#keyObject = createPublicKey({ key: this.#jwk, format: 'jwk' });
      } catch {
        throw invalidKey(`the ${this.#name} public key cannot be imported (not a valid point or modulus)`);
      }
    }
    return this.#keyObject;
  }
}

/**
 * Parses a COSE_Key (the bytes of the credential public key in authenticator data). Checks that kty, crv
 * and alg agree with the table, that an EC point lies on its curve, and the RSA modulus and exponent; the
 * KeyObject is made at the first read of `keyObject`.
 * Throws INVALID_COSE_ALGORITHM (unknown alg) or USER_PUBLIC_KEY_INVALID_KEY_SPEC.
 */
export function importCosePublicKey(cose: Uint8Array): CredentialPublicKey {
  let decoded: CborValue;
  try {
    decoded = decodeCbor(cose, COSE_KEY_CBOR_LIMITS);
  } catch (err) {
    if (err instanceof CborError) throw invalidKey(`COSE key is not valid CBOR: ${err.message}`);
    throw err;
  }
  if (!(decoded instanceof Map)) throw invalidKey('COSE key must be a CBOR map');
  return importCoseKeyMap(decoded, Buffer.from(cose));
}

/** Same as importCosePublicKey, for a map already decoded from `cose` (avoids decoding twice). */
export function importCoseKeyMap(map: Map<CborValue, CborValue>, cose: Buffer): CredentialPublicKey {
  checkLabels(map);
  const alg = map.get(ALG);
  if (typeof alg !== 'number' || !Number.isInteger(alg)) throw invalidKey('COSE key has no integer alg (label 3)');
  const entry = BY_ALG.get(alg);
  if (!entry) throw new FidoError('INVALID_COSE_ALGORITHM', `COSE algorithm ${alg} is not supported`);
  return new ParsedCredentialKey(alg, cose, map, entry, validatedJwk(map, entry));
}

/** Does `key` have the type (and curve) that `alg` signs with? Guards x5c leaves against a mislabelled alg. */
export function keyMatchesAlgorithm(alg: number, key: KeyObject): boolean {
  const entry = BY_ALG.get(alg);
  if (!entry) return false;
  switch (entry.family) {
    case 'ecdsa':
      return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === EC_CURVES[entry.crv].node;
    case 'eddsa':
      return key.asymmetricKeyType === 'ed25519';
    case 'rsa-pss':
    case 'rsa-pkcs1':
      return key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS;
  }
}

/**
 * Verifies `signature` over `data` with `alg` (ECDSA signatures are DER, as WebAuthn sends them; PSS uses
 * a salt as long as the hash, RFC 8230). Never throws: a malformed signature, or a key whose type or curve
 * does not fit `alg`, gives false.
 */
export function verifySignature(alg: number, key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  const entry = BY_ALG.get(alg);
  // A key of another type would be used with its own scheme by node:crypto (e.g. ECDSA under an RSA alg).
  if (!entry || !keyMatchesAlgorithm(alg, key)) return false;
  try {
    switch (entry.family) {
      case 'ecdsa':
        return verify(entry.hash, data, { key, dsaEncoding: 'der' }, signature);
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
        return verify(entry.hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    }
  } catch {
    return false;
  }
}

const HASH_BYTES: Record<Hash, number> = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 };
