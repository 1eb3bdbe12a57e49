// The bounded cache of imported credential keys.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPair } from '../support/keys.js';
import { KeyCache } from '../../src/ceremonies/key-cache.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { coseKeyMapFromKeyObject } from '../support/cose-keys.js';

const coseKey = () =>
  encodeCbor(coseKeyMapFromKeyObject(-7, generateKeyPair({ type: 'ec', curve: 'P-256' }).publicKey));

describe('KeyCache', () => {
  it('imports a key once per (client, credential) and returns the same KeyObject after', () => {
    const cache = new KeyCache(10);
    const cose = coseKey();
    const first = cache.get('c', 'id1', cose);
    assert.equal(cache.get('c', 'id1', cose), first);
    assert.equal(cache.imports, 1);
    cache.get('other-client', 'id1', cose);
    assert.equal(cache.imports, 2);
  });

  it('never serves a stale key when the same id arrives with other key bytes', () => {
    const cache = new KeyCache(10);
    const a = cache.get('c', 'id', coseKey());
    const b = cache.get('c', 'id', coseKey());
    assert.notEqual(a, b);
    assert.equal(cache.size, 1);
  });

  it('stays within its capacity, dropping the least recently used entry', () => {
    const cache = new KeyCache(2);
    const k1 = coseKey();
    const k2 = coseKey();
    const k3 = coseKey();
    cache.get('c', '1', k1);
    cache.get('c', '2', k2);
    cache.get('c', '1', k1); // 1 is now the most recent
    cache.get('c', '3', k3); // evicts 2
    assert.equal(cache.size, 2);
    const imports = cache.imports;
    cache.get('c', '1', k1);
    assert.equal(cache.imports, imports);
    cache.get('c', '2', k2);
    assert.equal(cache.imports, imports + 1);
  });

  it("throws the importer's FidoError for bytes that are not a COSE key", () => {
    const cache = new KeyCache(2);
    assert.throws(() => cache.get('c', 'x', Buffer.from([1, 2, 3])), { code: 'USER_PUBLIC_KEY_INVALID_KEY_SPEC' });
    assert.equal(cache.size, 0);
  });
});
