// The conditional forms of navigator.credentials: sign-in from the browser's autofill list (conditional
// get) and the automatic passkey upgrade (conditional create), each startable and abortable by the page,
// and what the browser says it can do. Every browser global is looked up inside a function, when called.
import { creationOptionsFromJSON, requestOptionsFromJSON, type OptionsJSON } from './options.js';

interface CapabilityScope {
  readonly PublicKeyCredential?: {
    isConditionalMediationAvailable?: () => Promise<boolean>;
    getClientCapabilities?: () => Promise<Record<string, boolean>>;
  };
}

interface CredentialsScope {
  readonly navigator?: { readonly credentials?: CredentialsContainer };
}

/** The browser's PublicKeyCredential with the optional static methods typed, or undefined. */
function publicKeyCredential(): CapabilityScope['PublicKeyCredential'] {
  const native = (globalThis as CapabilityScope).PublicKeyCredential;
  return typeof native === 'function' ? native : undefined;
}

/**
 * Whether the browser can offer passkeys in the autofill list of an input with
 * `autocomplete="username webauthn"`. False where the browser lacks the method, or its answer fails.
 */
export async function isConditionalMediationAvailable(): Promise<boolean> {
  const check = publicKeyCredential()?.isConditionalMediationAvailable;
  if (typeof check !== 'function') return false;
  try {
    return (await check.call(publicKeyCredential())) === true;
  } catch {
    return false;
  }
}

/**
 * `PublicKeyCredential.getClientCapabilities()` (WebAuthn L3: `conditionalGet`, `conditionalCreate`,
 * `signalAllAcceptedCredentials`, `hybridTransport`, `extension:prf`, …), or undefined where the browser
 * does not have the method (then test each feature by itself) or its answer fails.
 */
export async function getClientCapabilities(): Promise<Readonly<Record<string, boolean>> | undefined> {
  const native = publicKeyCredential();
  const get = native?.getClientCapabilities;
  if (typeof get !== 'function') return undefined;
  try {
    const capabilities = await get.call(native);
    return capabilities !== null && typeof capabilities === 'object' ? { ...capabilities } : undefined;
  } catch {
    return undefined;
  }
}

/** A started conditional request. */
export interface ConditionalRequest {
  /**
   * The credential once the user chose one (or the browser created one), then send it with
   * `credentialToJSON`. Resolves to null when the caller aborted; rejects with the browser's error
   * otherwise (`describeWebAuthnError` words it).
   */
  readonly result: Promise<PublicKeyCredential | null>;
  /** Whether `abort()` was called (or the caller's own signal fired). */
  readonly aborted: boolean;
  /**
   * Stops the request and waits until the browser has let it go: a browser runs one WebAuthn request at a
   * time, so await this before a modal `get()`/`create()` or a signal call.
   */
  abort(): Promise<void>;
}

export interface ConditionalInit {
  /** Aborting this signal aborts the request too, like `abort()`. */
  readonly signal?: AbortSignal;
}

/** The reason every caller abort carries, to tell it from the browser's own AbortError. */
const CALLER_ABORT = 'passkey-server/browser: aborted by the page';

function start(run: (signal: AbortSignal) => Promise<Credential | null>, init: ConditionalInit): ConditionalRequest {
  const controller = new AbortController();
  const outer = init.signal;
  const forward = () => controller.abort(CALLER_ABORT);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  let result: Promise<PublicKeyCredential | null>;
  try {
    // Aborted before it started: the browser is never asked.
    result = controller.signal.aborted
      ? Promise.resolve(null)
      : run(controller.signal).then(
          (credential) => credential as PublicKeyCredential | null,
          (error: unknown) => {
            if (controller.signal.aborted && controller.signal.reason === CALLER_ABORT) return null;
            throw error;
          },
        );
  } catch (error) {
    result = Promise.reject(error);
  }
  result = result.finally(() => outer?.removeEventListener('abort', forward));
  // The caller reads `result`; this only keeps an unread rejection from being reported as unhandled.
  result.catch(() => undefined);
  return {
    result,
    get aborted() {
      return controller.signal.aborted;
    },
    abort: async () => {
      forward();
      await result.then(
        () => undefined,
        () => undefined,
      );
    },
  };
}

function credentials(): CredentialsContainer {
  const container = (globalThis as CredentialsScope).navigator?.credentials;
  if (!container) throw new TypeError('this browser has no navigator.credentials');
  return container;
}

/**
 * Sign-in from the autofill list: `navigator.credentials.get({ mediation: 'conditional' })` with the
 * assertion options of a sign-in without a user name (`username: '#<domain>'`). Start it when the page
 * loads, on a page with an `<input autocomplete="username webauthn">`; it waits until the user picks a
 * passkey there. Check `isConditionalMediationAvailable()` first.
 */
export function startConditionalGet(options: OptionsJSON, init: ConditionalInit = {}): ConditionalRequest {
  return start(
    (signal) => credentials().get({ ...requestOptionsFromJSON(options), mediation: 'conditional', signal }),
    init,
  );
}

/**
 * The automatic passkey upgrade: `navigator.credentials.create({ mediation: 'conditional' })` with the
 * attestation options of a request that carried `"mediation": "conditional"`, right after the user signed
 * in another way. The browser may create the passkey without asking, or never settle: abort it when the
 * user moves on.
 */
export function startConditionalCreate(options: OptionsJSON, init: ConditionalInit = {}): ConditionalRequest {
  return start(
    (signal) =>
      credentials().create({
        ...creationOptionsFromJSON(options),
        mediation: 'conditional',
        signal,
      } as CredentialCreationOptions),
    init,
  );
}
