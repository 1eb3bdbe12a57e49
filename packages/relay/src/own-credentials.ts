// A signed-in user's own passkeys (docs/relay.md "A user's own passkeys"): the relay's
// `<prefix>/credentials/list` and `<prefix>/credentials/delete` forward to the service's
// `/api/credentials/*`, which act only for the user a recent sign-in's `credentialsToken` names. With
// `credentialsSession` the relay takes the user name and the token from the integrator's session, never
// from the browser, and keeps the token out of the answers the browser sees.
import type { IncomingMessage } from 'node:http';
import { failedEnvelope, type Envelope } from './errors.js';
import type { CredentialsSession, ResolvedRelayOptions } from './options.js';

type Body = Record<string, unknown>;

/** The body to forward, or the relay's own refusal. */
export type OwnCredentialsCall =
  | { readonly kind: 'forward'; readonly body: Body }
  | { readonly kind: 'refused'; readonly status: number; readonly body: Envelope };

/**
 * What the service is sent for `operation`: the browser's body as it is, or, with `credentialsSession`,
 * the session's user name and token (plus the browser's `credentialId` for a delete).
 */
export async function ownCredentialsCall(
  config: ResolvedRelayOptions,
  operation: 'credentials/list' | 'credentials/delete',
  body: Body,
  request: IncomingMessage,
): Promise<OwnCredentialsCall> {
  if (!config.credentialsSession) return { kind: 'forward', body };
  let session: CredentialsSession | undefined;
  try {
    session = await config.credentialsSession(request);
  } catch (error) {
    // Fail closed: a hook that cannot say who is signed in has not said anyone is.
    config.log?.error({ operation, error: String(error) }, 'credentialsSession hook failed');
    session = undefined;
  }
  if (session === undefined || typeof session.username !== 'string' || typeof session.credentialsToken !== 'string') {
    return { kind: 'refused', ...failedEnvelope('RELAY_NOT_SIGNED_IN') };
  }
  const { username, credentialsToken } = session;
  if (operation === 'credentials/list') return { kind: 'forward', body: { username, credentialsToken } };
  return { kind: 'forward', body: { username, credentialsToken, credentialId: body.credentialId } };
}

/** A result answer as the browser gets it: without `credentialsToken` when the session keeps it. */
export function withoutToken(config: ResolvedRelayOptions, body: Envelope): Envelope | undefined {
  if (!config.credentialsSession || !('credentialsToken' in body)) return undefined;
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
