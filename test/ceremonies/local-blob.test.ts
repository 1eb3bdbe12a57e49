// Unit tests of the `localhost` key blob: format, round trip, rotation and every named failure.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { FidoError, type ErrorName } from '../../src/errors/catalogue.js';
import {
  LOCAL_BLOB_MAX_CHARS,
  type LocalBlobKey,
  type LocalCredential,
  localCredentialFromRecord,
  openLocalCredential,
  recordFromLocalCredential,
  sealLocalCredential,
} from '../../src/ceremonies/local-blob.js';

const keyA: LocalBlobKey = { id: 'k2026-01', key: Buffer.alloc(32, 0xa1) };
const keyB: LocalBlobKey = { id: 'k2026-02', key: Buffer.alloc(32, 0xb2) };
const rng = (n: number) => randomBytes(n);

const credential: LocalCredential = {
  clientId: 'demo-client',
  rpId: 'localhost',
  userHandle: Buffer.alloc(32, 7).toString('base64url'),
  username: 'alice@example.test#localhost',
  credentialId: Buffer.alloc(32, 9).toString('base64url'),
  // A real-sized ES256 COSE_Key (77 bytes); content does not matter to the blob.
  publicKey: Buffer.concat([
    Buffer.from('a5010203262001215820', 'hex'),
    Buffer.alloc(32, 1),
    Buffer.from('225820', 'hex'),
    Buffer.alloc(32, 2),
  ]),
  algorithm: -7,
  signCount: 0,
  transports: ['internal', 'hybrid'],
  aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
  attestationFormat: 'packed',
  attestationType: 'self',
  attestationTrusted: false,
  backupEligible: true,
  backupState: true,
  userVerified: true,
  residentKey: true,
  createdAt: 1_795_000_000_000,
};

const expected = {
  clientId: credential.clientId,
  credentialId: credential.credentialId,
  userHandle: credential.userHandle,
};

function failsWith(fn: () => unknown, code: ErrorName): FidoError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof FidoError, `expected FidoError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.equal(caught.status, 400);
  assertNoKeyMaterial(caught.message);
  return caught;
}

function assertNoKeyMaterial(text: string): void {
  for (const { key } of [keyA, keyB]) {
    for (const encoding of ['hex', 'base64', 'base64url'] as const) {
      assert.ok(!text.includes(key.toString(encoding)), 'an error text includes key material');
    }
  }
}

function bytesOf(blob: string): Buffer {
  return Buffer.from(blob, 'base64url');
}

/** Header length of a blob sealed with keyA or keyB (both ids are 8 bytes): version, id length, id, u16. */
const HEADER = 2 + 8 + 2;

describe('local blob: sealing and opening', () => {
  it('round-trips every field of the credential', () => {
    const blob = sealLocalCredential(credential, [keyA], rng);
    assert.deepEqual(openLocalCredential(blob, [keyA], expected), {
      ...credential,
      publicKey: Buffer.from(credential.publicKey),
    });
  });

  it('round-trips edge values: residentKey null/false, no transports, RS1 and RSA-sized keys, large counters', () => {
    const variants: LocalCredential[] = [
      {
        ...credential,
        residentKey: null,
        transports: [],
        algorithm: -65535,
        backupEligible: false,
        backupState: false,
      },
      {
        ...credential,
        residentKey: false,
        algorithm: -257,
        publicKey: randomBytes(272),
        attestationType: 'basic',
        attestationTrusted: true,
      },
      {
        ...credential,
        username: `${'名'.repeat(4096)}#localhost`,
        transports: Array.from({ length: 16 }, (_, i) => `transport-${i}`),
      },
      {
        ...credential,
        algorithm: -8,
        signCount: 0xffffffff,
        userVerified: false,
        attestationType: 'none',
        attestationFormat: 'none',
        aaguid: '00000000-0000-0000-0000-000000000000',
        credentialId: randomBytes(1023).toString('base64url'),
        userHandle: randomBytes(64).toString('base64url'),
      },
    ];
    for (const variant of variants) {
      const opened = openLocalCredential(sealLocalCredential(variant, [keyA], rng), [keyA], {
        clientId: variant.clientId,
        credentialId: variant.credentialId,
        userHandle: variant.userHandle,
      });
      assert.deepEqual(opened, { ...variant, publicKey: Buffer.from(variant.publicKey) });
    }
  });

  it('is base64url, compact (an ES256 passkey fits in under 400 characters) and never the same twice', () => {
    const first = sealLocalCredential(credential, [keyA], rng);
    const second = sealLocalCredential(credential, [keyA], rng);
    assert.match(first, /^[A-Za-z0-9_-]+$/);
    assert.ok(first.length < 400, `blob is ${first.length} characters`);
    assert.notEqual(first, second, 'a fresh nonce makes every blob differ');
  });

  it('follows the documented layout: version 1, key id in clear, u16 length, nonce from randomBytes, AES-256-GCM with the header as AAD', () => {
    const nonce = Buffer.from('000102030405060708090a0b', 'hex');
    const bytes = bytesOf(
      sealLocalCredential(credential, [keyA], (n) => {
        assert.equal(n, 12);
        return Buffer.from(nonce);
      }),
    );
    assert.equal(bytes[0], 1);
    assert.equal(bytes[1], keyA.id.length);
    assert.equal(bytes.subarray(2, 2 + keyA.id.length).toString('utf8'), keyA.id);
    const sealedLength = bytes.readUInt16BE(2 + keyA.id.length);
    assert.deepEqual(bytes.subarray(HEADER, HEADER + 12), nonce);
    assert.equal(bytes.length, HEADER + 12 + sealedLength + 16);
    const decipher = createDecipheriv('aes-256-gcm', keyA.key, nonce);
    decipher.setAAD(bytes.subarray(0, HEADER));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    const plaintext = Buffer.concat([
      decipher.update(bytes.subarray(HEADER + 12, HEADER + 12 + sealedLength)),
      decipher.final(),
    ]);
    assert.ok(plaintext.includes(Buffer.from(credential.username)), 'the plaintext holds the username');
    assert.ok(!bytes.includes(Buffer.from(credential.username)), 'the blob does not show the username');
    assert.ok(!bytes.includes(Buffer.from(credential.publicKey)), 'the blob does not show the public key');
  });

  it('refuses to seal without a key, with a key of the wrong size or a bad key id, never quoting the key', () => {
    assert.throws(() => sealLocalCredential(credential, [], rng), /No local-blob key/);
    const short = { id: 'short', key: Buffer.alloc(16, 0x5c) };
    assert.throws(
      () => sealLocalCredential(credential, [short], rng),
      (error: Error) =>
        /32 bytes/.test(error.message) &&
        !error.message.includes(short.key.toString('hex')) &&
        !error.message.includes(short.key.toString('base64')),
    );
    assert.throws(() => sealLocalCredential(credential, [{ id: '', key: keyA.key }], rng), /key id/);
    assert.throws(() => sealLocalCredential(credential, [{ id: 'x'.repeat(256), key: keyA.key }], rng), /key id/);
    assert.throws(() => sealLocalCredential({ ...credential, username: 'u'.repeat(30_000) }, [keyA], rng), /too large/);
  });

  it("converts to and from the standard variant's credential record", () => {
    const record = recordFromLocalCredential(credential);
    assert.equal(record.cloneWarning, false);
    assert.equal(record.lastUsedAt, null);
    assert.equal('rpId' in record, false);
    assert.deepEqual(localCredentialFromRecord(record), credential);
  });
});

describe('local blob: key rotation', () => {
  it('the newest (first) key seals; every configured key opens', () => {
    const old = sealLocalCredential(credential, [keyA], rng);
    const rotated = [keyB, keyA];
    const fresh = sealLocalCredential(credential, rotated, rng);
    assert.equal(bytesOf(fresh).subarray(2, 10).toString(), keyB.id);
    assert.equal(openLocalCredential(old, rotated, expected).username, credential.username);
    assert.equal(openLocalCredential(fresh, rotated, expected).username, credential.username);
  });

  it('LOCAL_BLOB_KEY_UNKNOWN once the sealing key is retired, naming the key id only', () => {
    const old = sealLocalCredential(credential, [keyA], rng);
    const error = failsWith(() => openLocalCredential(old, [keyB], expected), 'LOCAL_BLOB_KEY_UNKNOWN');
    assert.match(error.message, /k2026-01/);
  });

  it('LOCAL_BLOB_KEY_UNKNOWN does not echo an unprintable key id', () => {
    const bytes = bytesOf(sealLocalCredential(credential, [{ id: 'a b\n<script>', key: keyA.key }], rng));
    const error = failsWith(
      () => openLocalCredential(bytes.toString('base64url'), [keyA], expected),
      'LOCAL_BLOB_KEY_UNKNOWN',
    );
    assert.ok(!error.message.includes('<script>'));
  });

  it('LOCAL_BLOB_TAMPERED when the key id is switched to another configured key (the header is authenticated)', () => {
    const bytes = bytesOf(sealLocalCredential(credential, [keyA], rng));
    bytes.write(keyB.id, 2, 'utf8');
    failsWith(() => openLocalCredential(bytes.toString('base64url'), [keyA, keyB], expected), 'LOCAL_BLOB_TAMPERED');
  });
});

describe('local blob: named failures', () => {
  const blob = sealLocalCredential(credential, [keyA], rng);

  it('LOCAL_BLOB_MISSING for absent, null or empty', () => {
    for (const value of [undefined, null, ''])
      failsWith(() => openLocalCredential(value, [keyA], expected), 'LOCAL_BLOB_MISSING');
  });

  it('LOCAL_BLOB_NOT_STRING for true (the attestation marker), numbers, objects and arrays', () => {
    const error = failsWith(() => openLocalCredential(true, [keyA], expected), 'LOCAL_BLOB_NOT_STRING');
    assert.match(error.message, /attestation result/);
    for (const value of [1, false, {}, [blob], Buffer.from(blob)]) {
      failsWith(() => openLocalCredential(value, [keyA], expected), 'LOCAL_BLOB_NOT_STRING');
    }
  });

  it('LOCAL_BLOB_MALFORMED for text that is not strict base64url, or absurdly long', () => {
    for (const value of [
      `${blob}=`,
      `${blob.slice(0, -1)}+`,
      `${blob.slice(0, -1)}/`,
      ` ${blob}`,
      `${blob}.`,
      'A',
      'é'.repeat(10),
      blob.slice(0, 4 * 20 + 1),
    ]) {
      failsWith(() => openLocalCredential(value, [keyA], expected), 'LOCAL_BLOB_MALFORMED');
    }
    failsWith(
      () => openLocalCredential('A'.repeat(LOCAL_BLOB_MAX_CHARS + 4), [keyA], expected),
      'LOCAL_BLOB_MALFORMED',
    );
  });

  it('LOCAL_BLOB_MALFORMED for a blob truncated at any length, or with trailing bytes', () => {
    const bytes = bytesOf(blob);
    for (let length = 1; length < bytes.length; length += 1) {
      const error = failsWith(
        () => openLocalCredential(bytes.subarray(0, length).toString('base64url'), [keyA], expected),
        'LOCAL_BLOB_MALFORMED',
      );
      if (length >= HEADER) assert.match(error.message, /truncated/);
    }
    const longer = Buffer.concat([bytes, Buffer.from([0])]).toString('base64url');
    assert.match(
      failsWith(() => openLocalCredential(longer, [keyA], expected), 'LOCAL_BLOB_MALFORMED').message,
      /trailing/,
    );
  });

  it('LOCAL_BLOB_MALFORMED for an empty key id in the header', () => {
    failsWith(
      () => openLocalCredential(Buffer.from([1, 0, 0, 0]).toString('base64url'), [keyA], expected),
      'LOCAL_BLOB_MALFORMED',
    );
  });

  it('LOCAL_BLOB_VERSION_UNSUPPORTED for any version other than 1', () => {
    for (const version of [0, 2, 255]) {
      const bytes = bytesOf(blob);
      bytes[0] = version;
      const error = failsWith(
        () => openLocalCredential(bytes.toString('base64url'), [keyA], expected),
        'LOCAL_BLOB_VERSION_UNSUPPORTED',
      );
      assert.match(error.message, new RegExp(`version ${version}`));
    }
  });

  it('LOCAL_BLOB_TAMPERED for any single flipped bit in the nonce, ciphertext or tag', () => {
    const bytes = bytesOf(blob);
    for (let index = HEADER; index < bytes.length; index += 1) {
      for (const bit of [0x01, 0x80]) {
        const altered = Buffer.from(bytes);
        altered[index]! ^= bit;
        failsWith(() => openLocalCredential(altered.toString('base64url'), [keyA], expected), 'LOCAL_BLOB_TAMPERED');
      }
    }
  });

  it('LOCAL_BLOB_TAMPERED when the sealed length is changed and the body padded to match', () => {
    const bytes = bytesOf(blob);
    const altered = Buffer.concat([bytes, Buffer.alloc(1)]);
    altered.writeUInt16BE(bytes.readUInt16BE(HEADER - 2) + 1, HEADER - 2);
    failsWith(() => openLocalCredential(altered.toString('base64url'), [keyA], expected), 'LOCAL_BLOB_TAMPERED');
  });

  it('LOCAL_BLOB_TAMPERED for a blob sealed by another deployment under the same key id', () => {
    const foreign = sealLocalCredential(credential, [{ id: keyA.id, key: Buffer.alloc(32, 0x33) }], rng);
    failsWith(() => openLocalCredential(foreign, [keyA], expected), 'LOCAL_BLOB_TAMPERED');
  });

  it('LOCAL_BLOB_MALFORMED when authentic content does not parse (never trusted half-read)', () => {
    const header = Buffer.from([1, keyA.id.length, ...Buffer.from(keyA.id), 0, 3]);
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyA.key, nonce);
    cipher.setAAD(header);
    const sealed = Buffer.concat([cipher.update(Buffer.from([0xff, 0, 0])), cipher.final()]);
    const forged = Buffer.concat([header, nonce, sealed, cipher.getAuthTag()]).toString('base64url');
    const error = failsWith(() => openLocalCredential(forged, [keyA], expected), 'LOCAL_BLOB_MALFORMED');
    assert.match(error.message, /unreadable/);
  });

  it('LOCAL_BLOB_APPLICATION_MISMATCH for a blob issued to another Client ID', () => {
    failsWith(
      () => openLocalCredential(blob, [keyA], { ...expected, clientId: 'other-client' }),
      'LOCAL_BLOB_APPLICATION_MISMATCH',
    );
  });

  it('LOCAL_BLOB_CREDENTIAL_MISMATCH for a blob of another credential id', () => {
    failsWith(
      () => openLocalCredential(blob, [keyA], { ...expected, credentialId: Buffer.alloc(32, 8).toString('base64url') }),
      'LOCAL_BLOB_CREDENTIAL_MISMATCH',
    );
    failsWith(
      () => openLocalCredential(blob, [keyA], { ...expected, credentialId: 'not base64url!' }),
      'LOCAL_BLOB_CREDENTIAL_MISMATCH',
    );
  });

  it('LOCAL_BLOB_USER_MISMATCH for a blob issued to another user; the user is not checked when not given', () => {
    failsWith(
      () => openLocalCredential(blob, [keyA], { ...expected, userHandle: Buffer.alloc(32, 6).toString('base64url') }),
      'LOCAL_BLOB_USER_MISMATCH',
    );
    const { userHandle: _omitted, ...withoutUser } = expected;
    assert.equal(openLocalCredential(blob, [keyA], withoutUser).userHandle, credential.userHandle);
  });

  it('checks the application before the credential and the credential before the user', () => {
    const wrong = {
      clientId: 'other',
      credentialId: Buffer.alloc(4).toString('base64url'),
      userHandle: Buffer.alloc(4).toString('base64url'),
    };
    failsWith(() => openLocalCredential(blob, [keyA], wrong), 'LOCAL_BLOB_APPLICATION_MISMATCH');
    failsWith(
      () => openLocalCredential(blob, [keyA], { ...wrong, clientId: expected.clientId }),
      'LOCAL_BLOB_CREDENTIAL_MISMATCH',
    );
  });
});
