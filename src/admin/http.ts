// The admin listener's request handler (node:http). Open paths: /health, /ready, /openapi.json and (unless
// configured otherwise) /metrics. Everything under /admin/ needs `Authorization: Bearer <admin token>`.
// Answers are JSON (the audit export is JSON lines), each with an X-Request-Id; one log line per request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../util/log.js';
import type { MetadataReloadReport } from '../applications/trust-reload.js';
import type { Runtime } from '../util/runtime.js';
import type { AuditLog } from '../audit/log.js';
import { toJsonLines } from '../audit/events.js';
import type { AuditQuery } from '../audit/types.js';
import { EXPOSITION_CONTENT_TYPE, type MetricsRegistry } from '../metrics/registry.js';
import { ADMIN_ERRORS, AdminError } from './errors.js';
import { FidoError, StoreUnavailableError } from '../errors.js';
import { checkContentType, parseJsonBody, readBody } from '../http/body.js';
import type { AdminOperations, Actor } from './operations.js';
import type { Readiness } from '../runtime/readiness.js';
import type { AdminTokenStore } from './tokens.js';

export interface AdminHandlerDeps {
  readonly operations: AdminOperations;
  readonly audit: AuditLog;
  readonly tokens: AdminTokenStore;
  readonly readiness: Readiness;
  readonly registry?: MetricsRegistry;
  /** The OpenAPI document served at /openapi.json. */
  readonly openapi?: () => unknown;
  readonly runtime: Runtime;
  readonly log: Logger;
  /** Require an admin token for /metrics too (default false: the listener is private). */
  readonly metricsRequireToken?: boolean;
  /** Largest accepted body (default 64 KiB). */
  readonly bodyBytes?: number;
  /** POST /admin/metadata/reload (absent: that path is not found). */
  readonly reloadMetadata?: () => Promise<MetadataReloadReport>;
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
  readonly headers?: Record<string, string>;
}

interface Request {
  readonly method: string;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  readonly actor: Actor;
  body(): Promise<unknown>;
}

class MethodNotAllowed extends AdminError {
  constructor(readonly allow: readonly string[]) {
    super('METHOD_NOT_ALLOWED', `${ADMIN_ERRORS.METHOD_NOT_ALLOWED.message} Allowed: ${allow.join(', ')}.`);
  }
}

const json = (status: number, value: unknown, headers?: Record<string, string>): Answer =>
  ({ status, body: `${JSON.stringify(value)}\n`, contentType: 'application/json; charset=utf-8', ...(headers ? { headers } : {}) });

export function errorAnswer(error: AdminError): Answer {
  const headers: Record<string, string> = {};
  if (error.code === 'UNAUTHORIZED') headers['www-authenticate'] = 'Bearer realm="passkey-server admin"';
  if (error instanceof MethodNotAllowed) headers.allow = error.allow.join(', ');
  // The rest of an oversized body is never read: close the connection after answering.
  if (error.code === 'PAYLOAD_TOO_LARGE') headers.connection = 'close';
  return json(error.status, { error: error.code, message: error.message, ...(error.problems ? { problems: error.problems } : {}) }, headers);
}

export function createAdminHandler(deps: AdminHandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const prefix = deps.runtime.randomBytes(6).toString('base64url');
  let count = 0;
  const limit = deps.bodyBytes ?? 65_536;

  async function route(req: IncomingMessage, requestId: string, trace: { actor: string | null }): Promise<Answer> {
    const url = new URL(req.url ?? '/', 'http://admin.invalid');
    const method = req.method ?? 'GET';
    let segments: string[];
    try {
      segments = url.pathname.split('/').filter((s) => s !== '').map((s) => decodeURIComponent(s));
    } catch {
      throw new AdminError('NOT_FOUND');
    }
    const path = url.pathname;

    if (path === '/health') return only(method, ['GET', 'HEAD'], () => json(200, { status: 'ok' }));
    if (path === '/ready') {
      return onlyAsync(method, ['GET', 'HEAD'], async () => {
        const report = await deps.readiness.report();
        return json(report.ready ? 200 : 503, { status: report.status, checks: report.checks });
      });
    }
    if (path === '/openapi.json' && deps.openapi) return only(method, ['GET'], () => json(200, deps.openapi!()));
    if (path === '/metrics' && deps.registry) {
      if (deps.metricsRequireToken) await authenticate(req, trace);
      return onlyAsync(method, ['GET'], async () => ({ status: 200, body: await deps.registry!.expose(), contentType: EXPOSITION_CONTENT_TYPE }));
    }
    if (segments[0] !== 'admin') throw new AdminError('NOT_FOUND');

    const actor: Actor = { name: await authenticate(req, trace), requestId, remoteAddress: req.socket.remoteAddress ?? null };
    const request: Request = { method, segments: segments.slice(1), query: url.searchParams, actor, body: () => readJson(req, limit) };
    return adminRoute(request);
  }

  async function authenticate(req: IncomingMessage, trace: { actor: string | null }): Promise<string> {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header) : null;
    const info = match ? await deps.tokens.verify(match[1]!) : undefined;
    if (!info) throw new AdminError('UNAUTHORIZED');
    trace.actor = `admin:${info.name}`;
    return trace.actor;
  }

  async function adminRoute(r: Request): Promise<Answer> {
    const ops = deps.operations;
    const [resource, id, sub, subId, ...rest] = r.segments;
    if (rest.length > 0) throw new AdminError('NOT_FOUND');

    if (resource === 'applications') {
      if (id === undefined) {
        if (r.method === 'GET') return json(200, { applications: await ops.listApplications() });
        if (r.method === 'POST') return json(201, await ops.createApplication(r.actor, await r.body()));
        throw methodNotAllowed(['GET', 'POST']);
      }
      if (sub === undefined) {
        if (r.method === 'GET') return json(200, await ops.getApplication(id));
        if (r.method === 'PATCH') return json(200, await ops.updateApplication(r.actor, id, await r.body()));
        if (r.method === 'DELETE') return json(200, await ops.deleteApplication(r.actor, id));
        throw methodNotAllowed(['GET', 'PATCH', 'DELETE']);
      }
      const actions = { approve: ops.approve, unapprove: ops.unapprove, disable: ops.disable, enable: ops.enable } as const;
      if (subId === undefined && Object.hasOwn(actions, sub)) {
        if (r.method !== 'POST') throw methodNotAllowed(['POST']);
        return json(200, await actions[sub as keyof typeof actions].call(ops, r.actor, id));
      }
      if (sub === 'credentials') {
        if (subId === undefined) {
          if (r.method === 'GET') return json(200, await ops.listCredentials(id, credentialFilter(r.query)));
          if (r.method === 'DELETE') return json(200, await ops.deleteUserCredentials(r.actor, id, userFilter(r.query)));
          throw methodNotAllowed(['GET', 'DELETE']);
        }
        if (r.method === 'GET') return json(200, await ops.getCredential(id, subId));
        if (r.method === 'PATCH') {
          const body = await r.body();
          if (typeof body !== 'object' || body === null || Array.isArray(body) || !('nickname' in body) || Object.keys(body).length !== 1) {
            throw new AdminError('INVALID_REQUEST', 'the body must be {"nickname": string | null}', ['(body): only nickname can change']);
          }
          return json(200, await ops.renameCredential(r.actor, id, subId, (body as { nickname: unknown }).nickname));
        }
        if (r.method === 'DELETE') return json(200, await ops.deleteCredential(r.actor, id, subId));
        throw methodNotAllowed(['GET', 'PATCH', 'DELETE']);
      }
      throw new AdminError('NOT_FOUND');
    }

    if (resource === 'metadata' && id === 'reload' && sub === undefined && deps.reloadMetadata) {
      if (r.method !== 'POST') throw methodNotAllowed(['POST']);
      return reloadAnswer(await reloadMetadata(r, deps.reloadMetadata));
    }

    if (resource === 'audit' && sub === undefined) {
      if (r.method !== 'GET') throw methodNotAllowed(['GET']);
      if (id === undefined) {
        const query = auditQuery(r.query, 100, 1000);
        const events = await deps.audit.query({ ...query, limit: query.limit + 1 });
        const shown = events.slice(0, query.limit);
        return json(200, { events: shown, next: events.length > query.limit ? shown[shown.length - 1]!.id : null });
      }
      if (id === 'export') {
        const query = auditQuery(r.query, 100_000, 100_000);
        return { status: 200, body: toJsonLines(await deps.audit.query(query)), contentType: 'application/x-ndjson; charset=utf-8',
          headers: { 'content-disposition': 'attachment; filename="audit.jsonl"' } };
      }
    }
    throw new AdminError('NOT_FOUND');
  }

  /** Reloads the metadata BLOBs and audits it: failed when a BLOB did not verify (the answer says which). */
  async function reloadMetadata(r: Request, reload: () => Promise<MetadataReloadReport>): Promise<MetadataReloadReport> {
    const report = await reload();
    const failed = report.applications.find((application) => !application.ok);
    await deps.audit.record({
      actor: r.actor.name, action: 'metadata.reload', result: failed ? 'failed' : 'ok',
      errorName: failed?.error?.split(':', 1)[0] ?? null, requestId: r.actor.requestId ?? null, remoteAddress: r.actor.remoteAddress ?? null,
      details: { changed: report.changed, applications: report.applications.map((application) => application.clientId) },
    });
    return report;
  }

  /**
   * 200 with the report when every BLOB was taken. A failed reload is the operator's input (a BLOB or CRL that
   * does not verify, a file gone), so 422, which `curl -f` and deploy scripts see: the admin error envelope
   * (METADATA_RELOAD_FAILED, one problem per failing application) around the same report.
   */
  function reloadAnswer(report: MetadataReloadReport): Answer {
    if (report.ok) return json(200, report);
    const error = new AdminError('METADATA_RELOAD_FAILED', undefined,
      report.applications.filter((application) => !application.ok).map((application) => `${application.clientId}: ${application.error ?? 'failed'}`));
    return json(error.status, { error: error.code, message: error.message, problems: error.problems, ...report });
  }

  return (req, res) => {
    const started = deps.runtime.now();
    const requestId = `${prefix}-${(count++).toString(36)}`;
    const trace: { actor: string | null } = { actor: null };
    void route(req, requestId, trace).catch((error: unknown) => {
      if (error instanceof AdminError) return errorAnswer(error);
      if (error instanceof StoreUnavailableError) return errorAnswer(new AdminError('SERVICE_UNAVAILABLE'));
      deps.log.error({ requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }, 'admin request failed unexpectedly');
      return errorAnswer(new AdminError('INTERNAL_SERVER_ERROR'));
    }).then((answer) => {
      const headers: Record<string, string> = {
        'content-type': answer.contentType,
        'content-length': String(Buffer.byteLength(answer.body)),
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-request-id': requestId,
        ...answer.headers,
      };
      res.writeHead(answer.status, headers);
      res.end(req.method === 'HEAD' ? undefined : answer.body);
      const path = (req.url ?? '/').split('?', 1)[0];
      deps.log.info({ event: 'admin_request', requestId, method: req.method, path, status: answer.status, durationMs: Math.max(0, deps.runtime.now() - started), actor: trace.actor },
        'admin request');
    });
  };
}

function only(method: string, allowed: readonly string[], run: () => Answer): Answer {
  if (!allowed.includes(method)) throw methodNotAllowed(allowed);
  return run();
}

async function onlyAsync(method: string, allowed: readonly string[], run: () => Promise<Answer>): Promise<Answer> {
  if (!allowed.includes(method)) throw methodNotAllowed(allowed);
  return run();
}

function methodNotAllowed(allow: readonly string[]): AdminError {
  return new MethodNotAllowed(allow);
}

function credentialFilter(query: URLSearchParams): { userHandle?: string; username?: string; limit?: number; after?: string } {
  const filter: { userHandle?: string; username?: string; limit?: number; after?: string } = {};
  const userHandle = query.get('userHandle');
  const username = query.get('username');
  const after = query.get('after');
  if (userHandle !== null) filter.userHandle = userHandle;
  if (username !== null) filter.username = username;
  if (after !== null) filter.after = after;
  const limit = query.get('limit');
  if (limit !== null) filter.limit = integer('limit', limit, 1, 1000);
  return filter;
}

/** The user a DELETE of …/credentials names: only `username` or `userHandle` (never a page of everyone). */
function userFilter(query: URLSearchParams): { username?: string; userHandle?: string } {
  const { username, userHandle } = credentialFilter(query);
  return { ...(username === undefined ? {} : { username }), ...(userHandle === undefined ? {} : { userHandle }) };
}

function auditQuery(query: URLSearchParams, defaultLimit: number, maxLimit: number): AuditQuery {
  const problems: string[] = [];
  const time = (name: string): number | undefined => {
    const value = query.get(name);
    if (value === null) return undefined;
    const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    if (!Number.isFinite(at)) problems.push(`${name}: an ISO 8601 time or epoch milliseconds`);
    return at;
  };
  const since = time('since');
  const until = time('until');
  const result = query.get('result');
  if (result !== null && result !== 'ok' && result !== 'failed') problems.push('result: ok or failed');
  const limitText = query.get('limit');
  const limit = limitText === null ? defaultLimit : integer('limit', limitText, 1, maxLimit);
  if (problems.length > 0) throw new AdminError('INVALID_REQUEST', undefined, problems);
  const out: { -readonly [K in keyof AuditQuery]: AuditQuery[K] } = { limit };
  if (since !== undefined) out.since = since;
  if (until !== undefined) out.until = until;
  for (const key of ['clientId', 'action', 'actor', 'after'] as const) {
    const value = query.get(key);
    if (value !== null) out[key] = value;
  }
  if (result === 'ok' || result === 'failed') out.result = result;
  return out;
}

function integer(name: string, text: string, min: number, max: number): number {
  const value = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new AdminError('INVALID_REQUEST', undefined, [`${name}: an integer from ${min} to ${max}`]);
  return value;
}

/**
 * The request body through the service's one body reader (src/http/body.ts: JSON media type, byte limit,
 * strict UTF-8, bounded nesting), its failures under the admin API's names.
 */
async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  try {
    checkContentType(req.headersDistinct['content-type']);
    return parseJsonBody(await readBody(req, limit, req.headersDistinct['content-length']));
  } catch (error) {
    if (!(error instanceof FidoError)) throw error;
    const code = error.code === 'UNSUPPORTED_MEDIA_TYPE' || error.code === 'PAYLOAD_TOO_LARGE' || error.code === 'MALFORMED_JSON' ? error.code : 'INVALID_REQUEST';
    throw code === 'INVALID_REQUEST' ? new AdminError(code, error.detail, [`(body): ${error.detail ?? error.code}`]) : new AdminError(code, error.detail);
  }
}
