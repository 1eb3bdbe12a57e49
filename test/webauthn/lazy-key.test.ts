// The credential key's KeyObject is made only when something needs it: a `none` registration never
// imports it, packed self verifies with it, and authentication gets it through importCosePublicKey.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import crypto, { randomBytes } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { generateKeyPair } from '../support/keys.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { verifySignature } from '../../src/webauthn/cose.js';
import { coseKeyMapFromKeyObject } from '../support/cose-keys.js';
import { parseAuthenticatorData } from '../../src/webauthn/authenticator-data.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { signWith } from '../support/statements/sign.js';
import { authenticate, register } from './helpers.js';

/**
 * Counts the key imports (node:crypto createPublicKey calls) from here to the end of the test. The spy
 * replaces the CommonJS export, and syncBuiltinESMExports carries it to the `import { createPublicKey }`
 * bindings of the ES modules (src/webauthn/cose.ts); both are put back after the test.
 */
function countImports(t: TestContext): () => number {
  const spy = t.mock.method(crypto, 'createPublicKey');
  syncBuiltinESMExports();
  t.after(() => {
    spy.mock.restore();
    syncBuiltinESMExports();
  });
  return () => spy.mock.callCount();
}

const p256 = () => generateKeyPair({ type: 'ec', curve: 'P-256' });

describe('lazy credential key import', () => {
  it('a none registration parses and verifies without importing the key; the first authentication imports it', (t) => {
    const auth = new SoftAuthenticator({ fmt: 'none' });
    const keyPair = p256(); // made before counting: making a key pair imports its public half
    const imports = countImports(t);
    const r = register(auth, { keyPair });
    assert.equal(r.verified.attestationType, 'none');
    assert.equal(imports(), 0);
    assert.equal(authenticate(auth, r).signCount, 1);
    assert.equal(imports(), 1);
  });

  it('a packed self registration imports the key to verify its signature, once; authentication reuses it', (t) => {
    const auth = new SoftAuthenticator({ fmt: 'packed' });
    const keyPair = p256();
    const imports = countImports(t);
    const r = register(auth, { keyPair });
    assert.equal(r.verified.attestationType, 'self');
    assert.equal(imports(), 1);
    assert.equal(authenticate(auth, r).signCount, 1);
    assert.equal(imports(), 1, 'the KeyObject is kept on the parsed key');
  });

  it('parseAuthenticatorData checks the key without importing it; the KeyObject is made once and kept', (t) => {
    const { privateKey, publicKey } = generateKeyPair({ type: 'ec', curve: 'P-384' });
    const cose = encodeCbor(coseKeyMapFromKeyObject(-35, publicKey));
    const credentialId = randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const flagsUpAt = Buffer.from([0x41]);
    const authData = Buffer.concat([
      randomBytes(32),
      flagsUpAt,
      Buffer.alloc(4),
      randomBytes(16),
      idLength,
      credentialId,
      cose,
    ]);
    const imports = countImports(t);
    const key = parseAuthenticatorData(authData).attestedCredentialData!.publicKey;
    assert.equal(imports(), 0);
    const first = key.keyObject;
    assert.equal(key.keyObject, first, 'the same KeyObject on every read');
    assert.equal(imports(), 1);
    assert.ok(first.equals(publicKey));
    const data = randomBytes(64);
    assert.equal(verifySignature(-35, first, data, signWith(-35, privateKey, data)), true);
  });
});
