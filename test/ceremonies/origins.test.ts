// Origin rules: standard = exactly the origin header; local = localOrigins, an entry without a port
// allowing any port of that scheme and host. Anything that is not exactly an origin never matches.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { exactOrigin, localOriginMatcher, requireStandardOrigin } from '../../src/ceremonies/origins.js';
import { parseUsername } from '../../src/ceremonies/username.js';
import { deriveUserHandle } from '../../src/ceremonies/user-handle.js';
import { fakeCredentialFor } from '../../src/ceremonies/fake-credential.js';
import { createTrustEvaluator } from '../../src/webauthn/trust.js';
import { applicationConfig } from '../support/harness.js';

describe('origins', () => {
  it('local: a port-less entry allows every port; a port entry only its port', () => {
    const match = localOriginMatcher(['https://localhost', 'https://dev.example.test:8443']);
    for (const ok of [
      'https://localhost',
      'https://localhost:8443',
      'https://localhost:1',
      'https://dev.example.test:8443',
    ])
      assert.equal(match(ok), true, ok);
    for (const bad of [
      'http://localhost',
      'https://localhost/',
      'https://localhost/path',
      'https://user@localhost',
      'https://localhost?x',
      'https://dev.example.test',
      'https://dev.example.test:9443',
      'https://localhost.evil.example',
      'null',
      '',
      'localhost',
    ])
      assert.equal(match(bad), false, bad);
  });

  it('standard: clientDataJSON.origin must equal the origin header exactly', () => {
    const match = exactOrigin('https://idp.example.test');
    assert.equal(match('https://idp.example.test'), true);
    assert.equal(match('https://idp.example.test:443'), false);
    assert.equal(match('https://IDP.example.test'), false);
  });

  it('standard: the origin header must be present and registered', () => {
    assert.throws(() => requireStandardOrigin(undefined, ['https://a.test']), { code: 'ORIGIN_HEADER_MISSING' });
    assert.throws(() => requireStandardOrigin('https://b.test', ['https://a.test']), { code: 'ORIGIN_NOT_ALLOWED' });
    assert.equal(requireStandardOrigin('https://a.test', ['https://a.test']), 'https://a.test');
  });
});

describe('username', () => {
  const app = { ...applicationConfig(), trust: createTrustEvaluator({ anchors: [], requireTrusted: false }) };

  it('splits at the last "#"', () => {
    assert.deepEqual(parseUsername('a#b#idp.example.test', app, true), {
      username: 'a#b#idp.example.test',
      user: 'a#b',
      variant: 'standard',
      rpId: 'idp.example.test',
    });
    assert.deepEqual(parseUsername('dev#localhost', app, true), {
      username: 'dev#localhost',
      user: 'dev',
      variant: 'local',
      rpId: 'localhost',
    });
  });

  it('refuses a missing "#", an empty user, another domain, and disallowed variants', () => {
    assert.throws(() => parseUsername('alice', app, true), { code: 'INVALID_USERNAME' });
    assert.throws(() => parseUsername('#localhost', app, true), { code: 'INVALID_USERNAME' });
    assert.throws(() => parseUsername('a#IDP.example.test', app, true), { code: 'RPID_NOT_FOUND' });
    assert.throws(() => parseUsername('a#localhost', app, false), { code: 'LOCAL_VARIANT_DISABLED' });
    assert.throws(() => parseUsername('a#localhost', { ...app, variants: ['standard'] }, true), {
      code: 'VARIANT_NOT_ALLOWED',
    });
    assert.throws(() => parseUsername('a#idp.example.test', { ...app, variants: ['local'] }, true), {
      code: 'VARIANT_NOT_ALLOWED',
    });
  });
});

describe('derived identifiers', () => {
  const key = Buffer.alloc(32, 1);
  it('user handles are stable, 32 bytes, and differ per client and per username', () => {
    const a = deriveUserHandle(key, 'c1', 'u#d');
    assert.equal(a, deriveUserHandle(key, 'c1', 'u#d'));
    assert.equal(Buffer.from(a, 'base64url').length, 32);
    assert.notEqual(a, deriveUserHandle(key, 'c2', 'u#d'));
    assert.notEqual(a, deriveUserHandle(key, 'c1', 'v#d'));
    assert.notEqual(a, deriveUserHandle(Buffer.alloc(32, 2), 'c1', 'u#d'));
  });

  it('fake credential ids are stable and unrelated to the user handle', () => {
    const fake = fakeCredentialFor(key, 'c1', 'u#d').id;
    assert.equal(fake, fakeCredentialFor(key, 'c1', 'u#d').id);
    assert.notEqual(fake, deriveUserHandle(key, 'c1', 'u#d').slice(0, fake.length));
    assert.notEqual(fake, fakeCredentialFor(key, 'c1', 'v#d').id);
  });
});
