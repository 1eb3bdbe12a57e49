// A credential public key (COSE_Key) must be in its one shortest encoding: an integer or length written in a
// longer head than it needs (kty 2 as 0x18 0x02) is refused at registration, over a real socket, with
// USER_PUBLIC_KEY_INVALID_KEY_SPEC (issue 23). The strict decoder refuses it only where asked (COSE keys).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCbor, DEFAULT_CBOR_LIMITS } from '../../src/webauthn/cbor.js';
import { encodeCbor, type CborEncodable } from '../../src/webauthn/cbor-encode.js';
import { COSE_KEY_CBOR_LIMITS } from '../../src/webauthn/cose-key.js';
import { Flow, expectFailure, expectOk, username } from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';

/** Rewrites the COSE key at the end of authData (no extensions): `edit` gets and returns its bytes. */
function editCoseKey(credential: any, edit: (key: Buffer) => Buffer): any {
  const map = decodeCbor(Buffer.from(credential.response.attestationObject, 'base64url')) as Map<string, unknown>;
  const authData = map.get('authData') as Buffer;
  const idLength = authData.readUInt16BE(53);
  const keyStart = 55 + idLength;
  map.set('authData', Buffer.concat([authData.subarray(0, keyStart), edit(authData.subarray(keyStart))]));
  credential.response.attestationObject = encodeCbor(map as unknown as CborEncodable).toString('base64url');
  return credential;
}

describe('COSE keys in their shortest encoding only (real socket)', () => {
  let h: SocketHarness;
  before(async () => {
    h = await SocketHarness.start();
  });
  after(() => h.close());

  it('kty 2 written as 0x18 0x02, alg -7 as 0x39 0x00 0x06: USER_PUBLIC_KEY_INVALID_KEY_SPEC, nothing stored', async () => {
    const edits: [string, (key: Buffer) => Buffer][] = [
      ['kty', (key) => Buffer.concat([key.subarray(0, 2), Buffer.from([0x18, 0x02]), key.subarray(3)])],
      ['alg', (key) => Buffer.concat([key.subarray(0, 4), Buffer.from([0x39, 0x00, 0x06]), key.subarray(5)])],
      ['map length', (key) => Buffer.concat([Buffer.from([0xb8, 0x05]), key.subarray(1)])],
    ];
    for (const [what, edit] of edits) {
      const flow = new Flow(h, username(`cose-${what.replace(' ', '-')}`));
      const { res, credential } = await flow.register({}, {}, (c) =>
        editCoseKey(c, (key) => {
          // A P-256 key as the soft authenticator writes it: a5 01 02 03 26 20 01 21 58 20 … 22 58 20 …
          assert.deepEqual([...key.subarray(0, 5)], [0xa5, 0x01, 0x02, 0x03, 0x26], what);
          return edit(key);
        }),
      );
      const detail = expectFailure(res, 'USER_PUBLIC_KEY_INVALID_KEY_SPEC', 400);
      assert.match(detail, /non-minimal/, what);
      assert.equal(await h.deps.credentials.find('test-client', credential.id), undefined);
    }
    // The same key in its shortest form registers.
    expectOk((await new Flow(h, username('cose-minimal')).register()).res);
  });

  it('the decoder refuses a long head only where asked', () => {
    const long = Buffer.from([0xa1, 0x01, 0x18, 0x02]);
    assert.deepEqual(decodeCbor(long, DEFAULT_CBOR_LIMITS), new Map([[1, 2]]));
    assert.throws(() => decodeCbor(long, COSE_KEY_CBOR_LIMITS), /non-minimal/);
    assert.throws(() => decodeCbor(Buffer.from([0x1b, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]), COSE_KEY_CBOR_LIMITS));
    assert.equal(decodeCbor(Buffer.from([0x1b, 0, 0, 0, 1, 0, 0, 0, 0]), COSE_KEY_CBOR_LIMITS), 2 ** 32);
  });
});
