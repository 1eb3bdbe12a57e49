// The Signal API helpers with fake browser globals: the arguments passed on exactly, the functions called on
// PublicKeyCredential, and never a throw when a function is absent or refuses.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  sendSignals,
  signalAllAcceptedCredentials,
  signalCurrentUserDetails,
  signalUnknownCredential,
  supportedSignals,
} from '../src/index.js';

const scope = globalThis as Record<string, unknown>;
afterEach(() => void delete scope.PublicKeyCredential);

const ALL = { rpId: 'idp.example.com', userId: 'AQID', allAcceptedCredentialIds: ['BAU', 'Bgc'] };
const DETAILS = { rpId: 'idp.example.com', userId: 'AQID', name: 'alice#idp.example.com', displayName: 'Alice' };
const UNKNOWN = { rpId: 'idp.example.com', credentialId: 'CAk' };

/** A PublicKeyCredential with the named signal functions, recording each call and the `this` it got. */
function fakeBrowser(
  names: readonly string[],
  behaviour: (name: string) => Promise<void> = async () => undefined,
): Array<[string, unknown]> {
  const calls: Array<[string, unknown]> = [];
  class Native {}
  for (const name of names) {
    (Native as unknown as Record<string, unknown>)[name] = function (this: unknown, options: unknown) {
      calls.push([this === Native ? name : `${name} (wrong this)`, options]);
      return behaviour(name);
    };
  }
  scope.PublicKeyCredential = Native;
  return calls;
}

describe('browser helper: the Signal API, feature-detected', () => {
  it('without PublicKeyCredential: nothing supported, every call answers "unsupported"', async () => {
    assert.deepEqual(supportedSignals(), {
      allAcceptedCredentials: false,
      currentUserDetails: false,
      unknownCredential: false,
    });
    assert.deepEqual(await signalUnknownCredential(UNKNOWN), { signal: 'unknownCredential', status: 'unsupported' });
    assert.deepEqual(await sendSignals({ status: 'ok', signals: { allAcceptedCredentials: ALL } }), [
      { signal: 'allAcceptedCredentials', status: 'unsupported' },
    ]);
  });

  it('each function passes its argument on, called on PublicKeyCredential', async () => {
    const calls = fakeBrowser(['signalAllAcceptedCredentials', 'signalCurrentUserDetails', 'signalUnknownCredential']);
    assert.deepEqual(supportedSignals(), {
      allAcceptedCredentials: true,
      currentUserDetails: true,
      unknownCredential: true,
    });
    assert.deepEqual(await signalAllAcceptedCredentials(ALL), { signal: 'allAcceptedCredentials', status: 'sent' });
    assert.deepEqual(await signalCurrentUserDetails(DETAILS), { signal: 'currentUserDetails', status: 'sent' });
    assert.deepEqual(await signalUnknownCredential(UNKNOWN), { signal: 'unknownCredential', status: 'sent' });
    assert.deepEqual(calls, [
      ['signalAllAcceptedCredentials', ALL],
      ['signalCurrentUserDetails', DETAILS],
      ['signalUnknownCredential', UNKNOWN],
    ]);
  });

  it('sendSignals sends what an answer carries, in order, and only that', async () => {
    const calls = fakeBrowser(['signalAllAcceptedCredentials', 'signalCurrentUserDetails', 'signalUnknownCredential']);
    const outcomes = await sendSignals({
      status: 'ok',
      username: 'alice#idp.example.com',
      signals: { currentUserDetails: DETAILS, allAcceptedCredentials: ALL },
    });
    assert.deepEqual(
      outcomes.map((o) => [o.signal, o.status]),
      [
        ['allAcceptedCredentials', 'sent'],
        ['currentUserDetails', 'sent'],
      ],
    );
    assert.deepEqual(
      calls.map(([name]) => name),
      ['signalAllAcceptedCredentials', 'signalCurrentUserDetails'],
    );
    const failed = await sendSignals({
      status: 'failed',
      errorMessage: ['CREDENTIAL_ID_NOT_FOUND', '…'],
      signals: { unknownCredential: UNKNOWN },
    });
    assert.deepEqual(failed, [{ signal: 'unknownCredential', status: 'sent' }]);
  });

  it('an answer without signals (or not an object at all) sends nothing', async () => {
    const calls = fakeBrowser(['signalUnknownCredential']);
    for (const answer of [
      undefined,
      null,
      'ok',
      [],
      { status: 'ok' },
      { signals: null },
      { signals: [UNKNOWN] },
      { signals: { unknownCredential: 'CAk' } },
    ]) {
      assert.deepEqual(await sendSignals(answer), []);
    }
    assert.equal(calls.length, 0);
  });

  it('a browser with only some functions: the others are "unsupported"', async () => {
    fakeBrowser(['signalUnknownCredential']);
    const outcomes = await sendSignals({ signals: { allAcceptedCredentials: ALL, unknownCredential: UNKNOWN } });
    assert.deepEqual(outcomes, [
      { signal: 'allAcceptedCredentials', status: 'unsupported' },
      { signal: 'unknownCredential', status: 'sent' },
    ]);
  });

  it('a refusal (e.g. a request still pending) is reported by its name, never thrown, and the next signal is still sent', async () => {
    const calls = fakeBrowser(['signalAllAcceptedCredentials', 'signalCurrentUserDetails'], async (name) => {
      if (name === 'signalAllAcceptedCredentials')
        throw Object.assign(new Error('A request is already pending.'), { name: 'OperationError' });
    });
    const outcomes = await sendSignals({ signals: { allAcceptedCredentials: ALL, currentUserDetails: DETAILS } });
    assert.deepEqual(outcomes, [
      { signal: 'allAcceptedCredentials', status: 'failed', error: 'OperationError' },
      { signal: 'currentUserDetails', status: 'sent' },
    ]);
    assert.equal(calls.length, 2);
    fakeBrowser(['signalUnknownCredential'], () => {
      throw 'not even an Error';
    });
    assert.deepEqual(await signalUnknownCredential(UNKNOWN), {
      signal: 'unknownCredential',
      status: 'failed',
      error: 'Error',
    });
  });
});
