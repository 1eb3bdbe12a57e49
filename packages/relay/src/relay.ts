// The relay: the integrator's endpoint on the page's own origin (spec point 5). It maps its paths onto
// the service's `/api/…` paths, sets the caller headers itself, and passes the service's answer through.
// In the local variant it does the spec's three bookkeeping steps around the `localhost` blob
// (local-steps.ts); a user's own passkeys go through own-credentials.ts; it can serve the related origins
// document at /.well-known/webauthn.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { failedEnvelope, type RelayErrorName } from './errors.js';
import { isJsonContentType, parseJsonObject, readJsonBody, type BodyResult } from './body.js';
import { challengeOf, PendingCeremonies } from './ceremonies.js';
import { findBlob, keepBlob, withExtension, withKeptCredentials } from './local-steps.js';
import { MemoryLocalStore } from './local-store.js';
import { resolveRelayOptions, type RegistrationDecision, type RelayOptions, type ResolvedRelayOptions } from './options.js';
import type { Body, Outcome } from './outcome.js';
import { ownCredentialsCall, signalsOf, withoutToken } from './own-credentials.js';
import { postToService } from './upstream.js';

export type RelayOperation = 'attestation/options' | 'attestation/result' | 'assertion/options' | 'assertion/result'
  | 'credentials/list' | 'credentials/delete';
export const RELAY_OPERATIONS: readonly RelayOperation[] = [
  'attestation/options', 'attestation/result', 'assertion/options', 'assertion/result', 'credentials/list', 'credentials/delete',
];

/** Where WebAuthn L3 §5.11 has browsers look for the related origins of an RP ID (on https://<rpId>). */
export const WELL_KNOWN_WEBAUTHN = '/.well-known/webauthn';

/** What the browser sent: raw bytes (node:http, Fastify) or a body a framework already parsed (Express). */
export type RelayInput =
  | { readonly kind: 'raw'; readonly contentType: string | undefined; readonly bytes: Buffer }
  | { readonly kind: 'parsed'; readonly body: unknown };

export interface RelayAnswer {
  readonly status: number;
  /** The JSON bytes to send (the service's own bytes when the relay changed nothing). */
  readonly payload: Buffer;
  /** The service's Retry-After (429), passed on. */
  readonly retryAfter?: string | undefined;
}

export interface Relay {
  /** The normalised path prefix ('' or '/something'). */
  readonly prefix: string;
  readonly maxBodyBytes: number;
  /** `node:http` / Connect / Express handler. Paths that are not the relay's go to `next` (or get 404). */
  readonly handler: (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void;
  /** The operation a path names, or undefined. */
  operationOf(pathname: string): RelayOperation | undefined;
  /** The `/.well-known/webauthn` body (`relatedOrigins` option), or undefined when none is configured. */
  readonly relatedOrigins: string | undefined;
  /** Framework-neutral core: one browser call in, the answer to send out. Never throws. */
  relay(operation: RelayOperation, input: RelayInput, request: IncomingMessage, response: ServerResponse): Promise<RelayAnswer>;
}


export function createRelay(options: RelayOptions): Relay {
  const config = resolveRelayOptions(options, () => new MemoryLocalStore());
  const pending = new PendingCeremonies();
  const paths = new Map(RELAY_OPERATIONS.map((operation) => [`${config.prefix}/${operation}`, operation]));
  const operationOf = (pathname: string) => paths.get(pathname);

  async function relay(operation: RelayOperation, input: RelayInput, request: IncomingMessage, response: ServerResponse): Promise<RelayAnswer> {
    try {
      const parsed = parseInput(input, config.maxBodyBytes);
      if (parsed.kind !== 'ok') return toAnswer(failedEnvelope(bodyError(parsed)));
      const outcome = await run(config, pending, operation, parsed.value, request, response);
      return toAnswer(outcome);
    } catch (error) {
      config.log?.error({ operation, error: String(error) }, 'relay failed');
      return toAnswer(failedEnvelope('RELAY_INTERNAL_ERROR'));
    }
  }

  const handler: Relay['handler'] = (request, response, next) => {
    const pathname = pathnameOf(request.url);
    if (pathname === WELL_KNOWN_WEBAUTHN && config.wellKnownWebauthn !== undefined) {
      request.resume();
      return void sendRelatedOrigins(response, request.method ?? '', config.wellKnownWebauthn);
    }
    const operation = operationOf(pathname);
    if (operation === undefined) {
      if (next) return next();
      return void send(response, toAnswer(failedEnvelope('NOT_FOUND')));
    }
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      request.resume();
      return void send(response, toAnswer(failedEnvelope('METHOD_NOT_ALLOWED')));
    }
    void inputOf(request, config.maxBodyBytes)
      .then((input) => (input.kind === 'answer' ? input.answer : relay(operation, input, request, response)))
      .then((answer) => send(response, answer), (error) => {
        config.log?.error({ operation, error: String(error) }, 'relay failed');
        send(response, toAnswer(failedEnvelope('RELAY_INTERNAL_ERROR')));
      });
  };

  return { prefix: config.prefix, maxBodyBytes: config.maxBodyBytes, handler, operationOf, relay, relatedOrigins: config.wellKnownWebauthn };
}

/** The path of a request target; an unparsable one (e.g. a broken absolute-form URL) matches nothing. */
function pathnameOf(target: string | undefined): string {
  try {
    return new URL(target ?? '/', 'http://relay.invalid').pathname;
  } catch {
    return '';
  }
}

/** Reads the body unless a framework (e.g. express.json()) already did. */
async function inputOf(request: IncomingMessage, limit: number): Promise<RelayInput | { kind: 'answer'; answer: RelayAnswer }> {
  const preParsed = (request as { body?: unknown }).body;
  if (preParsed !== undefined && request.readableEnded) {
    return Buffer.isBuffer(preParsed) || typeof preParsed === 'string'
      ? { kind: 'raw', contentType: request.headers['content-type'], bytes: Buffer.from(preParsed) }
      : { kind: 'parsed', body: preParsed };
  }
  const result = await readJsonBody(request, limit);
  if (result.kind !== 'ok') return { kind: 'answer', answer: toAnswer(failedEnvelope(bodyError(result))) };
  return { kind: 'parsed', body: result.value };
}

function parseInput(input: RelayInput, limit: number): BodyResult {
  if (input.kind === 'parsed') {
    const body = input.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) return { kind: 'malformed' };
    return { kind: 'ok', value: body as Body };
  }
  if (!isJsonContentType(input.contentType)) return { kind: 'not-json-type' };
  if (input.bytes.length > limit) return { kind: 'too-large' };
  return parseJsonObject(input.bytes.toString('utf8'));
}

function bodyError(result: Exclude<BodyResult, { kind: 'ok' }>): RelayErrorName {
  if (result.kind === 'too-large') return 'PAYLOAD_TOO_LARGE';
  if (result.kind === 'not-json-type') return 'UNSUPPORTED_MEDIA_TYPE';
  return 'MALFORMED_JSON';
}

async function run(config: ResolvedRelayOptions, pending: PendingCeremonies, operation: RelayOperation, body: Body,
  request: IncomingMessage, response: ServerResponse): Promise<Outcome> {
  switch (operation) {
    case 'attestation/options': {
      const username = typeof body.username === 'string' ? body.username : undefined;
      // Spec point 6: the integrator decides who may register, before the service issues a challenge.
      if (username !== undefined) {
        const refusal = await askRegistrationHook(config, username, body, request);
        if (refusal !== undefined) return refusal;
      }
      const outcome = await forward(config, operation, body);
      if (username !== undefined) rememberOptions(pending, 'attestation', username, outcome);
      return outcome;
    }
    case 'assertion/options': {
      const username = typeof body.username === 'string' ? body.username : undefined;
      let outcome = await forward(config, operation, body);
      if (username !== undefined) {
        rememberOptions(pending, 'assertion', username, outcome);
        if (config.localStore && config.localAllowCredentials) outcome = await withKeptCredentials(config, username, outcome);
      }
      return outcome;
    }
    case 'attestation/result':
    case 'assertion/result':
      return runResult(config, pending, operation, body, request, response);
    case 'credentials/list':
    case 'credentials/delete': {
      const call = await ownCredentialsCall(config, operation, body, request);
      return call.kind === 'refused' ? { status: call.status, body: call.body } : forward(config, operation, call.body);
    }
  }
}

async function runResult(config: ResolvedRelayOptions, pending: PendingCeremonies, operation: 'attestation/result' | 'assertion/result',
  body: Body, request: IncomingMessage, response: ServerResponse): Promise<Outcome> {
  const kind = operation === 'attestation/result' ? 'attestation' : 'assertion';
  const challenge = challengeOf(body);
  // What this relay remembers of the options call: a hint for finding a blob, never who signed in.
  const ceremony = challenge === undefined ? undefined : pending.take(challenge, kind);
  const credentialId = typeof body.id === 'string' ? body.id : undefined;
  let sent = body;
  if (config.localStore) {
    if (kind === 'attestation') {
      // Local step 1: mark the attestation result as a local-variant call.
      sent = withExtension(body, true);
    } else {
      // Local step 3: send the kept blob with every assertion result.
      const kept = credentialId === undefined ? undefined : await findBlob(config.localStore, ceremony?.username, credentialId);
      if (kept === 'ceremony-unknown') return failedEnvelope('RELAY_CEREMONY_UNKNOWN');
      if (kept === undefined) return failedEnvelope('LOCAL_CREDENTIAL_UNKNOWN');
      sent = withExtension(body, kept.localhost);
    }
  }
  let outcome = await forward(config, operation, sent);
  // Who signed in or registered: from the service's ok answer only, so a restarted relay, or another
  // instance than the one that relayed the options, tells the same (docs/relay.md).
  const owner = ownerOf(outcome);
  if (config.localStore && kind === 'attestation' && outcome.body.status === 'ok' && credentialId !== undefined) {
    // A service older than the identity fields names no owner: file under the options call's username.
    const filedUnder = owner ?? ceremony?.username;
    if (filedUnder === undefined) return failedEnvelope('RELAY_CEREMONY_UNKNOWN');
    outcome = await keepBlob(config, filedUnder, credentialId, body, outcome);
  }
  await tellResult(config, { operation: kind, username: owner, credentialId, outcome, request, response });
  // With credentialsSession the token stays on the server: onResult had it, the browser does not.
  const shown = withoutToken(config, outcome.body);
  return shown === undefined ? outcome : { ...outcome, raw: undefined, body: shown };
}

/** The `username` of an ok answer (the credential's owner, as the service says), else undefined. */
function ownerOf(outcome: Outcome): string | undefined {
  const username = outcome.body.username;
  return outcome.body.status === 'ok' && typeof username === 'string' && username !== '' ? username : undefined;
}

async function askRegistrationHook(config: ResolvedRelayOptions, username: string, body: Body, request: IncomingMessage): Promise<Outcome | undefined> {
  const displayName = typeof body.displayName === 'string' ? body.displayName : undefined;
  let decision: RegistrationDecision;
  try {
    decision = await config.mayRegister({ username, displayName, request });
  } catch (error) {
    // Fail closed: a hook that cannot decide has not allowed anything.
    config.log?.error({ username, error: String(error) }, 'registration hook failed');
    return failedEnvelope('REGISTRATION_NOT_ALLOWED');
  }
  if (decision === true) return undefined;
  if (typeof decision === 'object' && decision !== null && decision.allowed === true) return undefined;
  const reason = typeof decision === 'object' && decision !== null ? decision.reason : undefined;
  return failedEnvelope('REGISTRATION_NOT_ALLOWED', reason);
}

function rememberOptions(pending: PendingCeremonies, operation: 'attestation' | 'assertion', username: string, outcome: Outcome): void {
  const { challenge, timeout } = outcome.body;
  if (outcome.body.status !== 'ok' || typeof challenge !== 'string') return;
  // The service's own lifetime (ms) plus a margin for the slowest user; bounded either way.
  const lifetime = typeof timeout === 'number' && timeout > 0 ? Math.min(timeout, 3_600_000) + 60_000 : 600_000;
  pending.remember(challenge, { operation, username }, lifetime);
}

async function tellResult(config: ResolvedRelayOptions, event: { operation: 'attestation' | 'assertion'; username: string | undefined;
  credentialId: string | undefined; outcome: Outcome; request: IncomingMessage; response: ServerResponse }): Promise<void> {
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
      request: event.request,
      response: event.response,
    });
  } catch (error) {
    config.log?.warn({ error: String(error) }, 'onResult hook failed');
  }
}

async function forward(config: ResolvedRelayOptions, operation: RelayOperation, body: Body): Promise<Outcome> {
  const url = new URL(config.serviceUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/${operation}`;
  const result = await postToService({
    url,
    userAgent: config.userAgent,
    origin: config.origin,
    body: Buffer.from(JSON.stringify(body)),
    timeoutMs: config.upstreamTimeoutMs,
  });
  switch (result.kind) {
    case 'answer':
      return { status: result.status, body: result.body, raw: result.raw, ...(result.retryAfter ? { retryAfter: result.retryAfter } : {}) };
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

function toAnswer(outcome: Outcome): RelayAnswer {
  const payload = outcome.raw ?? Buffer.from(JSON.stringify(outcome.body));
  return outcome.retryAfter === undefined ? { status: outcome.status, payload } : { status: outcome.status, payload, retryAfter: outcome.retryAfter };
}

function send(response: ServerResponse, answer: RelayAnswer): void {
  if (response.headersSent) return;
  response.statusCode = answer.status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('content-length', answer.payload.length);
  response.setHeader('cache-control', 'no-store');
  if (answer.retryAfter !== undefined) response.setHeader('retry-after', answer.retryAfter);
  response.end(answer.payload);
}

/** GET (and HEAD) of the related origins document; cached briefly, as browsers fetch it per ceremony. */
function sendRelatedOrigins(response: ServerResponse, method: string, body: string): void {
  if (method !== 'GET' && method !== 'HEAD') {
    response.statusCode = 405;
    response.setHeader('allow', 'GET, HEAD');
    response.end();
    return;
  }
  response.statusCode = 200;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('content-length', Buffer.byteLength(body));
  response.setHeader('cache-control', 'public, max-age=300');
  response.end(method === 'HEAD' ? undefined : body);
}
