// Keeps the browser helper's sentences in step with the one error catalogue: every name the service or the
// relay can answer has a sentence of its own kind, none falls to the "something went wrong" default; a
// configuration error of the site gets the configuration sentence, never one that blames the user.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGLISH_SENTENCES, sentenceKeyOf, userMessage } from '@passkey-server/browser';
import { RELAY_ERRORS } from '@passkey-server/relay';
import { ERRORS } from '../../src/errors/catalogue.js';

describe('packages: a user sentence for every error name', () => {
  it('every name of src/errors/catalogue.ts and of the relay has a sentence other than the default', () => {
    const names = [...Object.keys(ERRORS), ...Object.keys(RELAY_ERRORS)];
    assert.ok(names.length > 100);
    assert.deepEqual(
      names.filter((name) => sentenceKeyOf(name) === 'unknown'),
      [],
    );
  });

  it("configuration errors (the relay's origin, Client ID, paths, RP ID) say so and do not blame the user", () => {
    const configuration = [
      'ORIGIN_NOT_ALLOWED',
      'INVALID_ORIGIN',
      'ORIGIN_HEADER_MISSING',
      'CLIENT_ID_UNKNOWN',
      'CLIENT_ID_MISSING',
      'RPID_HASH_NOT_MATCHED',
      'NOT_FOUND',
      'UNSUPPORTED_MEDIA_TYPE',
      'RELAY_INVALID_RESPONSE',
      'INSECURE_CONTEXT',
      'SecurityError',
    ];
    for (const name of configuration) {
      assert.equal(sentenceKeyOf(name), 'siteSetup', name);
    }
    assert.match(userMessage('ORIGIN_NOT_ALLOWED'), /not set up correctly\. This is not your fault/);
    assert.doesNotMatch(userMessage('ORIGIN_NOT_ALLOWED'), /usual address/);
    // A user's mistake keeps a sentence about what the user can do.
    assert.equal(userMessage('INVALID_USERNAME'), ENGLISH_SENTENCES.username);
    assert.equal(userMessage('RELAY_UNREACHABLE'), ENGLISH_SENTENCES.offline);
    assert.notEqual(ENGLISH_SENTENCES.siteSetup, ENGLISH_SENTENCES.username);
  });
});
