// What a user is shown as "who" (issue 33): never `#domain`. The display name the service keeps, else the
// name before the last `#`; and renamePasskey() refuses a name outside the service's rule before sending.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGLISH_SENTENCES, PasskeyError, renamePasskey, shownName } from '../src/index.js';

describe('browser helper: the name a user is shown', () => {
  it('is the display name of the answer’s signals when there is one', () => {
    const answer = {
      username: 'alice#idp.example.com',
      signals: {
        currentUserDetails: {
          rpId: 'idp.example.com',
          userId: 'x',
          name: 'alice#idp.example.com',
          displayName: ' Alice Liddell ',
        },
      },
    };
    assert.equal(shownName(answer), 'Alice Liddell');
  });

  it('else the user name before its last #, never the domain', () => {
    assert.equal(shownName({ username: 'alice#idp.example.com' }), 'alice');
    assert.equal(shownName({ username: 'bob#localhost', signals: { currentUserDetails: { displayName: '' } } }), 'bob');
    assert.equal(shownName({ username: 'c#d#idp.example.com' }), 'c#d');
    assert.equal(shownName({}), '');
    assert.equal(shownName(null), '');
  });
});

describe('browser helper: renamePasskey() checks the name first', () => {
  for (const nickname of ['', '   ', 'x'.repeat(65), 'line\nbreak', 5 as unknown as string]) {
    it(`refuses ${JSON.stringify(nickname).slice(0, 20)} with INVALID_NICKNAME, sending nothing`, async () => {
      const error = await renamePasskey({ credentialId: 'abc', nickname, relay: 'http://127.0.0.1:9/nowhere' }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof PasskeyError);
      assert.equal(error.name, 'INVALID_NICKNAME');
      assert.equal(error.message, ENGLISH_SENTENCES.nickname);
    });
  }
});
