// The HTTP app: `buildApp(deps)` never listens. `handler` serves node:http; `inject` serves an in-memory
// request through the very same `serve` path (only the socket is missing), for the ceremony tests.
//
// Order of checks for every request: route (404/405) → admission (429, by the address and, when User-agent
// names one, the Client ID) → Client ID in User-agent (400) → application (403) → relay secret (401) →
// Content-Type (415) → body size (413) → JSON (400) → schema (400) → operation.
// Every answer is the JSON envelope with an X-Request-Id header; OperationOutcome is reported once. An
// answer that could tell a registered user from an unknown one then waits for the answer floor
// (answer-floor.ts), whose timer starts as soon as the route is known; the outcome's duration is the work's,
// without that wait.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { FidoError, type ErrorName } from '../errors/catalogue.js';
import { KeyCache } from '../ceremonies/key-cache.js';
import { CredentialSnapshots } from '../ceremonies/credential-snapshots.js';
import type { CeremonyContext } from '../ceremonies/context.js';
import type { RequestSpan, ServiceHooks } from '../service.js';
import type { ServiceDeps } from '../ceremonies/deps.js';
import { AnswerFloor } from './answer-floor.js';
import { answerOf, describe, newTrace, reportOutcome, type Answer, type Trace } from './answer.js';
import { callOf, injectedCall, type Call, type InjectRequest, type InjectResponse } from './call.js';
import { BodyTooLarge, checkContentType, parseJsonBody, readBody } from './body.js';
import { failed, ok, replyForError, type Reply } from './envelope.js';
import { parseClientId, singleOrigin } from './headers.js';
import { compileRequestReaders } from './validation.js';
import { checkRelaySecret } from './relay-secret.js';
import { drainRequest } from './linger.js';
import { ALLOWED_METHODS, ROUTES } from './routes.js';
import { routeOf, single, spanAttributes, spanName } from './tracing.js';

export type { Answer } from './answer.js';
export type { InjectRequest, InjectResponse } from './call.js';

export interface App {
  handler(req: IncomingMessage, res: ServerResponse): void;
  inject(request: InjectRequest): Promise<InjectResponse>;
  /** The answer to a request that never became one (the HTTP parser refused it): the envelope, `Connection: close`. */
  failure(name: ErrorName, remoteAddress: string | null): Answer;
}

export interface AppOptions {
  /** The imported-key cache (default: a new one of the default capacity); tests pass theirs to watch it. */
  readonly keyCache?: KeyCache;
  /** The sign-in snapshots (default: a new one of the default capacity); tests pass theirs to watch it. */
  readonly snapshots?: CredentialSnapshots;
}

export function buildApp(deps: ServiceDeps, options: AppOptions = {}): App {
  const keys = options.keyCache ?? new KeyCache();
  const snapshots = options.snapshots ?? new CredentialSnapshots();
  const readers = compileRequestReaders(deps.config.limits);
  const requestIdPrefix = deps.runtime.randomBytes(6).toString('base64url');
  const floorMs = deps.config.answerFloorMs;
  let requestCount = 0;

  /** The 429 reply when the admission hook refuses, else undefined. */
  async function admit(request: Parameters<NonNullable<ServiceHooks['admit']>>[0]): Promise<Reply | undefined> {
    if (!deps.hooks?.admit) return undefined;
    const decision = await deps.hooks.admit(request);
    if (decision.allowed) return undefined;
    const seconds = Math.max(1, Math.ceil(decision.retryAfterSeconds));
    return failed('RATE_LIMITED', undefined, { 'retry-after': String(seconds) });
  }

  async function dispatch(call: Call, trace: Trace, floor: AnswerFloor): Promise<Reply> {
    const path = call.url.split('?', 1)[0]!;
    const route = ROUTES.get(path);
    if (!route) return failed('NOT_FOUND');
    if (call.method !== 'POST') return failed('METHOD_NOT_ALLOWED', undefined, { allow: ALLOWED_METHODS });
    trace.operation = route.operation;
    if (route.answerFloor !== undefined) floor.start(route.answerFloor);

    // An address over its limit is refused before anything it sent is looked at, even a bad User-agent.
    let clientId: string | null = null;
    let clientIdError: unknown;
    try {
      clientId = parseClientId(call.header('user-agent'), deps.config.vendor);
    } catch (error) {
      clientIdError = error;
    }
    trace.clientId = clientId;
    const refused = await admit({ clientId, remoteAddress: call.remoteAddress, scope: 'address' });
    if (refused) return refused;
    if (clientId === null) throw clientIdError;
    const application = await deps.applications.find(clientId);
    if (!application) throw new FidoError('CLIENT_ID_UNKNOWN');
    // An application that reveals unknown users says so in its answers: waiting would hide nothing.
    if (application.revealUnknownUsers) floor.exempt();
    const secret = checkRelaySecret(application, call.header('authorization'));
    if (secret !== null) deps.applications.noteRelaySecretUse?.(clientId, secret);
    // Only a call its relay secret let through counts on the application's bucket.
    const refusedForApplication = await admit({ clientId, remoteAddress: call.remoteAddress, scope: 'application' });
    if (refusedForApplication) return refusedForApplication;

    checkContentType(call.header('content-type'));
    const raw = await readBody(call.body, deps.config.limits.bodyBytes, call.header('content-length'));
    const json = parseJsonBody(raw);

    const ctx: CeremonyContext = {
      deps,
      application,
      clientId,
      originHeader: singleOrigin(call.header('origin')),
      keys,
      snapshots,
      noteVariant: (variant) => {
        trace.variant = variant;
      },
      noteSubject: ({ username, credentialId, backupEligibilityChange, authenticatorStatus }) => {
        if (authenticatorStatus !== undefined) trace.authenticatorStatus = authenticatorStatus;
        if (username !== undefined) trace.username = username;
        if (credentialId !== undefined) trace.credentialId = credentialId;
        if (backupEligibilityChange !== undefined) trace.backupEligibilityChange = backupEligibilityChange;
      },
      exemptFromAnswerFloor: () => floor.exempt(),
    };
    return ok(await route.run(ctx, json, readers));
  }

  /** With traces on, the request runs inside its span (src/service.ts `Tracer`); off, it costs one check. */
  function serve(call: Call): Promise<Answer> {
    const tracer = deps.tracer;
    if (tracer === undefined) return serveRequest(call, undefined);
    const carrier = {
      traceparent: single(call.header('traceparent')),
      tracestate: single(call.header('tracestate')),
    };
    return tracer.request(spanName(call.method, routeOf(call.url)), carrier, (span) => serveRequest(call, span));
  }

  async function serveRequest(call: Call, span: RequestSpan | undefined): Promise<Answer> {
    const started = deps.runtime.now();
    const requestId = nextRequestId();
    const trace = newTrace();
    const floor = new AnswerFloor(deps.runtime, floorMs);
    let reply: Reply;
    let closeConnection = call.hostMissing;
    try {
      reply = call.hostMissing
        ? failed('MALFORMED_HTTP_REQUEST', 'An HTTP/1.1 request must carry a Host header.')
        : await dispatch(call, trace, floor);
    } catch (error) {
      // The rest of an oversized body is never read: close the connection after answering.
      closeConnection = error instanceof BodyTooLarge;
      const classified = replyForError(error);
      reply = classified.reply;
      if (classified.unexpected) {
        deps.log.error(
          { requestId, operation: trace.operation, clientId: trace.clientId, error: describe(error) },
          'request failed unexpectedly',
        );
      }
    }
    reportOutcome(deps, requestId, trace, reply, started, call.remoteAddress);
    if (span !== undefined) {
      const errorMessage = reply.body.errorMessage;
      span.set(
        spanAttributes({
          method: call.method,
          route: routeOf(call.url),
          status: reply.status,
          clientId: trace.clientId,
          variant: trace.variant,
          errorName: Array.isArray(errorMessage) ? String(errorMessage[0]) : null,
        }),
      );
    }
    // Everything is done, the answer's body too, before the wait: only the write follows the floor.
    const answer = answerOf(requestId, reply, closeConnection);
    const floorPassed = floor.release(reply);
    if (floorPassed !== undefined) await floorPassed;
    return answer;
  }

  function nextRequestId(): string {
    return `${requestIdPrefix}-${(requestCount++).toString(36)}`;
  }

  return {
    handler(req, res) {
      void serve(callOf(req))
        .then(async (answer) => {
          res.writeHead(answer.status, answer.headers);
          if (answer.headers.connection !== 'close') {
            res.end(answer.body);
            return;
          }
          // The whole answer goes out at once (its Content-Length tells the client it is complete), but the
          // connection is closed only once the client stopped sending what it declared (an oversized body,
          // perhaps never sent) or the bound passed: a client still uploading reads the answer instead of
          // meeting a reset (linger.ts).
          res.write(answer.body);
          await drainRequest(req);
          res.end();
        })
        .catch((error: unknown) => {
          // serve() never rejects; writing can (a socket already gone). Never let it become an unhandled rejection.
          deps.log.warn({ error: describe(error) }, 'could not write the answer');
          res.destroy();
        });
    },

    failure(name, remoteAddress) {
      const requestId = nextRequestId();
      const reply = failed(name);
      const trace = newTrace();
      reportOutcome(deps, requestId, trace, reply, deps.runtime.now(), remoteAddress);
      return answerOf(requestId, reply, true);
    },

    async inject(request) {
      const answer = await serve(injectedCall(request));
      return { ...answer, json: () => JSON.parse(answer.body) };
    },
  };
}
