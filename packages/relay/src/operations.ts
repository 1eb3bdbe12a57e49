// The relay's six operations, one step each: what it does before and after forwarding a browser call to
// the service (spec point 6's registration hook, the local variant's blob steps, the onResult hook, a
// user's own passkeys). relay.ts reads the call and writes the answer around them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { failedEnvelope } from './errors.js';
import { challengeOf, type PendingCeremonies } from './ceremonies.js';
import { localOwnCredentials, withLocalToken } from './local-own-credentials.js';
import { findBlob, keepBlob, withExtension, withKeptCredentials } from './local-steps.js';
import type { LocalCredential } from './local-store.js';
import type { HookRequest, RegistrationDecision, ResolvedRelayOptions } from './options.js';
import type { Body, Outcome } from './outcome.js';
import { ownCredentialsCall, signalsOf, withoutToken } from './own-credentials.js';
import { mayRegisterByDefault } from './registration.js';
import { keepResult, readSession, type SessionView } from './session.js';
import { postToService, traceContextOf } from './upstream.js';
import { withFullUsername } from './user-domain.js';

/** One browser call: Node's request (headers), the framework's request (the hooks'), Node's response. */
export interface Call {
  readonly raw: IncomingMessage;
  readonly request: HookRequest;
  readonly response: ServerResponse;
}

export type RelayOperation =
  | 'attestation/options'
  | 'attestation/result'
  | 'assertion/options'
  | 'assertion/result'
  | 'credentials/list'
  | 'credentials/delete'
  | 'credentials/rename';
export const RELAY_OPERATIONS: readonly RelayOperation[] = [
  'attestation/options',
  'attestation/result',
  'assertion/options',
  'assertion/result',
  'credentials/list',
  'credentials/delete',
  'credentials/rename',
];

/** One browser call, already read and parsed, through its operation's steps to the outcome to answer. */
export async function run(
  config: ResolvedRelayOptions,
  pending: PendingCeremonies,
  operation: RelayOperation,
  body: Body,
  call: Call,
): Promise<Outcome> {
  switch (operation) {
    case 'attestation/options': {
      const full = withFullUsername(config, operation, body);
      const username = typeof full.username === 'string' ? full.username : undefined;
      if (username === undefined) return forward(config, operation, full, call.raw); // the service says what is wrong
      // Spec point 6: the integrator decides who may register, before the service issues a challenge.
      const view = await readSession(config, call.request);
      const outcome = config.mayRegister
        ? ((await askRegistrationHook(config, username, full, view, call)) ??
          (await forward(config, operation, full, call.raw)))
        : await mayRegisterByDefault(config, username, full, view, (sent) =>
            forward(config, operation, sent, call.raw),
          );
      rememberOptions(pending, 'attestation', username, outcome);
      return outcome;
    }
    case 'assertion/options': {
      const full = withFullUsername(config, operation, body);
      const username = typeof full.username === 'string' ? full.username : undefined;
      let outcome = await forward(config, operation, full, call.raw);
      if (username !== undefined) {
        rememberOptions(pending, 'assertion', username, outcome);
        if (config.localStore && config.localAllowCredentials)
          outcome = await withKeptCredentials(config, username, outcome);
      }
      return outcome;
    }
    case 'attestation/result':
    case 'assertion/result':
      return runResult(config, pending, operation, body, call);
    case 'credentials/list':
    case 'credentials/delete':
    case 'credentials/rename': {
      const view = await readSession(config, call.request);
      const own = ownCredentialsCall(config, view, operation, body);
      if (own.kind === 'refused') return { status: own.status, body: own.body };
      // Local variant: the service keeps no passkeys; the relay's store has them.
      return config.localStore
        ? localOwnCredentials(config, operation, own.body)
        : forward(config, operation, own.body, call.raw);
    }
  }
}

async function runResult(
  config: ResolvedRelayOptions,
  pending: PendingCeremonies,
  operation: 'attestation/result' | 'assertion/result',
  body: Body,
  call: Call,
): Promise<Outcome> {
  const kind = operation === 'attestation/result' ? 'attestation' : 'assertion';
  const challenge = challengeOf(body);
  // What this relay remembers of the options call: a hint for finding a blob, never who signed in.
  const ceremony = challenge === undefined ? undefined : pending.take(challenge, kind);
  const credentialId = typeof body.id === 'string' ? body.id : undefined;
  let sent = body;
  let used: LocalCredential | undefined;
  if (config.localStore) {
    if (kind === 'attestation') {
      // Local step 1: mark the attestation result as a local-variant call.
      sent = withExtension(body, true);
    } else {
      // Local step 3: send the kept blob with every assertion result.
      const kept =
        credentialId === undefined
          ? undefined
          : await findBlob(config.localStore, ceremony?.username, credentialId, userHandleOf(body));
      if (kept === 'ceremony-unknown') return failedEnvelope('RELAY_CEREMONY_UNKNOWN');
      if (kept === undefined) return failedEnvelope('LOCAL_CREDENTIAL_UNKNOWN');
      sent = withExtension(body, kept.localhost);
      used = kept;
    }
  }
  let outcome = await forward(config, operation, sent, call.raw);
  // Who signed in or registered: from the service's ok answer only, so a restarted relay, or another
  // instance than the one that relayed the options, tells the same (docs/relay.md).
  const owner = ownerOf(outcome);
  if (config.localStore && kind === 'attestation' && outcome.body.status === 'ok' && credentialId !== undefined) {
    // A service older than the identity fields names no owner: file under the options call's username.
    const filedUnder = owner ?? ceremony?.username;
    if (filedUnder === undefined) return failedEnvelope('RELAY_CEREMONY_UNKNOWN');
    outcome = await keepBlob(config, filedUnder, credentialId, body, outcome);
  }
  // Local variant: the relay's own credentialsToken, for the user's passkey list it keeps.
  if (config.localStore) outcome = await withLocalToken(config, kind, outcome, used);
  // The session keeps who signed in and the token (session.ts); read after the service answered.
  const view = await readSession(config, call.request);
  keepResult(view, owner, outcome.body);
  await tellResult(config, { operation: kind, username: owner, credentialId, outcome, call });
  // A session keeps the token on the server: onResult had it, the browser does not.
  const shown = withoutToken(config, view, outcome.body);
  return shown === undefined ? outcome : { ...outcome, raw: undefined, body: shown };
}

/** The assertion's `response.userHandle` (who the authenticator says signs in), if it is a string. */
function userHandleOf(body: Body): string | undefined {
  const userHandle = (body.response as { userHandle?: unknown } | undefined)?.userHandle;
  return typeof userHandle === 'string' && userHandle !== '' ? userHandle : undefined;
}

/** The `username` of an ok answer (the credential's owner, as the service says), else undefined. */
function ownerOf(outcome: Outcome): string | undefined {
  const username = outcome.body.username;
  return outcome.body.status === 'ok' && typeof username === 'string' && username !== '' ? username : undefined;
}

async function askRegistrationHook(
  config: ResolvedRelayOptions,
  username: string,
  body: Body,
  view: SessionView,
  call: Call,
): Promise<Outcome | undefined> {
  const displayName = typeof body.displayName === 'string' ? body.displayName : undefined;
  let decision: RegistrationDecision;
  try {
    decision = await config.mayRegister!({
      username,
      displayName,
      signedInUser: view.signedInUser,
      request: call.request,
    });
  } catch (error) {
    // Fail closed: a hook that cannot decide has not allowed anything.
    config.log?.error({ username, error: String(error) }, 'registration hook failed');
    return failedEnvelope('REGISTRATION_NOT_ALLOWED');
  }
  if (decision === true) return undefined;
  if (typeof decision === 'object' && decision !== null && decision.allowed === true) return undefined;
  const reason = typeof decision === 'object' && decision !== null ? decision.reason : undefined;
  config.log?.warn({ username, signedInUser: view.signedInUser ?? null }, 'registration refused by mayRegister');
  return failedEnvelope('REGISTRATION_NOT_ALLOWED', reason);
}

function rememberOptions(
  pending: PendingCeremonies,
  operation: 'attestation' | 'assertion',
  username: string,
  outcome: Outcome,
): void {
  const { challenge, timeout } = outcome.body;
  if (outcome.body.status !== 'ok' || typeof challenge !== 'string') return;
  // The service's own lifetime (ms) plus a margin for the slowest user; bounded either way.
  const lifetime = typeof timeout === 'number' && timeout > 0 ? Math.min(timeout, 3_600_000) + 60_000 : 600_000;
  pending.remember(challenge, { operation, username }, lifetime);
}

async function tellResult(
  config: ResolvedRelayOptions,
  event: {
    operation: 'attestation' | 'assertion';
    username: string | undefined;
    credentialId: string | undefined;
    outcome: Outcome;
    call: Call;
  },
): Promise<void> {
  if (!config.onResult) return;
  try {
    await config.onResult({
      operation: event.operation,
      username: event.username,
      credentialId: event.credentialId,
      ok: event.outcome.body.status === 'ok',
      httpStatus: event.outcome.status,
      signals: signalsOf(event.outcome.body),
      body: event.outcome.body,
      request: event.call.request,
      response: event.call.response,
    });
  } catch (error) {
    config.log?.warn({ error: String(error) }, 'onResult hook failed');
  }
}

async function forward(
  config: ResolvedRelayOptions,
  operation: RelayOperation,
  body: Body,
  request: IncomingMessage,
): Promise<Outcome> {
  const url = new URL(config.serviceUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/${operation}`;
  const result = await postToService({
    url,
    userAgent: config.userAgent,
    authorization: config.authorization,
    origin: config.origin,
    traceContext: traceContextOf(request),
    body: Buffer.from(JSON.stringify(body)),
    timeoutMs: config.upstreamTimeoutMs,
  });
  switch (result.kind) {
    case 'answer':
      return {
        status: result.status,
        body: result.body,
        raw: result.raw,
        ...(result.retryAfter ? { retryAfter: result.retryAfter } : {}),
      };
    case 'timeout':
      config.log?.warn({ operation, url: url.href }, 'passkey service timed out');
      return failedEnvelope('RELAY_UPSTREAM_TIMEOUT');
    case 'unreachable':
      config.log?.warn({ operation, url: url.href, reason: result.reason }, 'passkey service unreachable');
      return failedEnvelope('RELAY_UPSTREAM_UNREACHABLE');
    case 'invalid':
      config.log?.warn({ operation, url: url.href, reason: result.reason }, 'passkey service answer unusable');
      return failedEnvelope('RELAY_UPSTREAM_INVALID_RESPONSE');
  }
}
