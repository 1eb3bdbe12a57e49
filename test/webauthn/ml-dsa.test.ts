// The two ML-DSA verifiers give the same answers (where the runtime has node:crypto's), and AKP keys
// (RFC 9964) are parsed against the algorithm table like every other key.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { DEFAULT_OFFERED_ALGORITHMS, isPostQuantum, verifySignature } from '../../src/webauthn/cose.js';
import { importCosePublicKey } from '../../src/webauthn/cose-key.js';
import {
  ML_DSA_SIZES,
  MlDsaPublicKey,
  NODE_ML_DSA,
  NOBLE_ML_DSA,
  runtimeHasMlDsa,
  type MlDsaLevel,
} from '../../src/webauthn/ml-dsa.js';
import { generateMlDsaKeyPair } from '../support/ml-dsa-keys.js';
import { FidoError } from '../../src/errors/catalogue.js';

const LEVELS: readonly { level: MlDsaLevel; alg: number }[] = [
  { level: 44, alg: -48 },
  { level: 65, alg: -49 },
  { level: 87, alg: -50 },
];

function akp(alg: number, pub: Buffer, extra: [number, number | Buffer][] = []): Buffer {
  return encodeCbor(new Map<number, number | Buffer>([[1, 7], [3, alg], [-1, pub], ...extra]));
}

function specError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof FidoError);
    return err.code;
  }
  assert.fail('expected a FidoError');
}

describe('ML-DSA verifiers', () => {
  for (const { level, alg } of LEVELS) {
    it(`ML-DSA-${level}: the pure-JS verifier accepts a good signature, refuses a damaged one, never throws`, () => {
      const { privateKey, publicKey } = generateMlDsaKeyPair(level);
      const data = randomBytes(100);
      const sig = privateKey.sign(data);
      assert.equal(sig.length, ML_DSA_SIZES[level].signature);
      assert.equal(verifySignature(alg, publicKey, data, sig, NOBLE_ML_DSA), true);
      const damaged = Buffer.from(sig);
      damaged[10]! ^= 1;
      assert.equal(verifySignature(alg, publicKey, data, damaged, NOBLE_ML_DSA), false);
      assert.equal(verifySignature(alg, publicKey, Buffer.concat([data, Buffer.from([0])]), sig, NOBLE_ML_DSA), false);
      assert.equal(verifySignature(alg, publicKey, data, sig.subarray(1), NOBLE_ML_DSA), false);
      assert.equal(verifySignature(alg, publicKey, data, Buffer.alloc(0), NOBLE_ML_DSA), false);
      // The key of one level under another level's alg.
      const other = alg === -48 ? -49 : -48;
      assert.equal(verifySignature(other, publicKey, data, sig, NOBLE_ML_DSA), false);
    });
  }

  it('node:crypto has ML-DSA on Node.js 24.7 and later, none before', () => {
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    assert.equal(runtimeHasMlDsa(), major > 24 || (major === 24 && minor >= 7));
    if (!runtimeHasMlDsa()) {
      // Without ML-DSA in the runtime the node:crypto verifier answers false, never throws.
      const { privateKey, publicKey } = generateMlDsaKeyPair(44);
      assert.equal(NODE_ML_DSA.verify(publicKey, Buffer.from('x'), privateKey.sign(Buffer.from('x'))), false);
    }
  });

  if (runtimeHasMlDsa()) {
    for (const { level, alg } of LEVELS) {
      it(`ML-DSA-${level}: node:crypto and @noble/post-quantum give the same answers on each other's signatures`, () => {
        const noble = generateMlDsaKeyPair(level);
        const native = generateKeyPairSync(`ml-dsa-${level}`);
        const nativePub = Buffer.from(String(native.publicKey.export({ format: 'jwk' }).pub), 'base64url');
        const pairs = [
          { key: noble.publicKey, signer: (d: Buffer) => noble.privateKey.sign(d) },
          { key: new MlDsaPublicKey(level, nativePub), signer: (d: Buffer) => sign(null, d, native.privateKey) },
        ];
        for (const { key, signer } of pairs) {
          for (let i = 0; i < 4; i++) {
            const data = randomBytes(37 + i);
            const good = signer(data);
            const bad = Buffer.from(good);
            bad[i * 97]! ^= 0x40;
            for (const [sig, expected] of [
              [good, true],
              [bad, false],
            ] as const) {
              assert.equal(verifySignature(alg, key, data, sig, NODE_ML_DSA), expected);
              assert.equal(verifySignature(alg, key, data, sig, NOBLE_ML_DSA), expected);
            }
          }
        }
      });
    }
  }
});

describe('AKP credential keys (RFC 9964)', () => {
  it('are offered only when configured', () => {
    for (const { alg } of LEVELS) {
      assert.equal(isPostQuantum(alg), true);
      assert.equal(DEFAULT_OFFERED_ALGORITHMS.includes(alg), false);
    }
    assert.equal(isPostQuantum(-7), false);
  });

  for (const { level, alg } of LEVELS) {
    it(`ML-DSA-${level}: a ${ML_DSA_SIZES[level].publicKey}-byte pub parses; every other shape is refused`, () => {
      const { publicKey } = generateMlDsaKeyPair(level);
      const key = importCosePublicKey(akp(alg, publicKey.raw));
      assert.equal(key.alg, alg);
      assert.ok(key.key instanceof MlDsaPublicKey);
      assert.deepEqual((key.key as MlDsaPublicKey).raw, publicKey.raw);
      const refused = [
        akp(alg, publicKey.raw.subarray(1)),
        akp(alg, Buffer.concat([publicKey.raw, Buffer.alloc(1)])),
        akp(alg, publicKey.raw, [[-2, Buffer.alloc(32)]]),
        encodeCbor(
          new Map<number, number | Buffer>([
            [1, 1],
            [3, alg],
            [-1, publicKey.raw],
          ]),
        ),
        encodeCbor(
          new Map<number, number | Buffer>([
            [1, 7],
            [3, alg],
          ]),
        ),
      ];
      for (const cose of refused)
        assert.equal(
          specError(() => importCosePublicKey(cose)),
          'USER_PUBLIC_KEY_INVALID_KEY_SPEC',
        );
      assert.throws(() => importCosePublicKey(akp(alg, publicKey.raw)).keyObject, FidoError);
    });
  }
});
