// Parsing a credential public key (a COSE_Key, RFC 9052 §7) against the algorithm table of cose.ts: kty,
// crv and alg must agree with the table entry, an EC point must lie on its curve, an RSA key must be worth
// storing, an ML-DSA key (AKP, RFC 9964) must have its level's size. Everything the import would refuse is refused here, at parse time, with a precise detail.

import { createPublicKey, type KeyObject, type JsonWebKey } from 'node:crypto';
import { FidoError } from '../errors/catalogue.js';
import { CborError, DEFAULT_CBOR_LIMITS, decodeCbor, type CborLimits } from './cbor.js';
import { coseAlgorithm, EC_CURVES, MIN_RSA_BITS, type CoseAlgorithm, type EcCurve, type PublicKey } from './cose.js';
import { ML_DSA_SIZES, MlDsaPublicKey } from './ml-dsa.js';
import type { CborValue, CredentialPublicKey } from './types.js';

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
const KTY_AKP = 7; // Algorithm Key Pair (RFC 9964): alg (label 3) says what the key is
const AKP_PUB = -1;
const CRV_ED25519 = 6;

/** How a COSE key is decoded: it has no floating-point labels or values (RFC 9052 §7: labels are int / tstr). */
export const COSE_KEY_CBOR_LIMITS: CborLimits = {
  ...DEFAULT_CBOR_LIMITS,
  refuseFloats: true,
  refuseNonMinimal: true,
};

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

/**
 * Checks the key material of `map` for `entry` (everything the import would refuse) and returns it as a
 * JWK, or as the ML-DSA key itself.
 */
function validatedJwk(map: Map<CborValue, CborValue>, entry: CoseAlgorithm): JsonWebKey | MlDsaPublicKey {
  const kty = map.get(KTY);
  switch (entry.family) {
    case 'ml-dsa': {
      if (kty !== KTY_AKP) throw invalidKey(`${entry.name} needs kty AKP (7), got ${describeValue(kty)}`);
      const pub = bytesField(map, AKP_PUB, 'pub');
      const size = ML_DSA_SIZES[entry.level].publicKey;
      if (pub.length !== size) throw invalidKey(`${entry.name} public keys are ${size} bytes, got ${pub.length}`);
      if (map.has(-2)) throw invalidKey('a credential public key must not hold the private key (priv, label -2)');
      return new MlDsaPublicKey(entry.level, pub);
    }
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
      if (kty !== KTY_OKP) throw invalidKey(`${entry.name} needs kty OKP (1), got ${describeValue(kty)}`);
      if (map.get(CRV) !== CRV_ED25519)
        throw invalidKey(`${entry.name} keys must use curve Ed25519 (crv 6), got ${describeValue(map.get(CRV))}`);
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
 * read it here). An ML-DSA key is its MlDsaPublicKey, on every runtime.
 */
class ParsedCredentialKey implements CredentialPublicKey {
  readonly #name: string;
  readonly #jwk: JsonWebKey | MlDsaPublicKey;
  #keyObject: KeyObject | undefined;

  constructor(
    readonly alg: number,
    readonly cose: Buffer,
    readonly coseMap: Map<CborValue, CborValue>,
    entry: CoseAlgorithm,
    jwk: JsonWebKey | MlDsaPublicKey,
  ) {
    this.#name = entry.name;
    this.#jwk = jwk;
  }

  get key(): PublicKey {
    return this.#jwk instanceof MlDsaPublicKey ? this.#jwk : this.keyObject;
  }

  /** Throws USER_PUBLIC_KEY_INVALID_KEY_SPEC (as the parse would have) should OpenSSL ever refuse the key. */
  get keyObject(): KeyObject {
    if (this.#jwk instanceof MlDsaPublicKey)
      throw invalidKey(`the ${this.#name} public key is checked as ML-DSA, not imported into node:crypto`);
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
  const entry = coseAlgorithm(alg);
  if (!entry) throw new FidoError('INVALID_COSE_ALGORITHM', `COSE algorithm ${alg} is not supported`);
  return new ParsedCredentialKey(alg, cose, map, entry, validatedJwk(map, entry));
}
