// Error names → sentences for users: the name and the service's description stay for logs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeFailure, ENGLISH_SENTENCES, sentenceKeyOf, userMessage } from '../src/index.js';

describe("browser helper: sentences for the service's error names", () => {
  it('reads the envelope: name and detail for logs, a sentence for the user', () => {
    const failure = describeFailure({
      status: 'failed',
      errorMessage: ['ORIGIN_NOT_MATCHED', 'clientDataJSON.origin https://a.test is not listed'],
      sessionId: 's',
    });
    assert.deepEqual(failure, {
      name: 'ORIGIN_NOT_MATCHED',
      detail: 'clientDataJSON.origin https://a.test is not listed',
      message: ENGLISH_SENTENCES.pageAddress,
    });
  });

  it('names whose sentences differ get different sentences', () => {
    assert.equal(sentenceKeyOf('RATE_LIMITED'), 'tooMany');
    assert.equal(sentenceKeyOf('CHALLENGE_NOT_MATCHED'), 'expired');
    assert.equal(sentenceKeyOf('CERTIFICATE_EXPIRED'), 'authenticatorRefused');
    assert.equal(sentenceKeyOf('LOCAL_BLOB_TAMPERED'), 'localBlob');
    assert.equal(sentenceKeyOf('RELAY_UPSTREAM_TIMEOUT'), 'unavailable');
    assert.equal(sentenceKeyOf('CLIENT_ID_UNKNOWN'), 'siteSetup');
    assert.equal(sentenceKeyOf('INVALID_AUTHENTICATOR_DATA'), 'unreadable');
  });

  it('sentences are replaceable, key by key, with English for the rest', () => {
    const german = { tooMany: 'Zu viele Versuche. Bitte warten Sie einen Moment.' };
    assert.equal(userMessage('RATE_LIMITED', german), german.tooMany);
    assert.equal(userMessage('DUPLICATED_CREDENTIAL_ID', german), ENGLISH_SENTENCES.duplicate);
    assert.equal(
      describeFailure({ status: 'failed', errorMessage: ['RATE_LIMITED', 'x'] }, german).message,
      german.tooMany,
    );
  });

  it('a name it does not know, a bare string, or no envelope at all: still one sentence, nothing thrown', () => {
    assert.deepEqual(describeFailure({ status: 'failed', errorMessage: ['SOMETHING_NEW', 'later version'] }), {
      name: 'SOMETHING_NEW',
      detail: 'later version',
      message: ENGLISH_SENTENCES.unknown,
    });
    assert.deepEqual(describeFailure({ status: 'failed', errorMessage: 'RATE_LIMITED' }), {
      name: 'RATE_LIMITED',
      detail: '',
      message: ENGLISH_SENTENCES.tooMany,
    });
    assert.deepEqual(describeFailure({ status: 'failed', errorMessage: 'Bad gateway' }), {
      name: '',
      detail: 'Bad gateway',
      message: ENGLISH_SENTENCES.unknown,
    });
    assert.deepEqual(describeFailure('<html>502</html>'), { name: '', detail: '', message: ENGLISH_SENTENCES.unknown });
    assert.deepEqual(describeFailure(null), { name: '', detail: '', message: ENGLISH_SENTENCES.unknown });
  });
});
