// The WebAuthn Signal API: telling the browser's passkey manager what the site knows, so it stops showing
// passkeys the site deleted and shows the account's current name. The service puts the exact arguments
// in the `signals` object of its answers; these functions pass them on where the browser has the
// functions, and never throw (a signal is a courtesy: a page must work the same without it).

/** `signals.allAcceptedCredentials`: every credential id the user still has (base64url). */
export interface AllAcceptedCredentialsOptions {
  readonly rpId: string;
  readonly userId: string;
  readonly allAcceptedCredentialIds: readonly string[];
}

/** `signals.currentUserDetails`: the account's current name and display name. */
export interface CurrentUserDetailsOptions {
  readonly rpId: string;
  readonly userId: string;
  readonly name: string;
  readonly displayName: string;
}

/** `signals.unknownCredential`: a credential the site does not know (deleted, or never registered). */
export interface UnknownCredentialOptions {
  readonly rpId: string;
  readonly credentialId: string;
}

/** The `signals` object of an answer (each member optional). */
export interface Signals {
  readonly allAcceptedCredentials?: AllAcceptedCredentialsOptions;
  readonly currentUserDetails?: CurrentUserDetailsOptions;
  readonly unknownCredential?: UnknownCredentialOptions;
}

export type SignalName = keyof Signals;

/**
 * What happened to one signal: `sent` (the browser accepted it), `unsupported` (this browser has no such
 * function), `failed` (the browser refused it: `error` is its exception's name, e.g. `OperationError`
 * while another WebAuthn request is pending, or `TypeError` for a malformed argument).
 */
export interface SignalOutcome {
  readonly signal: SignalName;
  readonly status: 'sent' | 'unsupported' | 'failed';
  readonly error?: string;
}

const FUNCTIONS: Readonly<Record<SignalName, string>> = {
  allAcceptedCredentials: 'signalAllAcceptedCredentials',
  currentUserDetails: 'signalCurrentUserDetails',
  unknownCredential: 'signalUnknownCredential',
};

/** The order `sendSignals` uses: the list of credentials first, then the names, then an unknown credential. */
const ORDER: readonly SignalName[] = ['allAcceptedCredentials', 'currentUserDetails', 'unknownCredential'];

type SignalFunction = (options: unknown) => Promise<void>;

function nativeFunction(signal: SignalName): { readonly call: SignalFunction } | undefined {
  const native = (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential as
    | Record<string, unknown>
    | undefined;
  if (typeof native !== 'function') return undefined;
  const fn = native[FUNCTIONS[signal]];
  return typeof fn === 'function' ? { call: (options) => (fn as SignalFunction).call(native, options) } : undefined;
}

/** Which of the three signal functions this browser has. */
export function supportedSignals(): Readonly<Record<SignalName, boolean>> {
  return {
    allAcceptedCredentials: nativeFunction('allAcceptedCredentials') !== undefined,
    currentUserDetails: nativeFunction('currentUserDetails') !== undefined,
    unknownCredential: nativeFunction('unknownCredential') !== undefined,
  };
}

async function send(signal: SignalName, options: unknown): Promise<SignalOutcome> {
  const fn = nativeFunction(signal);
  if (fn === undefined) return { signal, status: 'unsupported' };
  try {
    await fn.call(options);
    return { signal, status: 'sent' };
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    return { signal, status: 'failed', error: typeof name === 'string' ? name : 'Error' };
  }
}

/** `PublicKeyCredential.signalAllAcceptedCredentials(options)` where the browser has it. Never throws. */
export function signalAllAcceptedCredentials(options: AllAcceptedCredentialsOptions): Promise<SignalOutcome> {
  return send('allAcceptedCredentials', {
    ...options,
    allAcceptedCredentialIds: [...options.allAcceptedCredentialIds],
  });
}

/** `PublicKeyCredential.signalCurrentUserDetails(options)` where the browser has it. Never throws. */
export function signalCurrentUserDetails(options: CurrentUserDetailsOptions): Promise<SignalOutcome> {
  return send('currentUserDetails', { ...options });
}

/** `PublicKeyCredential.signalUnknownCredential(options)` where the browser has it. Never throws. */
export function signalUnknownCredential(options: UnknownCredentialOptions): Promise<SignalOutcome> {
  return send('unknownCredential', { ...options });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Sends every signal in an answer's `signals` object (an ok or a failed answer of the service or the
 * relay), one after the other, and says what became of each. An answer
 * without `signals` sends nothing. Call it after the ceremony has settled: a browser refuses a signal
 * while another WebAuthn request (a conditional get or create) is pending. Never throws.
 */
export async function sendSignals(answer: unknown): Promise<readonly SignalOutcome[]> {
  const signals = isObject(answer) && isObject(answer.signals) ? answer.signals : undefined;
  if (signals === undefined) return [];
  const outcomes: SignalOutcome[] = [];
  for (const signal of ORDER) {
    const options = signals[signal];
    if (isObject(options)) outcomes.push(await send(signal, options));
  }
  return outcomes;
}
