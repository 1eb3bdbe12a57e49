// The request schemas compiled by http/validation.ts: the first failure becomes INVALID_REQUEST_BODY with a
// detail that names the field and says what it must be; a conforming body comes out in the ceremonies' shape.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FidoError } from '../../src/errors/catalogue.js';
import { compileRequestReaders } from '../../src/http/validation.js';
import { dotted } from '../../src/schemas/details.js';

const read = compileRequestReaders({ usernameLength: 32, displayNameLength: 16 });

function refused(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof FidoError && error.code === 'INVALID_REQUEST_BODY', String(error));
    return error.detail ?? '';
  }
  assert.fail('the body was accepted');
}

const assertion = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA', userHandle: 'AAAA' },
};
const attestation = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', attestationObject: 'AAAA', transports: ['usb', 'nfc', 'usb'] },
};
const withResponse = (response: Record<string, unknown>) => ({
  ...assertion,
  response: { ...assertion.response, ...response },
});

describe('request schemas: the detail of the first failure', () => {
  it('names the field by its dotted path and says what it must be', () => {
    assert.equal(
      refused(() => read.assertionResult(withResponse({ clientDataJSON: 'ab+c' }))),
      'response.clientDataJSON must be a non-empty base64url string',
    );
    assert.equal(
      refused(() => read.assertionResult(withResponse({ signature: 'A' }))),
      'response.signature must be a non-empty base64url string',
    );
    assert.equal(
      refused(() => read.assertionResult({ ...assertion, type: 'public_key' })),
      'type must be the string "public-key"',
    );
    assert.equal(
      refused(() => read.assertionResult({ ...assertion, response: [] })),
      'response must be an object',
    );
    assert.equal(
      refused(() => read.assertionResult({ ...assertion, id: 'A'.repeat(1368) })),
      'id must be at most 1364 characters',
    );
    assert.equal(
      refused(() => read.assertionResult(withResponse({ userHandle: 'A'.repeat(88) }))),
      'response.userHandle must be a base64url string of at most 64 bytes, or null',
    );
    assert.equal(
      refused(() => read.assertionResult({ ...assertion, authenticatorAttachment: 1 })),
      'authenticatorAttachment must be a string or null',
    );
    assert.equal(
      refused(() => read.assertionResult({ ...assertion, clientExtensionResults: [] })),
      'clientExtensionResults must be an object',
    );
  });

  it('a missing field reads like a wrong one; the body itself is "the request body"', () => {
    const { rawId: _, ...noRawId } = assertion;
    assert.equal(
      refused(() => read.assertionResult(noRawId)),
      'rawId must be a non-empty base64url string',
    );
    assert.equal(
      refused(() => read.attestationResult([])),
      'The request body must be a JSON object',
    );
    assert.equal(
      refused(() => read.attestationOptions(null)),
      'The request body must be a JSON object',
    );
  });

  it('array items by index, bounds by their number, enumerations by their values', () => {
    assert.equal(
      refused(() =>
        read.attestationResult({ ...attestation, response: { ...attestation.response, transports: ['usb', 'u s b'] } }),
      ),
      'response.transports[1] must be a transport name (1-32 characters of A-Z a-z 0-9 _ -)',
    );
    assert.equal(
      refused(() =>
        read.attestationResult({
          ...attestation,
          response: { ...attestation.response, transports: Array(17).fill('usb') },
        }),
      ),
      'response.transports must hold at most 16 items',
    );
    assert.equal(
      refused(() => read.attestationOptions({ username: 'a'.repeat(33) })),
      'username must be at most 32 characters',
    );
    assert.equal(
      refused(() => read.attestationOptions({ username: 'a', displayName: 'a\u007fb' })),
      'displayName must not contain control characters',
    );
    assert.equal(
      refused(() => read.attestationOptions({ username: 'a', authenticatorSelection: { residentKey: 'always' } })),
      'authenticatorSelection.residentKey must be one of "discouraged", "preferred", "required"',
    );
  });
});

describe("request schemas: a conforming body in the ceremonies' shape", () => {
  it('authenticatorSelection keeps only the members WebAuthn defines; transports lose their doubles', () => {
    const options = read.attestationOptions({
      username: 'a#x',
      authenticatorSelection: { residentKey: 'required', extra: 1 },
      futureField: 'x',
    });
    assert.deepEqual(options.authenticatorSelection, { residentKey: 'required' });
    assert.deepEqual(read.attestationResult(attestation).response.transports, ['usb', 'nfc']);
  });

  it('extension results: `extensions` first, else the W3C spellings; the local marker only from `extensions`', () => {
    assert.deepEqual(read.assertionResult({ ...assertion, extensions: { localhost: 'blob' } }).localMarker, 'blob');
    const fallback = read.assertionResult({
      ...assertion,
      clientExtensionResults: { localhost: 'blob', credProps: { rk: true } },
    });
    assert.deepEqual(
      [fallback.extensions, fallback.localMarker],
      [{ localhost: 'blob', credProps: { rk: true } }, undefined],
    );
    assert.deepEqual(read.attestationResult({ ...attestation, getClientExtensionResults: { a: 1 } }).extensions, {
      a: 1,
    });
    assert.deepEqual(read.assertionResult(assertion).extensions, {});
  });

  it('an empty or null user handle is kept as sent', () => {
    assert.equal(read.assertionResult(withResponse({ userHandle: '' })).response.userHandle, '');
    assert.equal(read.assertionResult(withResponse({ userHandle: null })).response.userHandle, null);
  });
});

describe('JSON Pointer to a dotted path', () => {
  it('object keys with dots, array indexes in brackets, escapes undone', () => {
    assert.equal(dotted(''), '');
    assert.equal(dotted('/response/transports/3'), 'response.transports[3]');
    assert.equal(dotted('/a~1b/c~0d'), 'a/b.c~d');
  });
});
