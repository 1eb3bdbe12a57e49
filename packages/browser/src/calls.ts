// The high-level calls: register, sign in (by name, without a name, immediate mediation first where the
// browser offers it), a user's passkey list, deletion and rename. Each takes an AbortSignal. Each talks to the relay, hands the answer's
// signals to the browser and resolves with the service's answer, or rejects with a PasskeyError whose
// `message` is the user's sentence. A running autofill (autofill.ts) is paused around the modal ceremony.
import { webAuthnAvailability } from './browser-errors.js';
import { credentialToJSON, type CredentialLike } from './credential.js';
import { getClientCapabilities } from './conditional.js';
import { exclusive } from './exclusive.js';
import { creationOptionsFromJSON, requestOptionsFromJSON } from './options.js';
import {
  browserFailure,
  failure,
  post,
  rememberSession,
  sessionFields,
  throwIfCancelled,
  type CallOptions,
  type ServiceAnswer,
} from './relay-client.js';
import { sendSignals } from './signals.js';
import type { PasskeyList, PasskeyResult } from './types.js';

export interface RegisterOptions extends CallOptions {
  /** The user's name: a plain name when the relay has `userDomain`, else the full `<user>#<domain>`. */
  readonly username: string;
  readonly displayName?: string | undefined;
}

export interface SignInOptions extends CallOptions {
  /** Without it: sign-in without a name (the browser offers the site's passkeys). */
  readonly username?: string | undefined;
}

export interface DeletePasskeyOptions extends CallOptions {
  readonly credentialId: string;
}

export interface RenamePasskeyOptions extends CallOptions {
  readonly credentialId: string;
  /** The new name (trimmed; 1 to 64 characters), or null to clear it. */
  readonly nickname: string | null;
}

/** A passkey's name by the service's rule: trimmed, 1 to 64 characters, no control characters; null clears. */
export function checkNickname(nickname: unknown): string | null | undefined {
  if (nickname === null) return null;
  if (typeof nickname !== 'string') return undefined;
  const trimmed = nickname.trim();
  const length = [...trimmed].length;
  return length === 0 || length > 64 || /[\u0000-\u001f\u007f-\u009f]/.test(trimmed) ? undefined : trimmed;
}

/** The options of create()/get() with the caller's AbortSignal, which closes the browser's dialog. */
function withSignal<T extends object>(options: T, call: CallOptions): T & { signal?: AbortSignal } {
  return call.signal === undefined ? options : { ...options, signal: call.signal };
}

/** Rejects with INSECURE_CONTEXT or WEBAUTHN_UNSUPPORTED where this page cannot use passkeys. */
export function ensureWebAuthn(options: CallOptions): void {
  const availability = webAuthnAvailability();
  if (availability.ok) return;
  const insecure = (globalThis as { isSecureContext?: boolean }).isSecureContext !== true;
  throw failure(insecure ? 'INSECURE_CONTEXT' : 'WEBAUTHN_UNSUPPORTED', options, availability.reason);
}

function credentialsContainer(): CredentialsContainer {
  return (globalThis as { navigator: Navigator }).navigator.credentials;
}

/** Sends a credential to `<relay>/<kind>/result`; the ok answer, its signals handed to the browser. */
export async function finish(
  options: CallOptions,
  kind: 'attestation' | 'assertion',
  credential: CredentialLike,
): Promise<PasskeyResult> {
  throwIfCancelled(options);
  const answer = await post(options, `${kind}/result`, { ...credentialToJSON(credential) });
  rememberSession(answer);
  await sendSignals(answer);
  return answer as PasskeyResult;
}

/** Registers a passkey for `username`: resolves with the service's answer (who, which passkey, how). */
export async function register(options: RegisterOptions): Promise<PasskeyResult> {
  ensureWebAuthn(options);
  const username = typeof options.username === 'string' ? options.username.trim() : '';
  if (username === '') throw failure('INVALID_USERNAME', options, 'register() needs a username');
  return exclusive(async () => {
    const displayName = options.displayName?.trim();
    const json = await post(options, 'attestation/options', {
      username,
      ...(displayName !== undefined && displayName !== '' && { displayName }),
    });
    let credential: Credential | null;
    try {
      credential = await credentialsContainer().create(withSignal(creationOptionsFromJSON(json), options));
    } catch (error) {
      throwIfCancelled(options);
      throw browserFailure(error, 'create', options);
    }
    if (credential === null) throw browserFailure({ name: 'NotAllowedError' }, 'create', options);
    return finish(options, 'attestation', credential as unknown as CredentialLike);
  });
}

/** Whether to try `mediation: "immediate"` first: only where the browser says it has it. */
async function offersImmediate(): Promise<boolean> {
  return (await getClientCapabilities())?.immediateGet === true;
}

/**
 * Signs in: with `username`, with that user's passkeys; without, with any of the site's (sign-in without a
 * name). Without a name it first tries the browser's immediate mediation where the browser reports
 * `immediateGet`, and falls back to the modal sign-in when the browser refuses it.
 */
export async function signIn(options: SignInOptions = {}): Promise<PasskeyResult> {
  ensureWebAuthn(options);
  const username = typeof options.username === 'string' ? options.username.trim() : '';
  return exclusive(async () => {
    const json = await post(options, 'assertion/options', username === '' ? {} : { username });
    const request = requestOptionsFromJSON(json);
    let credential: Credential | null = null;
    if (username === '' && (await offersImmediate())) {
      try {
        credential = await credentialsContainer().get(
          withSignal({ ...request, mediation: 'immediate' as CredentialMediationRequirement }, options),
        );
      } catch {
        throwIfCancelled(options);
        credential = null; // refused (or not implemented after all): the modal sign-in below
      }
    }
    if (credential === null) {
      try {
        credential = await credentialsContainer().get(withSignal(request, options));
      } catch (error) {
        throwIfCancelled(options);
        throw browserFailure(error, 'get', options);
      }
    }
    if (credential === null) throw browserFailure({ name: 'NotAllowedError' }, 'get', options);
    return finish(options, 'assertion', credential as unknown as CredentialLike);
  });
}

/** The signed-in user's passkeys (provider, synced or not, created, last used); signals handed on. */
export async function listPasskeys(options: CallOptions = {}): Promise<PasskeyList> {
  const answer: ServiceAnswer = await post(options, 'credentials/list', sessionFields());
  await sendSignals(answer);
  return answer as PasskeyList;
}

/** Deletes one of the signed-in user's passkeys; the browser is told which remain (Signal API). */
export async function deletePasskey(options: DeletePasskeyOptions): Promise<ServiceAnswer> {
  if (typeof options.credentialId !== 'string' || options.credentialId === '')
    throw failure('INVALID_REQUEST_BODY', options, 'deletePasskey() needs a credentialId');
  const answer = await post(options, 'credentials/delete', { ...sessionFields(), credentialId: options.credentialId });
  await sendSignals(answer);
  return answer;
}

/** Renames one of the signed-in user's passkeys (null clears the name); a name outside the rule: INVALID_NICKNAME. */
export async function renamePasskey(options: RenamePasskeyOptions): Promise<ServiceAnswer> {
  if (typeof options.credentialId !== 'string' || options.credentialId === '')
    throw failure('INVALID_REQUEST_BODY', options, 'renamePasskey() needs a credentialId');
  const nickname = checkNickname(options.nickname);
  if (nickname === undefined)
    throw failure('INVALID_NICKNAME', options, 'a string of 1 to 64 characters after trimming, or null');
  return post(options, 'credentials/rename', { ...sessionFields(), credentialId: options.credentialId, nickname });
}
