// startAutofill() stops on the page's AbortSignal as on stop() (issue 33): the browser's conditional request
// is aborted and `result` resolves to null. Fake browser globals and a fake relay (fetch), removed after.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startAutofill } from '../src/index.js';

const scope = globalThis as Record<string, unknown>;
const ORIGINAL_NAVIGATOR = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
const ORIGINAL_FETCH = globalThis.fetch;

afterEach(() => {
  delete scope.PublicKeyCredential;
  if (ORIGINAL_NAVIGATOR) Object.defineProperty(globalThis, 'navigator', ORIGINAL_NAVIGATOR);
  else delete scope.navigator;
  globalThis.fetch = ORIGINAL_FETCH;
});

/** `result`, or 'hung' after two seconds: a test that fails rather than waits forever. */
function settled(result: Promise<unknown>): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise((resolve) => {
    timer = setTimeout(() => resolve('hung'), 2000);
  });
  return Promise.race([result, hung]).finally(() => clearTimeout(timer));
}

const OPTIONS = { status: 'ok', errorMessage: '', sessionId: '', challenge: '-_8A', rpId: 'idp.example.com' };

describe('startAutofill with an AbortSignal', () => {
  it('ends the conditional request and resolves null when the signal fires', async () => {
    const signals: AbortSignal[] = [];
    Object.defineProperty(globalThis, 'PublicKeyCredential', {
      value: Object.assign(() => undefined, { isConditionalMediationAvailable: async () => true }),
      configurable: true,
      writable: true,
    });
    Object.defineProperty(globalThis, 'navigator', {
      value: {
        credentials: {
          get: (options: CredentialRequestOptions) => {
            signals.push(options.signal!);
            return new Promise((_, reject) =>
              options.signal!.addEventListener('abort', () => reject(options.signal!.reason), { once: true }),
            );
          },
        },
      },
      configurable: true,
      writable: true,
    });
    let relayCalls = 0;
    globalThis.fetch = async () => {
      relayCalls += 1;
      return new Response(JSON.stringify(OPTIONS), { headers: { 'content-type': 'application/json' } });
    };
    const controller = new AbortController();
    const handle = startAutofill({ relay: 'https://idp.example.com/relay', signal: controller.signal });
    for (let i = 0; i < 100 && signals.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(signals.length, 1, 'the conditional request started');
    controller.abort();
    assert.equal(await settled(handle.result), null);
    assert.equal(signals[0]!.aborted, true, "the browser's request was aborted");
    assert.equal(relayCalls, 1, 'nothing more was asked of the relay');
  });

  it('never starts when the signal has already fired', async () => {
    Object.defineProperty(globalThis, 'PublicKeyCredential', {
      value: Object.assign(() => undefined, { isConditionalMediationAvailable: async () => true }),
      configurable: true,
      writable: true,
    });
    let relayCalls = 0;
    globalThis.fetch = async () => {
      relayCalls += 1;
      return new Response(JSON.stringify(OPTIONS));
    };
    const handle = startAutofill({ relay: '/relay', signal: AbortSignal.abort() });
    assert.equal(await settled(handle.result), null);
    assert.equal(relayCalls, 0);
  });
});
