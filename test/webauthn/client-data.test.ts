// §7.1 steps 5-6 and 11, §7.2 steps 8-9 and 20: parsing collected client data.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { FidoError, type ErrorName } from '../../src/errors/catalogue.js';
import { parseClientData } from '../../src/webauthn/client-data.js';

const encode = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const base = {
  type: 'webauthn.create',
  challenge: 'Y2hhbGxlbmdlLWJ5dGVzLTEyMzQ1Njc4OTAxMjM0NTY',
  origin: 'https://login.example.test',
};
const fails = (input: string, code: ErrorName, detail?: RegExp) =>
  assert.throws(
    () => parseClientData(input),
    (err: unknown) => err instanceof FidoError && err.code === code && (!detail || detail.test(err.detail ?? '')),
  );

describe('parseClientData (§7.1 steps 5-6, §7.2 steps 8-9)', () => {
  it("parses a browser's client data and hashes the exact bytes once (§7.1 step 11)", () => {
    const text = JSON.stringify({ ...base, crossOrigin: false, other_keys_can_be_added_here: 'x' });
    const c = parseClientData(encode(text));
    assert.equal(c.type, 'webauthn.create');
    assert.equal(c.challenge, base.challenge);
    assert.equal(c.origin, base.origin);
    assert.equal(c.crossOrigin, false);
    assert.equal(c.topOrigin, undefined);
    assert.equal(c.tokenBinding, undefined);
    assert.deepEqual(c.raw, Buffer.from(text));
    assert.deepEqual(c.hash, createHash('sha256').update(text).digest());
  });

  it('reads crossOrigin, topOrigin and a well-formed tokenBinding', () => {
    const c = parseClientData(
      encode({
        ...base,
        crossOrigin: true,
        topOrigin: 'https://top.example',
        tokenBinding: { status: 'present', id: 'abc' },
      }),
    );
    assert.equal(c.crossOrigin, true);
    assert.equal(c.topOrigin, 'https://top.example');
    assert.deepEqual(c.tokenBinding, { status: 'present', id: 'abc' });
    for (const status of ['supported', 'not-supported']) {
      assert.deepEqual(parseClientData(encode({ ...base, tokenBinding: { status } })).tokenBinding, { status });
    }
  });

  it('reads the string forms older clients sent as a status (Level 3 reserves the member; docs/conformance.md)', () => {
    for (const status of ['unused', 'supported', 'not-supported', 'present']) {
      assert.deepEqual(parseClientData(encode({ ...base, tokenBinding: status })).tokenBinding, { status });
    }
  });

  it('refuses bad base64url: padding, standard alphabet, impossible length, empty', () => {
    const good = encode(base);
    fails(`${good}==`, 'INVALID_FORMAT_CLIENT_DATA_JSON', /base64url/);
    fails(
      `${Buffer.from(JSON.stringify(base)).toString('base64').replace(/[-_]/g, '+')}/`,
      'INVALID_FORMAT_CLIENT_DATA_JSON',
    );
    fails('abcde', 'INVALID_FORMAT_CLIENT_DATA_JSON', /base64url/);
    fails('', 'INVALID_FORMAT_CLIENT_DATA_JSON', /empty/);
    fails(`x${good}`, 'INVALID_FORMAT_CLIENT_DATA_JSON');
  });

  it('refuses bytes that are not UTF-8, not JSON, or not a JSON object', () => {
    fails(Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url'), 'INVALID_FORMAT_CLIENT_DATA_JSON', /UTF-8/);
    fails(encode('{"type":'), 'INVALID_FORMAT_CLIENT_DATA_JSON', /JSON/);
    fails(encode('[1,2]'), 'INVALID_FORMAT_CLIENT_DATA_JSON', /object/);
    fails(encode('null'), 'INVALID_FORMAT_CLIENT_DATA_JSON', /object/);
    fails(encode('"text"'), 'INVALID_FORMAT_CLIENT_DATA_JSON', /object/);
    fails(encode('['.repeat(10000)), 'INVALID_FORMAT_CLIENT_DATA_JSON', /JSON/);
  });

  it('refuses type, challenge or origin missing, not a string, or empty (conformance Resp-2 F-1..F-3, F-6..F-8, F-11..F-13)', () => {
    for (const field of ['type', 'challenge', 'origin'] as const) {
      fails(
        encode({ ...base, [field]: undefined }),
        'INVALID_FORMAT_CLIENT_DATA_JSON',
        new RegExp(`${field} is missing`),
      );
      for (const wrong of [{}, [], 42, true])
        fails(
          encode({ ...base, [field]: wrong }),
          'INVALID_FORMAT_CLIENT_DATA_JSON',
          new RegExp(`${field} must be a string`),
        );
      fails(
        encode({ ...base, [field]: '' }),
        'INVALID_FORMAT_CLIENT_DATA_JSON',
        new RegExp(`${field} must not be empty`),
      );
    }
  });

  it('refuses a challenge that is not base64url (conformance Resp-2 F-9)', () => {
    fails(encode({ ...base, challenge: `${base.challenge}==` }), 'INVALID_FORMAT_CLIENT_DATA_JSON', /challenge/);
    fails(encode({ ...base, challenge: 'a+b/c' }), 'INVALID_FORMAT_CLIENT_DATA_JSON', /challenge/);
  });

  it('refuses crossOrigin that is not a boolean and topOrigin that is not a string', () => {
    fails(encode({ ...base, crossOrigin: 'true' }), 'INVALID_FORMAT_CLIENT_DATA_JSON', /crossOrigin/);
    fails(encode({ ...base, crossOrigin: null }), 'INVALID_FORMAT_CLIENT_DATA_JSON', /crossOrigin/);
    fails(encode({ ...base, topOrigin: 1 }), 'INVALID_FORMAT_CLIENT_DATA_JSON', /topOrigin/);
  });

  it('refuses a tokenBinding that is not an object or lacks a valid status with TOKEN_BINDING_STATUS_MISSING (Resp-2 F-15..F-17)', () => {
    for (const tb of ['bogus', '', 1, [], null, true])
      fails(encode({ ...base, tokenBinding: tb }), 'TOKEN_BINDING_STATUS_MISSING');
    fails(encode({ ...base, tokenBinding: {} }), 'TOKEN_BINDING_STATUS_MISSING');
    fails(encode({ ...base, tokenBinding: { status: 'unknown' } }), 'TOKEN_BINDING_STATUS_MISSING');
    fails(encode({ ...base, tokenBinding: { status: 1 } }), 'TOKEN_BINDING_STATUS_MISSING');
    fails(encode({ ...base, tokenBinding: { status: 'present', id: 5 } }), 'INVALID_FORMAT_CLIENT_DATA_JSON');
  });
});
