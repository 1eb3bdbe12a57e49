// Key pairs built from raw material (test/support/keys.ts): valid, of the requested kind, and usable for
// export and signing right after creation (the Node 20 deadlock they exist to avoid).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sign, verify } from 'node:crypto';
import { generateKeyPair, type KeyKind } from './keys.js';

const KINDS: readonly KeyKind[] = [
  { type: 'ec', curve: 'P-256' },
  { type: 'ec', curve: 'P-384' },
  { type: 'ec', curve: 'P-521' },
  { type: 'ec', curve: 'secp256k1' },
  { type: 'ed25519' },
  { type: 'rsa', modulusLength: 2048 },
];

function describeKind(kind: KeyKind): string {
  return kind.type === 'ec' ? `EC ${kind.curve}` : kind.type === 'rsa' ? `RSA-${kind.modulusLength}` : 'Ed25519';
}

describe('generateKeyPair', () => {
  for (const kind of KINDS) {
    it(`${describeKind(kind)}: a matching pair that signs and verifies`, () => {
      const { privateKey, publicKey } = generateKeyPair(kind);
      const data = Buffer.from('to be signed');
      const hash = kind.type === 'ed25519' ? null : 'sha256';
      const signature = sign(hash, data, privateKey);
      assert.equal(verify(hash, data, publicKey, signature), true);
      assert.equal(verify(hash, Buffer.from('other data'), publicKey, signature), false);
      const details = publicKey.asymmetricKeyDetails ?? {};
      if (kind.type === 'ec')
        assert.equal(
          details.namedCurve,
          ({ 'P-256': 'prime256v1', 'P-384': 'secp384r1', 'P-521': 'secp521r1', secp256k1: 'secp256k1' } as const)[
            kind.curve
          ],
        );
      if (kind.type === 'rsa') {
        assert.equal(details.modulusLength, kind.modulusLength);
        assert.equal(details.publicExponent, 65537n);
      }
      assert.equal(publicKey.asymmetricKeyType, kind.type === 'ec' ? 'ec' : kind.type);
    });
  }

  it('draws a new key every time', () => {
    const a = generateKeyPair({ type: 'ec', curve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const b = generateKeyPair({ type: 'ec', curve: 'P-256' }).publicKey.export({ format: 'jwk' });
    assert.notDeepEqual(a, b);
  });

  it('keys can be exported as JWK at once, many times over, while the collector runs', () => {
    // With generateKeyPairSync this pattern hung at random on Node 20; a hang fails the file by its timeout.
    for (let i = 0; i < 200; i += 1) {
      const { publicKey } = generateKeyPair(i % 2 ? { type: 'ec', curve: 'P-256' } : { type: 'ed25519' });
      assert.equal(typeof publicKey.export({ format: 'jwk' }).x, 'string');
    }
  });
});
