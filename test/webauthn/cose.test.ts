// The COSE algorithm table: key import (§7.1 step 19's "alg"), and signature verification (§7.2 step 21).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { generateKeyPair } from '../support/keys.js';
import { FidoError, type ErrorName } from '../../src/errors/catalogue.js';
import type { CborEncodable } from '../../src/webauthn/cbor-encode.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import {
  COSE_ALGORITHMS,
  DEFAULT_OFFERED_ALGORITHMS,
  keyMatchesAlgorithm,
  verifySignature,
} from '../../src/webauthn/cose.js';
import { importCosePublicKey } from '../../src/webauthn/cose-key.js';
import { coseKeyMapFromKeyObject } from '../support/cose-keys.js';
import { generateKeyPairFor } from '../support/soft-authenticator.js';
import { signWith } from '../support/statements/sign.js';

// One RSA key serves every RSA algorithm here: the key does not depend on the hash or padding, and RSA
// key generation is by far the slowest part of these tests.
const rsaKey = generateKeyPairFor(-257);
const keyFor = (alg: number) =>
  alg === -37 || alg === -38 || alg === -39 || alg <= -257 ? rsaKey : generateKeyPairFor(alg);

const fails = (cose: Uint8Array, code: ErrorName) =>
  assert.throws(
    () => importCosePublicKey(cose),
    (err: unknown) => err instanceof FidoError && err.code === code,
  );

function p256Map(): Map<number, CborEncodable> {
  const { publicKey } = generateKeyPair({ type: 'ec', curve: 'P-256' });
  return coseKeyMapFromKeyObject(-7, publicKey) as Map<number, CborEncodable>;
}

describe('COSE algorithm table', () => {
  it('offers ES256, ES384, ES512, EdDSA, PS256-512, RS256-512 in that order, and RS1 only on request', () => {
    assert.deepEqual(DEFAULT_OFFERED_ALGORITHMS, [-7, -35, -36, -8, -37, -38, -39, -257, -258, -259]);
    assert.ok(COSE_ALGORITHMS.some((a) => a.alg === -65535 && a.name === 'RS1'));
  });

  for (const { alg, name } of COSE_ALGORITHMS) {
    it(`${name} (${alg}): imports its COSE key and verifies real signatures, refuses damaged ones`, () => {
      const { privateKey, publicKey } = keyFor(alg);
      const cose = encodeCbor(coseKeyMapFromKeyObject(alg, publicKey));
      const key = importCosePublicKey(cose);
      assert.equal(key.alg, alg);
      assert.deepEqual(key.cose, cose);
      assert.ok(keyMatchesAlgorithm(alg, key.key));
      const data = randomBytes(100);
      const sig = signWith(alg, privateKey, data);
      assert.equal(verifySignature(alg, key.key, data, sig), true);
      const damaged = Buffer.from(sig);
      damaged[damaged.length - 1] = damaged[damaged.length - 1]! ^ 1;
      assert.equal(verifySignature(alg, key.key, data, damaged), false);
      assert.equal(verifySignature(alg, key.key, Buffer.concat([data, Buffer.from([0])]), sig), false);
    });
  }
});

describe('verifySignature never throws', () => {
  it('returns false for garbage, empty and truncated signatures, unknown algs and mismatched keys', () => {
    const { privateKey, publicKey } = generateKeyPair({ type: 'ec', curve: 'P-256' });
    const data = Buffer.from('data');
    const sig = signWith(-7, privateKey, data);
    assert.equal(verifySignature(-7, publicKey, data, Buffer.alloc(0)), false);
    assert.equal(verifySignature(-7, publicKey, data, randomBytes(70)), false);
    assert.equal(verifySignature(-7, publicKey, data, sig.subarray(0, 10)), false);
    assert.equal(verifySignature(-42, publicKey, data, sig), false);
    assert.equal(verifySignature(-257, publicKey, data, sig), false);
    assert.equal(verifySignature(-8, publicKey, data, sig), false);
    assert.equal(verifySignature(-7, rsaKey.publicKey, data, sig), false);
  });

  it('does not accept PKCS#1 v1.5 signatures for PSS or the other way round', () => {
    const { privateKey, publicKey } = rsaKey;
    const data = Buffer.from('data');
    assert.equal(verifySignature(-37, publicKey, data, signWith(-257, privateKey, data)), false);
    assert.equal(verifySignature(-257, publicKey, data, signWith(-37, privateKey, data)), false);
  });
});

describe('importCosePublicKey refuses malformed keys', () => {
  it('refuses bytes that are not a CBOR map', () => {
    fails(Buffer.from([0xff]), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    fails(encodeCbor([1, 2]), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    fails(Buffer.concat([encodeCbor(p256Map()), Buffer.from([0])]), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
  });

  it('refuses a missing alg (USER_PUBLIC_KEY_INVALID_KEY_SPEC) and an unknown one (INVALID_COSE_ALGORITHM)', () => {
    const m = p256Map();
    m.delete(3);
    fails(encodeCbor(m), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    m.set(3, '-7');
    fails(encodeCbor(m), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    m.set(3, -42);
    fails(encodeCbor(m), 'INVALID_COSE_ALGORITHM');
    m.set(3, -47); // ES256K: not in the table
    fails(encodeCbor(m), 'INVALID_COSE_ALGORITHM');
  });

  it('refuses kty, crv and alg that disagree', () => {
    const wrongKty = p256Map();
    wrongKty.set(1, 3);
    fails(encodeCbor(wrongKty), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    const wrongCurve = p256Map();
    wrongCurve.set(-1, 2);
    fails(encodeCbor(wrongCurve), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    const secp256k1 = p256Map();
    secp256k1.set(-1, 8);
    fails(encodeCbor(secp256k1), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    const rsaAsEc = coseKeyMapFromKeyObject(-257, rsaKey.publicKey) as Map<number, CborEncodable>;
    rsaAsEc.set(3, -7);
    fails(encodeCbor(rsaAsEc), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    const edAsEc = coseKeyMapFromKeyObject(-8, generateKeyPairFor(-8).publicKey) as Map<number, CborEncodable>;
    edAsEc.set(-1, 7); // Ed448
    fails(encodeCbor(edAsEc), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
  });

  it('refuses coordinates of the wrong size, missing or not byte strings', () => {
    const short = p256Map();
    short.set(-2, Buffer.alloc(31, 1));
    fails(encodeCbor(short), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    const missing = p256Map();
    missing.delete(-3);
    fails(encodeCbor(missing), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    const text = p256Map();
    text.set(-2, 'x');
    fails(encodeCbor(text), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
  });

  it('refuses an EC point that is not on the curve', () => {
    const m = p256Map();
    const y = Buffer.from(m.get(-3) as Buffer);
    y[31] = y[31]! ^ 1;
    m.set(-3, y);
    fails(encodeCbor(m), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
  });

  it('refuses RSA public exponents that are even, 1 or absurdly long', () => {
    for (const e of [Buffer.from([1]), Buffer.from([2]), Buffer.from([0x01, 0x00, 0x00]), Buffer.alloc(9, 1)]) {
      const m = coseKeyMapFromKeyObject(-257, rsaKey.publicKey) as Map<number, CborEncodable>;
      m.set(-2, e);
      fails(encodeCbor(m), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    }
  });

  it('refuses RSA moduli below 2048 bits', () => {
    const { publicKey } = generateKeyPair({ type: 'rsa', modulusLength: 1024 });
    fails(encodeCbor(coseKeyMapFromKeyObject(-257, publicKey)), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
  });
});

/** The COSE key `map` with `label → value` prepended, each given as its raw CBOR encoding (e.g. a float). */
function withRawEntry(map: Map<number, CborEncodable>, rawLabel: string, rawValue: string): Buffer {
  const body = encodeCbor(map).subarray(1); // every key here has fewer than 23 entries: a one-byte header
  return Buffer.concat([Buffer.from([0xa0 + map.size + 1]), Buffer.from(rawLabel + rawValue, 'hex'), body]);
}

const failsWithDetail = (cose: Uint8Array, detail: RegExp) =>
  assert.throws(
    () => importCosePublicKey(cose),
    (err: unknown) =>
      err instanceof FidoError && err.code === 'USER_PUBLIC_KEY_INVALID_KEY_SPEC' && detail.test(err.detail ?? ''),
    `expected USER_PUBLIC_KEY_INVALID_KEY_SPEC matching ${detail}`,
  );

describe('COSE key labels and kty/alg/crv are integers (or text where COSE allows), never floating-point', () => {
  const without = (label: number) => {
    const m = p256Map();
    m.delete(label);
    return m;
  };

  it('refuses a floating-point label (1.0 for kty, -1.0 for crv)', () => {
    failsWithDetail(withRawEntry(without(1), 'f93c00', '02'), /floating-point/);
    failsWithDetail(withRawEntry(without(-1), 'f9bc00', '01'), /floating-point/);
    // The same entries with integer labels are the valid key.
    importCosePublicKey(withRawEntry(without(1), '01', '02'));
  });

  it('refuses floating-point kty, alg and crv values (2.0, -7.0, 1.0; half, single and double precision)', () => {
    failsWithDetail(withRawEntry(without(1), '01', 'f94000'), /floating-point/);
    failsWithDetail(withRawEntry(without(3), '03', 'f9c700'), /floating-point/);
    failsWithDetail(withRawEntry(without(3), '03', 'fac0e00000'), /floating-point/);
    failsWithDetail(withRawEntry(without(-1), '20', 'fb3ff0000000000000'), /floating-point/);
  });

  it('refuses labels that are neither integers nor text (a byte string, a boolean); accepts an extra text label', () => {
    failsWithDetail(withRawEntry(p256Map(), '4101', '01'), /label/);
    failsWithDetail(withRawEntry(p256Map(), 'f5', '01'), /label/);
    assert.equal(importCosePublicKey(withRawEntry(p256Map(), '63666f6f', '63626172')).alg, -7); // "foo": "bar"
  });

  it('names what was wrong with a text kty (EdDSA with kty "OKP")', () => {
    const ed = coseKeyMapFromKeyObject(-8, generateKeyPairFor(-8).publicKey) as Map<number, CborEncodable>;
    ed.set(1, 'OKP');
    failsWithDetail(encodeCbor(ed), /EdDSA needs kty OKP \(1\), got the text string "OKP"/);
    const ec = p256Map();
    ec.set(1, 'EC2');
    failsWithDetail(encodeCbor(ec), /ES256 needs kty EC2 \(2\), got the text string "EC2"/);
    ec.set(1, 3);
    failsWithDetail(encodeCbor(ec), /ES256 needs kty EC2 \(2\), got 3$/);
  });
});

describe('keyMatchesAlgorithm', () => {
  it('tells curves and key types apart', () => {
    const p384 = generateKeyPair({ type: 'ec', curve: 'P-384' }).publicKey;
    const k1 = generateKeyPair({ type: 'ec', curve: 'secp256k1' }).publicKey;
    assert.equal(keyMatchesAlgorithm(-35, p384), true);
    assert.equal(keyMatchesAlgorithm(-7, p384), false);
    assert.equal(keyMatchesAlgorithm(-7, k1), false);
    assert.equal(keyMatchesAlgorithm(-8, p384), false);
    assert.equal(keyMatchesAlgorithm(-42, p384), false);
  });
});
