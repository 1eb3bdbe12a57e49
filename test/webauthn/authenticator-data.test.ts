// Authenticator data (§6.1), parsed for §7.1 step 12 and §7.2 step 7; conformance Resp-3 F-9..F-12.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { generateKeyPair } from '../support/keys.js';
import { FidoError, type ErrorName } from '../../src/errors/catalogue.js';
import { formatAaguid, parseAuthenticatorData } from '../../src/webauthn/authenticator-data.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { coseKeyMapFromKeyObject } from '../support/cose-keys.js';

const rpIdHash = createHash('sha256').update('login.example.test').digest();
const aaguid = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
const cose = encodeCbor(coseKeyMapFromKeyObject(-7, generateKeyPair({ type: 'ec', curve: 'P-256' }).publicKey));

export function authData(parts: {
  flags: number;
  signCount?: number;
  credentialId?: Buffer;
  key?: Buffer;
  ext?: Buffer;
  tail?: Buffer;
  idLength?: number;
  attested?: boolean;
}): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(parts.signCount ?? 7);
  const id = parts.credentialId ?? Buffer.alloc(16, 0xab);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(parts.idLength ?? id.length);
  const attested = parts.attested === false ? Buffer.alloc(0) : Buffer.concat([aaguid, len, id, parts.key ?? cose]);
  return Buffer.concat([
    rpIdHash,
    Buffer.from([parts.flags]),
    count,
    attested,
    parts.ext ?? Buffer.alloc(0),
    parts.tail ?? Buffer.alloc(0),
  ]);
}

const fails = (bytes: Buffer, code: ErrorName, detail?: RegExp) =>
  assert.throws(
    () => parseAuthenticatorData(bytes),
    (err: unknown) => err instanceof FidoError && err.code === code && (!detail || detail.test(err.detail ?? '')),
  );

describe('parseAuthenticatorData', () => {
  it('parses rpIdHash, every flag, the counter and attested credential data', () => {
    const bytes = authData({ flags: 0x5d, signCount: 0x01020304 });
    const a = parseAuthenticatorData(bytes);
    assert.deepEqual(a.rpIdHash, rpIdHash);
    assert.deepEqual(a.flags, { up: true, uv: true, be: true, bs: true, at: true, ed: false });
    assert.equal(a.signCount, 0x01020304);
    assert.deepEqual(a.attestedCredentialData?.aaguid, aaguid);
    assert.deepEqual(a.attestedCredentialData?.credentialId, Buffer.alloc(16, 0xab));
    assert.equal(a.attestedCredentialData?.publicKey.alg, -7);
    assert.deepEqual(a.attestedCredentialData?.publicKey.cose, cose);
    assert.equal(a.extensions, undefined);
    assert.deepEqual(a.raw, bytes);
    assert.equal(formatAaguid(aaguid), '00112233-4455-6677-8899-aabbccddeeff');
  });

  it('parses assertion data (37 bytes) and the extension map after the COSE key (Resp-3 P-1)', () => {
    const a = parseAuthenticatorData(authData({ flags: 0x01, attested: false, signCount: 0xffffffff }));
    assert.equal(a.attestedCredentialData, undefined);
    assert.equal(a.signCount, 0xffffffff);
    const ext = encodeCbor(new Map([['example.extension', 'value']]));
    const withExt = parseAuthenticatorData(authData({ flags: 0xc1, ext }));
    assert.deepEqual(withExt.extensions, new Map([['example.extension', 'value']]));
    const assertionExt = parseAuthenticatorData(authData({ flags: 0x81, attested: false, ext: encodeCbor(new Map()) }));
    assert.deepEqual(assertionExt.extensions, new Map());
  });

  it('refuses data shorter than 37 bytes', () => {
    fails(Buffer.alloc(0), 'INVALID_AUTHENTICATOR_DATA');
    fails(Buffer.alloc(36), 'INVALID_AUTHENTICATOR_DATA', /36 bytes/);
  });

  it('refuses attested credential data with the AT flag clear (Resp-3 F-9)', () => {
    fails(authData({ flags: 0x01 }), 'INVALID_AUTHENTICATOR_DATA', /trailing.*AT and ED/);
  });

  it('refuses the AT flag with no attested credential data (Resp-3 F-11)', () => {
    fails(authData({ flags: 0x41, attested: false }), 'CREDENTIAL_NOT_INCLUDED');
  });

  it('refuses trailing bytes after attested credential data or extensions (Resp-3 F-12, Resp-3 assertion F-1)', () => {
    fails(authData({ flags: 0x41, tail: Buffer.alloc(32, 1) }), 'INVALID_AUTHENTICATOR_DATA', /32 unexpected trailing/);
    fails(
      authData({ flags: 0xc1, ext: encodeCbor(new Map()), tail: Buffer.from([0]) }),
      'INVALID_AUTHENTICATOR_DATA',
      /trailing/,
    );
    fails(
      authData({ flags: 0x01, attested: false, tail: Buffer.from([1, 2]) }),
      'INVALID_AUTHENTICATOR_DATA',
      /trailing/,
    );
  });

  it('refuses truncated attested credential data at every boundary', () => {
    const full = authData({ flags: 0x41 });
    for (const cut of [38, 37 + 16, 37 + 17, 37 + 18, 37 + 18 + 8, 37 + 18 + 16, full.length - 1]) {
      assert.throws(() => parseAuthenticatorData(full.subarray(0, cut)), FidoError, `cut at ${cut}`);
    }
    fails(full.subarray(0, 37 + 18 + 16), 'INVALID_AUTHENTICATOR_DATA', /no credential public key/);
    fails(full.subarray(0, full.length - 1), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
  });

  it('refuses a credential id length of 0 or above 1023, and one longer than the data', () => {
    fails(authData({ flags: 0x41, idLength: 0, credentialId: Buffer.alloc(0) }), 'INVALID_CREDENTIAL_ID_LENGTH');
    fails(authData({ flags: 0x41, credentialId: Buffer.alloc(1024, 1) }), 'INVALID_CREDENTIAL_ID_LENGTH');
    assert.doesNotThrow(() => parseAuthenticatorData(authData({ flags: 0x41, credentialId: Buffer.alloc(1023, 1) })));
    fails(authData({ flags: 0x41, idLength: 1000 }), 'INVALID_AUTHENTICATOR_DATA', /truncated/);
  });

  it('refuses a COSE key that is not a CBOR map or is malformed CBOR', () => {
    fails(authData({ flags: 0x41, key: encodeCbor([1]) }), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    fails(authData({ flags: 0x41, key: Buffer.from([0xbf, 0xff]) }), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
    fails(authData({ flags: 0x41, key: Buffer.alloc(40, 0x81) }), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
  });

  it('refuses the ED flag without extensions, and extensions that are not a well-formed map', () => {
    fails(authData({ flags: 0xc1 }), 'INVALID_AUTHENTICATOR_DATA', /ED flag/);
    fails(authData({ flags: 0xc1, ext: encodeCbor([1]) }), 'INVALID_EXTENSION_DATA');
    fails(authData({ flags: 0xc1, ext: Buffer.from([0xa1, 0x01]) }), 'INVALID_EXTENSION_DATA');
    fails(authData({ flags: 0xc1, ext: Buffer.from([0xa2, 0x01, 0x01, 0x01, 0x02]) }), 'INVALID_EXTENSION_DATA');
  });
});
