// The admin listener's request handler (node:http) over its route table (routes.ts). Open paths: /health,
// /ready, /openapi.json, (unless configured otherwise) /metrics and the console's files. Everything under
// /admin/ needs `Authorization: Bearer <admin token>`. Answers are JSON (the audit export is JSON lines, a
// passkey export is streamed: streams.ts, which also reads an import's body as a stream), each
// with an X-Request-Id; one log line per request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StoreUnavailableError } from '../errors/catalogue.js';
import { compile, type Validator } from '../schemas/typebox.js';
import { type Answer, errorAnswer, json, methodNotAllowed } from './answers.js';
import { type Actor, audited } from './audited.js';
import { CONSOLE_PATH, consoleFiles } from './console.js';
import { AdminError } from './errors.js';
import { hostChecker } from './host.js';
import { readJson, requestPath } from './params.js';
import { type AdminRequest, answersItself, bodyProblems, createRouter } from './router.js';
import { ADMIN_COMPONENTS, ADMIN_ROUTES, type AdminHandlerDeps, type Route } from './routes.js';
import {
  bodyDeadline,
  isStreamed,
  sendStreamed,
  STREAM_BODY_BYTES,
  streamedBody,
  type StreamedAnswer,
} from './streams.js';

export type { AdminHandlerDeps } from './routes.js';

/** Who asked (noted once authenticated), and whether the route reads its body as a stream. */
type Trace = { actor: string | null; streamed?: boolean; readonly deadline: { stream(): void } };

export function createAdminHandler(deps: AdminHandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const prefix = deps.runtime.randomBytes(6).toString('base64url');
  let count = 0;
  const pages = deps.console ?? consoleFiles();
  const hostAllowed = hostChecker(deps.host ?? '127.0.0.1', deps.allowedHosts ?? []);
  const find = createRouter(ADMIN_ROUTES.filter((route) => route.when?.(deps) ?? true));
  const checkBody = bodyChecker(deps);

  async function answer(req: IncomingMessage, requestId: string, trace: Trace): Promise<Answer | StreamedAnswer> {
    if (!hostAllowed(req.headersDistinct.host)) throw new AdminError('HOST_NOT_ALLOWED');
    const { path, segments, query } = requestPath(req.url);
    const method = req.method ?? 'GET';
    // The console's page and assets are open: they hold no data; every call they make needs the token.
    if (path === '/console' || path.startsWith(CONSOLE_PATH)) return pages(path, method);
    const admin = segments[0] === 'admin';
    if (admin) await authenticate(deps, req, trace);
    const found = find(segments, method);
    if (found === undefined) throw new AdminError('NOT_FOUND');
    if (!admin && found.any.token?.(deps)) await authenticate(deps, req, trace);
    const route = found.route;
    if (route === undefined) throw methodNotAllowed(found.allow);
    const actor: Actor = {
      name: trace.actor ?? 'anonymous',
      requestId,
      remoteAddress: req.socket.remoteAddress ?? null,
    };
    const request: AdminRequest = { params: found.params, query, actor, body: undefined };
    const ready = route.body === undefined ? request : { ...request, body: await checkBody(route, request, req) };
    const input = route.streamed === undefined ? undefined : streamInput(deps, req, trace);
    const value = await route.run(input === undefined ? ready : { ...ready, input }, deps);
    return answersItself(route) ? (value as Answer | StreamedAnswer) : json(route.status ?? 200, value);
  }

  return (req, res) => {
    const started = deps.runtime.now();
    const requestId = `${prefix}-${(count++).toString(36)}`;
    const trace: Trace = { actor: null, deadline: bodyDeadline(req) };
    void answer(req, requestId, trace)
      .catch((error: unknown) => failure(deps, requestId, error))
      .then(async (sent) => {
        await deliver(deps, req, res, sent, requestId, trace);
        const durationMs = Math.max(0, deps.runtime.now() - started);
        const path = (req.url ?? '/').split('?', 1)[0];
        const line = { event: 'admin_request', requestId, method: req.method, path, status: sent.status, durationMs };
        deps.log.info({ ...line, actor: trace.actor }, 'admin request');
      });
  };
}

/** The body of a streamed route as it arrives: no longer under the whole-body deadline, but its own limits. */
function streamInput(deps: AdminHandlerDeps, req: IncomingMessage, trace: Trace): AsyncIterable<Uint8Array> {
  trace.streamed = true;
  trace.deadline.stream();
  return streamedBody(req, deps.streamedBodyBytes ?? STREAM_BODY_BYTES);
}

async function deliver(
  deps: AdminHandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  sent: Answer | StreamedAnswer,
  requestId: string,
  trace: Trace,
): Promise<void> {
  if (isStreamed(sent))
    await sendStreamed(req, res, sent, headers(requestId)).catch((error: unknown) => failure(deps, requestId, error));
  // A streamed body refused before its end is not read on (it may be a gigabyte): close after answering.
  else if (trace.streamed === true && !req.complete) send(req, res, closing(sent), requestId);
  else send(req, res, sent, requestId);
}

/** The admin token's name (`admin:<name>`, noted in `trace`), or UNAUTHORIZED. */
async function authenticate(deps: AdminHandlerDeps, req: IncomingMessage, trace: Trace): Promise<string> {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header) : null;
  const info = match ? await deps.tokens.verify(match[1]!) : undefined;
  if (!info) throw new AdminError('UNAUTHORIZED');
  trace.actor = `admin:${info.name}`;
  return trace.actor;
}

/**
 * Reads a route's body and checks it against the route's schema (compiled once) and its `check`: INVALID_REQUEST
 * with every problem, audited as the route's change failed (the path's Client ID and other id its facts).
 */
function bodyChecker(deps: AdminHandlerDeps) {
  const validators = new Map<string, Validator<unknown>>();
  const limit = deps.bodyBytes ?? 65_536;
  return async (route: Route, request: AdminRequest, req: IncomingMessage): Promise<unknown> => {
    const body = await readJson(req, limit);
    const name = route.body!;
    if (!validators.has(name)) validators.set(name, compile(ADMIN_COMPONENTS[name]));
    const problems = [...bodyProblems(validators.get(name)!, body), ...((await route.check?.(body, deps)) ?? [])];
    if (problems.length === 0) return body;
    const refused = async () => {
      throw new AdminError('INVALID_REQUEST', undefined, problems);
    };
    if (route.audit === undefined) return refused();
    const { clientId, ...others } = request.params;
    const target = Object.values(others)[0];
    return audited(deps.audit, request.actor, route.audit, { clientId, ...(target ? { target } : {}) }, refused);
  };
}

/** The answer of a failed request: its AdminError's, 503 for an unreachable store, else 500 (logged). */
function failure(deps: AdminHandlerDeps, requestId: string, error: unknown): Answer {
  if (error instanceof AdminError) return errorAnswer(error);
  if (error instanceof StoreUnavailableError) return errorAnswer(new AdminError('SERVICE_UNAVAILABLE'));
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  deps.log.error({ requestId, error: text }, 'admin request failed unexpectedly');
  return errorAnswer(new AdminError('INTERNAL_SERVER_ERROR'));
}

const closing = (sent: Answer): Answer => ({ ...sent, headers: { ...sent.headers, connection: 'close' } });

/** The headers of every answer. */
const headers = (requestId: string): Record<string, string> => ({
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-request-id': requestId,
});

function send(req: IncomingMessage, res: ServerResponse, answer: Answer, requestId: string): void {
  res.writeHead(answer.status, {
    'content-type': answer.contentType,
    'content-length': String(Buffer.byteLength(answer.body)),
    ...headers(requestId),
    ...answer.headers,
  });
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}
