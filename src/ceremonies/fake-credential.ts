// The stand-in credential of a user without credentials (docs/decisions.md "Options responses"): assertion
// options offer it so that their answer does not tell who is registered, and a result signed for it is
// verified like a real credential's, against a dummy public key, so that it fails with the same name,
// status and cost as a real credential with a bad signature.
//
// Both are derived from the user-handle key under their own labels, and remembered: deriving per call made
// unknown users measurably slower at options than known ones.

import { createHmac } from 'node:crypto';
import { remembered } from '../util/remembered.js';
import { encodeCbor } from '../webauthn/cbor-encode.js';

export interface FakeCredential {
  /** base64url of FAKE_ID_BYTES bytes. */
  readonly id: string;
  readonly transports: readonly string[];
}

/**
 * What the stand-in imitates: a synced platform passkey (iCloud Keychain's ids are 20 bytes), with the
 * transports browsers report for one, in the order they report them (lexicographic).
 */
const FAKE_ID_BYTES = 20;
const FAKE_TRANSPORTS: readonly string[] = Object.freeze(['hybrid', 'internal']);

/** The algorithm of the dummy key: ES256, the one most real credentials use. */
export const FAKE_CREDENTIAL_ALGORITHM = -7;

const REMEMBERED_FAKES = 4096;

interface Derived {
  readonly idKey: Buffer;
  readonly fakes: Map<string, FakeCredential>;
  dummyKey?: Uint8Array;
}

const derivedByKey = new WeakMap<Buffer, Derived>();

function derivedFor(key: Buffer): Derived {
  let derived = derivedByKey.get(key);
  if (derived === undefined) {
    const idKey = createHmac('sha256', key).update('passkey-server fake credential id v1', 'utf8').digest();
    derived = { idKey, fakes: new Map() };
    derivedByKey.set(key, derived);
  }
  return derived;
}

/** The stand-in for (Client ID, username): stable, different per user, the same object while remembered. */
export function fakeCredentialFor(key: Buffer, clientId: string, username: string): FakeCredential {
  const { idKey, fakes } = derivedFor(key);
  const input = `${clientId}\u0000${username}`;
  return remembered(fakes, input, REMEMBERED_FAKES, () => Object.freeze({
    id: createHmac('sha256', idKey).update(input, 'utf8').digest().subarray(0, FAKE_ID_BYTES).toString('base64url'),
    transports: FAKE_TRANSPORTS,
  }));
}

/** The dummy key (COSE_Key bytes, ES256) every stand-in is verified against: one per user-handle key. */
export function fakeCredentialKey(key: Buffer): Uint8Array {
  const derived = derivedFor(key);
  derived.dummyKey ??= dummyPoint(key);
  return derived.dummyKey;
}

// P-256 (SEC 2 §2.4.2): y² = x³ - 3x + b over the prime field p.
const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

/**
 * A curve point found by hashing (try x = HMAC(key, label ‖ n) until x³ - 3x + b is a square): a valid
 * public key whose private key no one knows, so no signature can ever verify against it.
 */
function dummyPoint(key: Buffer): Uint8Array {
  for (let n = 0; ; n++) {
    const x = BigInt(`0x${createHmac('sha256', key).update(`passkey-server dummy key v1 ${n}`, 'utf8').digest('hex')}`) % P;
    const rhs = mod(x * x * x - 3n * x + B);
    // p ≡ 3 (mod 4): the square root, when there is one, is rhs^((p+1)/4).
    const y = power(rhs, (P + 1n) / 4n);
    if (mod(y * y) !== rhs) continue;
    return encodeCbor(new Map<number, number | Buffer>([[1, 2], [3, FAKE_CREDENTIAL_ALGORITHM], [-1, 1], [-2, bytes32(x)], [-3, bytes32(y)]]));
  }
}

function mod(value: bigint): bigint {
  const r = value % P;
  return r < 0n ? r + P : r;
}

function power(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  for (let b = mod(base), e = exponent; e > 0n; e >>= 1n, b = mod(b * b)) {
    if (e & 1n) result = mod(result * b);
  }
  return result;
}

function bytes32(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
}
