// The on-curve check that replaces the key import at registration (ecPointOnCurve): it must accept what
// OpenSSL's import accepts and refuse what it refuses, for each of P-256, P-384 and P-521.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, randomBytes } from 'node:crypto';
import { generateKeyPair } from '../support/keys.js';
import { FidoError } from '../../src/errors/catalogue.js';
import type { CborEncodable } from '../../src/webauthn/cbor-encode.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { ecPointOnCurve, importCosePublicKey } from '../../src/webauthn/cose-key.js';
import type { EcCurve } from '../../src/webauthn/cose.js';
import { coseKeyMapFromKeyObject } from '../support/cose-keys.js';

// The curve constants restated from FIDO-independent sources (FIPS 186-5 / SEC 2), so that a typo in
// src/webauthn/cose.ts cannot hide behind the same typo here; OpenSSL confirms the points made from them.
const CURVES: readonly {
  readonly curve: EcCurve;
  readonly alg: number;
  readonly size: number;
  readonly p: bigint;
  readonly b: bigint;
}[] = [
  {
    curve: 'P-256',
    alg: -7,
    size: 32,
    p: 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n,
    b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn,
  },
  {
    curve: 'P-384',
    alg: -35,
    size: 48,
    p: 2n ** 384n - 2n ** 128n - 2n ** 96n + 2n ** 32n - 1n,
    b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn,
  },
  {
    curve: 'P-521',
    alg: -36,
    size: 66,
    p: 2n ** 521n - 1n,
    b: 0x51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00n,
  },
];

const bytes = (v: bigint, size: number) => Buffer.from(v.toString(16).padStart(size * 2, '0'), 'hex');
const toBig = (b: Buffer) => BigInt(`0x${b.toString('hex')}`);

function powMod(base: bigint, exp: bigint, p: bigint): bigint {
  let result = 1n;
  let a = base % p;
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * a) % p;
    a = (a * a) % p;
  }
  return result;
}

/** The point with the smallest x ≥ `from` (all three primes are 3 mod 4: √a = a^((p+1)/4) when a is a square). */
function pointFrom(from: bigint, p: bigint, b: bigint): { x: bigint; y: bigint } {
  for (let x = from; x < from + 1000n; x++) {
    const rhs = ((((x * x - 3n) * x + b) % p) + p) % p;
    const y = powMod(rhs, (p + 1n) / 4n, p);
    if ((y * y) % p === rhs) return { x, y };
  }
  throw new Error('no point within 1000 steps (about one x in two has one)');
}

/** Does OpenSSL import (x, y) as a key of `curve`? */
function opensslAccepts(curve: EcCurve, x: Buffer, y: Buffer): boolean {
  try {
    createPublicKey({
      key: { kty: 'EC', crv: curve, x: x.toString('base64url'), y: y.toString('base64url') },
      format: 'jwk',
    });
    return true;
  } catch {
    return false;
  }
}

function realPoint(curve: EcCurve): { x: Buffer; y: Buffer } {
  const jwk = generateKeyPair({ type: 'ec', curve }).publicKey.export({ format: 'jwk' });
  return { x: Buffer.from(jwk.x!, 'base64url'), y: Buffer.from(jwk.y!, 'base64url') };
}

function coseWith(alg: number, curve: EcCurve, x: Buffer, y: Buffer): Buffer {
  const map = coseKeyMapFromKeyObject(alg, generateKeyPair({ type: 'ec', curve }).publicKey) as Map<
    number,
    CborEncodable
  >;
  map.set(-2, x);
  map.set(-3, y);
  return encodeCbor(map);
}

const refusedAtParse = (cose: Buffer) =>
  assert.throws(
    () => importCosePublicKey(cose),
    (err: unknown) => err instanceof FidoError && err.code === 'USER_PUBLIC_KEY_INVALID_KEY_SPEC',
  );

describe('ecPointOnCurve', () => {
  for (const { curve, alg, size, p, b } of CURVES) {
    it(`${curve}: accepts real keys and their negations (x, p − y)`, () => {
      for (let i = 0; i < 8; i++) {
        const { x, y } = realPoint(curve);
        assert.equal(ecPointOnCurve(curve, x, y), true);
        const negated = bytes(p - toBig(y), size);
        assert.equal(ecPointOnCurve(curve, x, negated), true);
        assert.equal(opensslAccepts(curve, x, negated), true);
      }
    });

    it(`${curve}: refuses points off the curve, as OpenSSL does`, () => {
      for (let i = 0; i < 8; i++) {
        const { x, y } = realPoint(curve);
        const damaged = Buffer.from(y);
        damaged[size - 1] = damaged[size - 1]! ^ 1;
        assert.equal(ecPointOnCurve(curve, x, damaged), false);
        assert.equal(opensslAccepts(curve, x, damaged), false);
        refusedAtParse(coseWith(alg, curve, x, damaged));
        // Random coordinates: almost never a point, and the two checks must agree either way.
        const rx = randomBytes(size);
        const ry = randomBytes(size);
        if (curve === 'P-521') {
          rx[0] = rx[0]! & 1;
          ry[0] = ry[0]! & 1;
        }
        assert.equal(ecPointOnCurve(curve, rx, ry), opensslAccepts(curve, rx, ry));
      }
    });

    it(`${curve}: a point found from the curve equation is accepted; the same point with x + p is refused`, () => {
      // A small x: its coordinate is mostly leading zero bytes, which must count (sizes are exact, not minimal).
      const { x, y } = pointFrom(3n, p, b);
      assert.equal(ecPointOnCurve(curve, bytes(x, size), bytes(y, size)), true);
      assert.equal(opensslAccepts(curve, bytes(x, size), bytes(y, size)), true, 'the test constants are right');
      assert.equal(
        importCosePublicKey(coseWith(alg, curve, bytes(x, size), bytes(y, size))).keyObject.asymmetricKeyType,
        'ec',
      );
      // x + p ≡ x (mod p) satisfies the equation, but a coordinate must be below p (SEC 1 §3.2.2.1).
      assert.equal(ecPointOnCurve(curve, bytes(x + p, size), bytes(y, size)), false);
      assert.equal(opensslAccepts(curve, bytes(x + p, size), bytes(y, size)), false);
      refusedAtParse(coseWith(alg, curve, bytes(x + p, size), bytes(y, size)));
      // y + p fits in the coordinate size only when y is small enough; P-521's 7 spare bits always allow it.
      if (y + p < 2n ** BigInt(size * 8)) {
        assert.equal(ecPointOnCurve(curve, bytes(x, size), bytes(y + p, size)), false);
        refusedAtParse(coseWith(alg, curve, bytes(x, size), bytes(y + p, size)));
      }
      assert.equal(ecPointOnCurve(curve, bytes(p, size), bytes(p, size)), false);
    });

    it(`${curve}: refuses coordinates of the wrong length`, () => {
      const { x, y } = realPoint(curve);
      assert.equal(ecPointOnCurve(curve, x.subarray(1), y), false);
      assert.equal(ecPointOnCurve(curve, x, Buffer.concat([Buffer.alloc(1), y])), false);
      assert.equal(ecPointOnCurve(curve, Buffer.alloc(0), Buffer.alloc(0)), false);
    });

    it(`${curve}: refuses the zero point and the one-byte encoding of the point at infinity`, () => {
      const zero = Buffer.alloc(size);
      assert.equal(ecPointOnCurve(curve, zero, zero), false);
      assert.equal(opensslAccepts(curve, zero, zero), false);
      refusedAtParse(coseWith(alg, curve, zero, zero));
      assert.equal(ecPointOnCurve(curve, Buffer.alloc(1), Buffer.alloc(1)), false);
    });
  }

  it('refuses a point of one curve checked against another', () => {
    const p256 = realPoint('P-256');
    assert.equal(ecPointOnCurve('P-384', p256.x, p256.y), false);
    const p384 = realPoint('P-384');
    assert.equal(
      ecPointOnCurve('P-521', Buffer.concat([Buffer.alloc(18), p384.x]), Buffer.concat([Buffer.alloc(18), p384.y])),
      false,
    );
  });
});
