// The high-level calls' side of the wire: one POST to the relay, its envelope read, and every failure
// (the service's, the relay's, the network's, the browser's) turned into a PasskeyError whose `message` is
// a sentence for the user and whose `name` is the error name, for logs and for code.
import type { Ceremony } from './browser-errors.js';
import {
  describeFailure,
  ENGLISH_SENTENCES,
  userMessage,
  type SentenceKey,
  type UserSentences,
} from './service-errors.js';
import { sendSignals } from './signals.js';

/** The relay's base path when a call names none. */
export const DEFAULT_RELAY = '/relay';

/** A failed call: `message` is the user's sentence, `name` the error name, `detail` the description for logs. */
export class PasskeyError extends Error {
  override readonly name: string;
  /** The service's (or the relay's, or the browser's) own description: for logs and developers. */
  readonly detail: string;
  /** The HTTP status of the relay's answer (0 when none arrived). */
  readonly status: number;
  constructor(name: string, message: string, detail = '', status = 0) {
    super(message);
    this.name = name;
    this.detail = detail;
    this.status = status;
  }
}

/** What every high-level call takes besides its own arguments. */
export interface CallOptions {
  /** The relay's base path (or URL). Default `/relay`. */
  readonly relay?: string | undefined;
  /** Sentences replacing the English ones, key by key (translation). */
  readonly messages?: Partial<UserSentences> | undefined;
  /**
   * Cancels the call: its request to the relay and the browser's passkey dialog. It then rejects with a
   * PasskeyError named `AbortError` (sentence `cancelled`).
   */
  readonly signal?: AbortSignal | undefined;
}

/** A successful answer of the service, as the relay passed it on: the envelope plus the operation's fields. */
export type ServiceAnswer = Readonly<Record<string, unknown>> & { readonly status: 'ok' };

/** The signed-in user and the token of their recent sign-in, kept in memory only (for list and delete). */
let recentSession: { readonly username: string; readonly credentialsToken: string } | undefined;

export function rememberSession(answer: ServiceAnswer): void {
  const { username, credentialsToken } = answer;
  if (typeof username === 'string' && typeof credentialsToken === 'string')
    recentSession = { username, credentialsToken };
}

/** `{username, credentialsToken}` of this page's last sign-in, when the relay let the browser see the token. */
export function sessionFields(): Readonly<Record<string, string>> {
  return recentSession === undefined ? {} : { ...recentSession };
}

function base(relay: string | undefined): string {
  return (relay ?? DEFAULT_RELAY).replace(/\/+$/, '');
}

/** One call to the relay: the ok answer, or a PasskeyError. Signals in a failed answer are handed on too. */
export async function post(
  options: CallOptions,
  operation: string,
  body: Readonly<Record<string, unknown>>,
): Promise<ServiceAnswer> {
  throwIfCancelled(options);
  let response: Response;
  try {
    response = await fetch(`${base(options.relay)}/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    throwIfCancelled(options);
    throw failure('RELAY_UNREACHABLE', options, `${operation}: ${String(error)}`);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(await response.text());
  } catch {
    answer = undefined;
  }
  const status = (answer as { status?: unknown } | null | undefined)?.status;
  if (status === 'ok') return answer as ServiceAnswer;
  if (status !== 'failed')
    throw failure(
      'RELAY_INVALID_RESPONSE',
      options,
      `${operation}: HTTP ${response.status} without the JSON envelope (is the relay at ${base(options.relay)}?)`,
      response.status,
    );
  await sendSignals(answer);
  const read = describeFailure(answer, options.messages);
  throw new PasskeyError(read.name || 'UNKNOWN_ERROR', read.message, read.detail, response.status);
}

/** Rejects with AbortError (the `cancelled` sentence) once the caller's signal has fired. */
export function throwIfCancelled(options: CallOptions): void {
  if (options.signal?.aborted) throw failure('AbortError', options, 'cancelled by the page (AbortSignal)');
}

export function failure(name: string, options: CallOptions, detail = '', status = 0): PasskeyError {
  return new PasskeyError(name, userMessage(name, options.messages), detail, status);
}

/** A sentence key for a browser exception of create()/get() whose meaning depends on the ceremony. */
const BY_CEREMONY: Readonly<Record<string, Readonly<Record<Ceremony, SentenceKey>>>> = {
  NotAllowedError: { create: 'notCreated', get: 'notSignedIn' },
  InvalidStateError: { create: 'alreadyOnDevice', get: 'unknown' },
};

/** A browser exception of create()/get() → a PasskeyError named after it. */
export function browserFailure(error: unknown, ceremony: Ceremony, options: CallOptions): PasskeyError {
  const rawName = (error as { name?: unknown } | null)?.name;
  const name = typeof rawName === 'string' && rawName !== '' ? rawName : 'Error';
  const rawMessage = (error as { message?: unknown } | null)?.message;
  const detail = typeof rawMessage === 'string' ? rawMessage : '';
  const key = BY_CEREMONY[name]?.[ceremony];
  if (key === undefined) return new PasskeyError(name, userMessage(name, options.messages), detail);
  return new PasskeyError(name, options.messages?.[key] ?? ENGLISH_SENTENCES[key], detail);
}
