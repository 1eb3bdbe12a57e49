// Keeps the browser helper's sentences in step with the one error catalogue: every name the service or the
// relay can answer has a sentence of its own kind, none falls to the "something went wrong" default.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sentenceKeyOf } from '@passkey-server/browser';
import { RELAY_ERRORS } from '@passkey-server/relay';
import { ERRORS } from '../../src/errors.js';

describe('packages: a user sentence for every error name', () => {
  it('every name of src/errors.ts and of the relay has a sentence other than the default', () => {
    const names = [...Object.keys(ERRORS), ...Object.keys(RELAY_ERRORS)];
    assert.ok(names.length > 100);
    assert.deepEqual(
      names.filter((name) => sentenceKeyOf(name) === 'unknown'),
      [],
    );
  });
});
