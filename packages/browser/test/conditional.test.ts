// The conditional forms and the capability checks, with fake browser globals installed per test and
// removed after it (the helper reads globals only when called, so installing them late is enough).
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as helper from '../src/index.js';
import {
  getClientCapabilities,
  isConditionalMediationAvailable,
  startConditionalCreate,
  startConditionalGet,
} from '../src/index.js';

const scope = globalThis as Record<string, unknown>;

/** Installs `PublicKeyCredential` and `navigator` for one test; afterEach removes them again. */
function install(globals: { PublicKeyCredential?: unknown; credentials?: Partial<CredentialsContainer> }): void {
  if (globals.PublicKeyCredential !== undefined) {
    Object.defineProperty(globalThis, 'PublicKeyCredential', {
      value: globals.PublicKeyCredential,
      configurable: true,
      writable: true,
    });
  }
  if (globals.credentials !== undefined) {
    Object.defineProperty(globalThis, 'navigator', {
      value: { credentials: globals.credentials },
      configurable: true,
      writable: true,
    });
  }
}

const ORIGINAL_NAVIGATOR = Object.getOwnPropertyDescriptor(globalThis, 'navigator');

afterEach(() => {
  delete scope.PublicKeyCredential;
  if (ORIGINAL_NAVIGATOR) Object.defineProperty(globalThis, 'navigator', ORIGINAL_NAVIGATOR);
  else delete scope.navigator;
});

/** A fake `get`/`create` that waits until its signal aborts (rejecting with the signal's reason), as browsers do. */
function pendingUntilAborted(
  calls: CredentialRequestOptions[],
): (options?: CredentialRequestOptions) => Promise<Credential | null> {
  return (options) => {
    calls.push(options!);
    return new Promise((_, reject) => {
      if (options!.signal!.aborted) return reject(options!.signal!.reason);
      options!.signal!.addEventListener('abort', () => reject(options!.signal!.reason), { once: true });
    });
  };
}

const ASSERTION_OPTIONS = {
  status: 'ok',
  errorMessage: '',
  sessionId: '',
  challenge: '-_8A',
  rpId: 'idp.example.com',
  allowCredentials: [],
  userVerification: 'preferred',
};
const ATTESTATION_OPTIONS = {
  status: 'ok',
  errorMessage: '',
  sessionId: '',
  mediation: 'conditional',
  challenge: 'AQID',
  rp: { id: 'idp.example.com', name: 'IdP' },
  user: { id: 'BAU', name: 'alice#idp.example.com', displayName: 'Alice' },
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  authenticatorSelection: { residentKey: 'required' },
};

describe('browser helper: capabilities, feature-detected', () => {
  it('loading the module touched no global: it defines no PublicKeyCredential or navigator.credentials', () => {
    assert.equal(typeof helper.startConditionalGet, 'function');
    assert.equal(scope.PublicKeyCredential, undefined);
    assert.equal((scope.navigator as { credentials?: unknown } | undefined)?.credentials, undefined);
  });

  it("without the browser's methods: conditional mediation unavailable, no capabilities", async () => {
    assert.equal(await isConditionalMediationAvailable(), false);
    assert.equal(await getClientCapabilities(), undefined);
    install({ PublicKeyCredential: class {} });
    assert.equal(await isConditionalMediationAvailable(), false);
    assert.equal(await getClientCapabilities(), undefined);
  });

  it("with them: the browser's answers, called on PublicKeyCredential; a failing method counts as absent", async () => {
    // A function, as PublicKeyCredential is; the methods check they are called on it.
    function Native() {}
    Native.isConditionalMediationAvailable = async function (this: unknown) {
      return this === Native;
    };
    Native.getClientCapabilities = async function (this: unknown) {
      return { conditionalGet: this === Native, signalUnknownCredential: false };
    };
    install({ PublicKeyCredential: Native });
    assert.equal(await isConditionalMediationAvailable(), true);
    assert.deepEqual(await getClientCapabilities(), { conditionalGet: true, signalUnknownCredential: false });
    const broken = () => Promise.reject(new Error('broken'));
    install({
      PublicKeyCredential: Object.assign(function Broken() {}, {
        isConditionalMediationAvailable: broken,
        getClientCapabilities: broken,
      }),
    });
    assert.equal(await isConditionalMediationAvailable(), false);
    assert.equal(await getClientCapabilities(), undefined);
  });
});

describe('browser helper: conditional get and create', () => {
  it('conditional get: mediation "conditional" beside publicKey, the options decoded, and the chosen credential returned', async () => {
    const calls: CredentialRequestOptions[] = [];
    const credential = { id: 'chosen' } as unknown as Credential;
    install({ credentials: { get: async (options) => (calls.push(options!), credential) } });
    const request = startConditionalGet(ASSERTION_OPTIONS);
    assert.equal(await request.result, credential);
    assert.equal(calls[0]!.mediation, 'conditional');
    assert.deepEqual(Buffer.from(calls[0]!.publicKey!.challenge as ArrayBuffer).toString('hex'), 'fbff00');
    assert.deepEqual(calls[0]!.publicKey!.allowCredentials, []);
    assert.equal('status' in calls[0]!.publicKey!, false);
    assert.ok(calls[0]!.signal instanceof AbortSignal);
    assert.equal(request.aborted, false);
  });

  it('abort() settles the request as null, and returns only once the browser has let it go', async () => {
    const calls: CredentialRequestOptions[] = [];
    install({ credentials: { get: pendingUntilAborted(calls) } });
    const request = startConditionalGet(ASSERTION_OPTIONS);
    let settled = false;
    void request.result.then(() => void (settled = true));
    await request.abort();
    assert.equal(settled, true);
    assert.equal(await request.result, null);
    assert.equal(request.aborted, true);
    await request.abort(); // twice is harmless
  });

  it("the caller's own AbortSignal aborts it the same way, also when already aborted", async () => {
    const calls: CredentialRequestOptions[] = [];
    install({ credentials: { get: pendingUntilAborted(calls) } });
    const outer = new AbortController();
    const request = startConditionalGet(ASSERTION_OPTIONS, { signal: outer.signal });
    outer.abort();
    assert.equal(await request.result, null);
    const early = startConditionalGet(ASSERTION_OPTIONS, { signal: AbortSignal.abort() });
    assert.equal(await early.result, null);
    assert.equal(early.aborted, true);
    assert.equal(calls.length, 1, 'a request aborted before it started never reaches the browser');
  });

  it("the browser's own refusals reject with its error (not mistaken for the caller's abort)", async () => {
    const refusal = Object.assign(new Error('no'), { name: 'NotAllowedError' });
    install({ credentials: { get: () => Promise.reject(refusal) } });
    await assert.rejects(startConditionalGet(ASSERTION_OPTIONS).result, refusal);
    const browserAbort = Object.assign(new Error('other request'), { name: 'AbortError' });
    install({ credentials: { get: () => Promise.reject(browserAbort) } });
    await assert.rejects(startConditionalGet(ASSERTION_OPTIONS).result, browserAbort);
  });

  it('no navigator.credentials, or unusable options: a rejected result, never a throw from start', async () => {
    await assert.rejects(startConditionalGet(ASSERTION_OPTIONS).result, TypeError);
    install({ credentials: { get: pendingUntilAborted([]) } });
    await assert.rejects(startConditionalGet({ status: 'ok' }).result, /challenge/);
  });

  it('conditional create: mediation "conditional" beside publicKey, never inside it; abortable the same way', async () => {
    const calls: CredentialRequestOptions[] = [];
    install({ credentials: { create: pendingUntilAborted(calls) as CredentialsContainer['create'] } });
    const request = startConditionalCreate(ATTESTATION_OPTIONS);
    await request.abort();
    assert.equal(await request.result, null);
    const sent = calls[0] as unknown as CredentialCreationOptions & { mediation: string };
    assert.equal(sent.mediation, 'conditional');
    assert.equal('mediation' in sent.publicKey!, false);
    assert.equal(Buffer.from(sent.publicKey!.user.id as ArrayBuffer).toString('hex'), '0405');
  });
});
