// The HTTP app: `buildApp(deps)` never listens. `handler` serves node:http; `inject` serves an in-memory
// request through the very same `serve` path (only the socket is missing), for the ceremony tests.
//
// Order of checks for every request: route (404/405) → admission (429, by the address and, when User-agent
// names one, the Client ID) → Client ID in User-agent (400) → application (403) → relay secret (401) →
// Content-Type (415) → body size (413) → JSON (400) → schema (400) → operation.
// Every answer is the JSON envelope with an X-Request-Id header; OperationOutcome is reported once.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Variant } from '../config.js';
import { FidoError, type ErrorName } from '../errors.js';
import { KeyCache } from '../ceremonies/key-cache.js';
import type { CeremonyContext } from '../ceremonies/context.js';
import type { OperationOutcome, RequestSpan, ServiceDeps } from '../service.js';
import { BodyTooLarge, checkContentType, parseJsonBody, readBody } from './body.js';
import { failed, ok, replyForError, type Reply } from './envelope.js';
import { parseClientId, singleOrigin } from './headers.js';
import { compileRequestReaders } from './validation.js';
import { checkRelaySecret } from './relay-secret.js';
import { drainRequest } from './linger.js';
import { ALLOWED_METHODS, ROUTES } from './routes.js';
import { routeOf, single, spanAttributes, spanName } from './tracing.js';

export interface InjectRequest {
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  readonly remoteAddress?: string;
}

export interface InjectResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Record<string, string>;
  readonly body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers of every shape without a cast
  json(): any;
}

export interface App {
  handler(req: IncomingMessage, res: ServerResponse): void;
  inject(request: InjectRequest): Promise<InjectResponse>;
  /** The answer to a request that never became one (the HTTP parser refused it): the envelope, `Connection: close`. */
  failure(name: ErrorName, remoteAddress: string | null): Answer;
}

/** One request, whichever way it arrived. Header values are every occurrence, so doubles can be refused. */
interface Call {
  /** HTTP/1.1 without a Host header (RFC 9112 §3.2): refused before anything else. */
  readonly hostMissing: boolean;
  readonly method: string;
  readonly url: string;
  header(name: string): readonly string[] | undefined;
  readonly body: Readable;
  readonly remoteAddress: string | null;
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** What is known about the request so far, for the outcome hook and the logs. */
interface Trace {
  operation: OperationOutcome['operation'];
  clientId: string | null;
  variant: Variant | null;
  username: string | null;
  credentialId: string | null;
  backupEligibilityChange: OperationOutcome['backupEligibilityChange'];
  authenticatorStatus: string | null;
}

function newTrace(): Trace {
  return {
    operation: 'other',
    clientId: null,
    variant: null,
    username: null,
    credentialId: null,
    backupEligibilityChange: null,
    authenticatorStatus: null,
  };
}

/** inject() feeds its body in chunks of this size, like a socket would. */
const INJECT_CHUNK = 16 * 1024;

export interface AppOptions {
  /** The imported-key cache (default: a new one of the default capacity); tests pass theirs to watch it. */
  readonly keyCache?: KeyCache;
}

export function buildApp(deps: ServiceDeps, options: AppOptions = {}): App {
  const keys = options.keyCache ?? new KeyCache();
  const readers = compileRequestReaders(deps.config.limits);
  const requestIdPrefix = deps.runtime.randomBytes(6).toString('base64url');
  let requestCount = 0;

  async function dispatch(call: Call, trace: Trace): Promise<Reply> {
    const path = call.url.split('?', 1)[0]!;
    const route = ROUTES.get(path);
    if (!route) return failed('NOT_FOUND');
    if (call.method !== 'POST') return failed('METHOD_NOT_ALLOWED', undefined, { allow: ALLOWED_METHODS });
    trace.operation = route.operation;

    // An address over its limit is refused before anything it sent is looked at, even a bad User-agent.
    let clientId: string | null = null;
    let clientIdError: unknown;
    try {
      clientId = parseClientId(call.header('user-agent'), deps.config.vendor);
    } catch (error) {
      clientIdError = error;
    }
    trace.clientId = clientId;
    if (deps.hooks?.admit) {
      const decision = await deps.hooks.admit({ clientId, remoteAddress: call.remoteAddress });
      if (!decision.allowed) {
        const seconds = Math.max(1, Math.ceil(decision.retryAfterSeconds));
        return failed('RATE_LIMITED', undefined, { 'retry-after': String(seconds) });
      }
    }
    if (clientId === null) throw clientIdError;
    const application = await deps.applications.find(clientId);
    if (!application) throw new FidoError('CLIENT_ID_UNKNOWN');
    const secret = checkRelaySecret(application, call.header('authorization'));
    if (secret !== null) deps.applications.noteRelaySecretUse?.(clientId, secret);

    checkContentType(call.header('content-type'));
    const raw = await readBody(call.body, deps.config.limits.bodyBytes, call.header('content-length'));
    const json = parseJsonBody(raw);

    const ctx: CeremonyContext = {
      deps,
      application,
      clientId,
      originHeader: singleOrigin(call.header('origin')),
      keys,
      noteVariant: (variant) => {
        trace.variant = variant;
      },
      noteSubject: ({ username, credentialId, backupEligibilityChange, authenticatorStatus }) => {
        if (authenticatorStatus !== undefined) trace.authenticatorStatus = authenticatorStatus;
        if (username !== undefined) trace.username = username;
        if (credentialId !== undefined) trace.credentialId = credentialId;
        if (backupEligibilityChange !== undefined) trace.backupEligibilityChange = backupEligibilityChange;
      },
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
    let reply: Reply;
    let closeConnection = call.hostMissing;
    try {
      reply = call.hostMissing
        ? failed('MALFORMED_HTTP_REQUEST', 'An HTTP/1.1 request must carry a Host header.')
        : await dispatch(call, trace);
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
    reportOutcome(requestId, trace, reply, started, call.remoteAddress);
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
    return answerOf(requestId, reply, closeConnection);
  }

  function answerOf(requestId: string, reply: Reply, closeConnection: boolean): Answer {
    const body = JSON.stringify(reply.body);
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': requestId,
      ...reply.headers,
    };
    if (closeConnection) headers.connection = 'close';
    return { status: reply.status, headers, body };
  }

  function nextRequestId(): string {
    return `${requestIdPrefix}-${(requestCount++).toString(36)}`;
  }

  function reportOutcome(
    requestId: string,
    trace: Trace,
    reply: Reply,
    started: number,
    remoteAddress: string | null,
  ): void {
    const onOutcome = deps.hooks?.onOutcome;
    if (!onOutcome) return;
    const errorMessage = reply.body.errorMessage;
    try {
      onOutcome({
        operation: trace.operation,
        clientId: trace.clientId,
        variant: trace.variant,
        httpStatus: reply.status,
        errorName: Array.isArray(errorMessage) ? String(errorMessage[0]) : null,
        durationMs: Math.max(0, deps.runtime.now() - started),
        requestId,
        remoteAddress,
        username: trace.username,
        credentialId: trace.credentialId,
        backupEligibilityChange: trace.backupEligibilityChange,
        authenticatorStatus: trace.authenticatorStatus,
      });
    } catch (error) {
      // Instrumentation must never change an answer.
      deps.log.warn({ requestId, error: describe(error) }, 'outcome hook failed');
    }
  }

  return {
    handler(req, res) {
      const call: Call = {
        hostMissing: req.httpVersion === '1.1' && req.headersDistinct.host === undefined,
        method: req.method ?? '',
        url: req.url ?? '/',
        header: (name) => req.headersDistinct[name],
        body: req,
        remoteAddress: req.socket.remoteAddress ?? null,
      };
      void serve(call)
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
      reportOutcome(requestId, trace, reply, deps.runtime.now(), remoteAddress);
      return answerOf(requestId, reply, true);
    },

    async inject(request) {
      const headers = new Map<string, string>();
      for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name.toLowerCase(), value);
      const bytes = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += INJECT_CHUNK) chunks.push(bytes.subarray(at, at + INJECT_CHUNK));
      const answer = await serve({
        hostMissing: false,
        method: request.method.toUpperCase(),
        url: request.url,
        header: (name) => (headers.has(name) ? [headers.get(name)!] : undefined),
        body: Readable.from(chunks),
        remoteAddress: request.remoteAddress ?? '127.0.0.1',
      });
      return { ...answer, json: () => JSON.parse(answer.body) };
    },
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
