// A signed-in user's own passkeys (docs/relay.md "A user's own passkeys"): the relay's
// `<prefix>/credentials/list`, `/delete` and `/rename` forward to the service's
// `/api/credentials/*`, which act only for the user a recent sign-in's `credentialsToken` names. With a
// session (session.ts) the relay takes the user name and the token from it, never from the browser, and
// keeps the token out of the answers the browser sees.
import { failedEnvelope, type Envelope } from './errors.js';
import type { ResolvedRelayOptions } from './options.js';
import { keepsTokens, type SessionView } from './session.js';

type Body = Record<string, unknown>;

/** The body to forward, or the relay's own refusal. */
export type OwnCredentialsCall =
  | { readonly kind: 'forward'; readonly body: Body }
  | { readonly kind: 'refused'; readonly status: number; readonly body: Envelope };

/**
 * What the service is sent for `operation`: with a session (the relay's record, or `credentialsSession`),
 * the session's user name and token (plus the browser's `credentialId` for a delete, and `nickname` for a
 * rename); without one, the
 * browser's body as it is.
 */
export function ownCredentialsCall(
  config: ResolvedRelayOptions,
  view: SessionView,
  operation: 'credentials/list' | 'credentials/delete' | 'credentials/rename',
  body: Body,
): OwnCredentialsCall {
  if (!keepsTokens(config, view)) return { kind: 'forward', body };
  if (view.credentials === undefined) return { kind: 'refused', ...failedEnvelope('RELAY_NOT_SIGNED_IN') };
  const { username, credentialsToken } = view.credentials;
  if (operation === 'credentials/list') return { kind: 'forward', body: { username, credentialsToken } };
  const target = { username, credentialsToken, credentialId: body.credentialId };
  return {
    kind: 'forward',
    body: operation === 'credentials/rename' ? { ...target, nickname: body.nickname } : target,
  };
}

/** A result answer as the browser gets it: without `credentialsToken` when the session keeps it. */
export function withoutToken(config: ResolvedRelayOptions, view: SessionView, body: Envelope): Envelope | undefined {
  if (!keepsTokens(config, view) || !('credentialsToken' in body)) return undefined;
  const { credentialsToken: _kept, ...rest } = body;
  return rest as Envelope;
}

/** The `signals` member of an answer, when it has one (handed to onResult). */
export function signalsOf(body: Envelope): Readonly<Record<string, unknown>> | undefined {
  const signals = body.signals;
  return signals !== null && typeof signals === 'object' && !Array.isArray(signals)
    ? (signals as Record<string, unknown>)
    : undefined;
}
