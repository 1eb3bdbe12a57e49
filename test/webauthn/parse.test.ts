// parseRegistration / parseAuthentication: the attestation object (§7.1 step 12), id/rawId, and the
// assertion fields (§7.2 step 7). Conformance Resp-1 F-1..F-14, Resp-3 F-1..F-8, assertion Resp-1.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FidoError, type ErrorName } from '../../src/errors/catalogue.js';
import { decodeCbor } from '../../src/webauthn/cbor.js';
import type { CborEncodable } from '../../src/webauthn/cbor-encode.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { parseClientData } from '../../src/webauthn/client-data.js';
import { parseAuthentication, parseRegistration } from '../../src/webauthn/parse.js';
import type { AuthenticationCredentialJSON, RegistrationCredentialJSON } from '../../src/webauthn/types.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { creationOptions, register, requestOptions } from './helpers.js';

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

function fresh(): RegistrationCredentialJSON {
  return new SoftAuthenticator({ fmt: 'packed' }).register(creationOptions());
}

function withAttestationObject(
  json: RegistrationCredentialJSON,
  edit: (m: Map<string, CborEncodable>) => void,
): RegistrationCredentialJSON {
  const m = decodeCbor(Buffer.from(json.response.attestationObject, 'base64url')) as Map<string, CborEncodable>;
  edit(m);
  return { ...json, response: { ...json.response, attestationObject: b64u(encodeCbor(m)) } };
}

function regFails(json: RegistrationCredentialJSON, code: ErrorName, detail?: RegExp): void {
  const clientData = parseClientData(json.response.clientDataJSON);
  assert.throws(
    () => parseRegistration(json, clientData),
    (err: unknown) => err instanceof FidoError && err.code === code && (!detail || detail.test(err.detail ?? '')),
  );
}

describe('parseRegistration (§7.1 step 12)', () => {
  it('parses a well-formed response into fmt, attStmt, authData, transports and extensions', () => {
    const json = fresh();
    const p = parseRegistration(json, parseClientData(json.response.clientDataJSON));
    assert.equal(p.attestationObject.fmt, 'packed');
    assert.ok(p.attestationObject.attStmt.has('sig'));
    assert.deepEqual(p.credentialId, Buffer.from(json.id, 'base64url'));
    assert.deepEqual(p.transports, ['internal', 'hybrid']);
    assert.deepEqual(p.extensions, { credProps: { rk: true } });
  });

  it('refuses an attestationObject that is not base64url or not CBOR (Resp-3 F-1)', () => {
    const json = fresh();
    regFails(
      { ...json, response: { ...json.response, attestationObject: `!!${json.response.attestationObject}` } },
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /base64url/,
    );
    regFails(
      { ...json, response: { ...json.response, attestationObject: `AAAA${json.response.attestationObject}` } },
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /CBOR/,
    );
    regFails(
      { ...json, response: { ...json.response, attestationObject: '' } },
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /empty/,
    );
    regFails(
      { ...json, response: { ...json.response, attestationObject: b64u(encodeCbor([1])) } },
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /map/,
    );
    const truncated = Buffer.from(json.response.attestationObject, 'base64url');
    regFails(
      { ...json, response: { ...json.response, attestationObject: b64u(truncated.subarray(0, truncated.length - 5)) } },
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /truncated|declared length/,
    );
  });

  it('refuses hostile CBOR in attestationObject: deep nesting, huge declared lengths, duplicate keys, indefinite lengths', () => {
    const json = fresh();
    const as = (bytes: Buffer) => ({ ...json, response: { ...json.response, attestationObject: b64u(bytes) } });
    regFails(as(Buffer.alloc(5000, 0x81)), 'INVALID_FORMAT_ATTESTATION_OBJECT', /nesting/);
    regFails(
      as(Buffer.from([0xa1, 0x63, 0x66, 0x6d, 0x74, 0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])),
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /declared length/,
    );
    regFails(
      as(
        Buffer.concat([
          Buffer.from([0xa2]),
          encodeCbor('fmt'),
          encodeCbor('none'),
          encodeCbor('fmt'),
          encodeCbor('none'),
        ]),
      ),
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /duplicate/,
    );
    regFails(as(Buffer.from([0xbf, 0xff])), 'INVALID_FORMAT_ATTESTATION_OBJECT', /indefinite/);
  });

  it('refuses fmt missing or not text (Resp-3 F-2, F-3)', () => {
    regFails(
      withAttestationObject(fresh(), (m) => m.delete('fmt')),
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /fmt is missing/,
    );
    regFails(
      withAttestationObject(fresh(), (m) => m.set('fmt', 1)),
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /fmt must be/,
    );
  });

  it('refuses attStmt missing or not a map (Resp-3 F-4, F-5)', () => {
    regFails(
      withAttestationObject(fresh(), (m) => m.delete('attStmt')),
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /attStmt is missing/,
    );
    regFails(
      withAttestationObject(fresh(), (m) => m.set('attStmt', [])),
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /attStmt must be/,
    );
  });

  it('refuses authData missing, not bytes or empty (Resp-3 F-6..F-8)', () => {
    regFails(
      withAttestationObject(fresh(), (m) => m.delete('authData')),
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /authData is missing/,
    );
    regFails(
      withAttestationObject(fresh(), (m) => m.set('authData', 'text')),
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /byte string/,
    );
    regFails(
      withAttestationObject(fresh(), (m) => m.set('authData', Buffer.alloc(0))),
      'INVALID_FORMAT_ATTESTATION_OBJECT',
      /empty/,
    );
  });

  it('refuses authData without attested credential data (Resp-3 F-10: CREDENTIAL_NOT_INCLUDED)', () => {
    const json = withAttestationObject(fresh(), (m) => {
      const authData = m.get('authData') as Buffer;
      m.set('authData', Buffer.concat([authData.subarray(0, 32), Buffer.from([0x01]), authData.subarray(33, 37)]));
    });
    regFails(json, 'CREDENTIAL_NOT_INCLUDED');
  });

  it("refuses id and rawId that differ, or that differ from authData's credential id", () => {
    const auth = new SoftAuthenticator();
    regFails(
      auth.register(creationOptions(), { breaks: 'rawIdMismatch' }),
      'CREDENTIAL_ID_NOT_MATCHED',
      /id and rawId/,
    );
    regFails(
      auth.register(creationOptions(), { breaks: 'credentialIdMismatch' }),
      'CREDENTIAL_ID_NOT_MATCHED',
      /authenticator data/,
    );
  });

  it('refuses id/rawId that are not base64url or empty (Resp-1 F-3)', () => {
    const json = fresh();
    const padded = Buffer.from(json.id, 'base64url').toString('base64');
    regFails({ ...json, id: padded, rawId: padded }, 'INVALID_REQUEST_BODY');
    regFails({ ...json, id: '', rawId: '' }, 'INVALID_REQUEST_BODY');
  });

  it('refuses a credential id longer than 1023 bytes', () => {
    const long = b64u(Buffer.alloc(1024, 1));
    regFails({ ...fresh(), id: long, rawId: long }, 'INVALID_CREDENTIAL_ID_LENGTH');
  });
});

describe('parseAuthentication (§7.2 step 7)', () => {
  const auth = new SoftAuthenticator();
  const registered = register(auth);
  const assertion = (): AuthenticationCredentialJSON => auth.authenticate(requestOptions([registered.json.id]));
  const authFails = (json: AuthenticationCredentialJSON, code: ErrorName) =>
    assert.throws(
      () => parseAuthentication(json, parseClientData(json.response.clientDataJSON)),
      (err: unknown) => err instanceof FidoError && err.code === code,
    );

  it('parses authenticatorData, signature and userHandle', () => {
    const json = assertion();
    const p = parseAuthentication(json, parseClientData(json.response.clientDataJSON));
    assert.deepEqual(p.credentialId, registered.verified.credentialId);
    assert.equal(p.authenticatorData.raw.length, 37);
    assert.ok(p.signature.length > 0);
    assert.deepEqual(p.userHandle, Buffer.from(registered.options.user.id, 'base64url'));
  });

  it('treats an absent, null or empty userHandle as null', () => {
    for (const userHandle of [undefined, null, '']) {
      const json = assertion();
      const edited = { ...json, response: { ...json.response, userHandle } };
      assert.equal(parseAuthentication(edited, parseClientData(json.response.clientDataJSON)).userHandle, null);
    }
  });

  it('refuses authenticatorData or signature that is not base64url, empty or truncated (assertion Resp-1 F-14, F-15, F-18, F-19)', () => {
    const json = assertion();
    authFails(
      { ...json, response: { ...json.response, authenticatorData: `${json.response.authenticatorData}==` } },
      'INVALID_AUTHENTICATOR_DATA',
    );
    authFails({ ...json, response: { ...json.response, authenticatorData: '' } }, 'INVALID_AUTHENTICATOR_DATA');
    authFails(
      { ...json, response: { ...json.response, authenticatorData: json.response.authenticatorData.slice(0, 40) } },
      'INVALID_AUTHENTICATOR_DATA',
    );
    authFails(
      { ...json, response: { ...json.response, signature: `${json.response.signature}==` } },
      'INVALID_REQUEST_BODY',
    );
    authFails({ ...json, response: { ...json.response, signature: '' } }, 'INVALID_REQUEST_BODY');
    authFails({ ...json, response: { ...json.response, userHandle: 'a+b=' } }, 'INVALID_REQUEST_BODY');
  });

  it('refuses rawId different from id', () => {
    authFails(
      auth.authenticate(requestOptions([registered.json.id]), { breaks: 'rawIdMismatch' }),
      'CREDENTIAL_ID_NOT_MATCHED',
    );
  });
});
