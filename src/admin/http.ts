// The admin listener's request handler (node:http). Open paths: /health, /ready, /openapi.json and (unless
// configured otherwise) /metrics. Everything under /admin/ needs `Authorization: Bearer <admin token>`.
// Answers are JSON (the audit export is JSON lines), each with an X-Request-Id; one log line per request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../util/log.js';
import type { MetadataReloadReport } from '../applications/trust-reload.js';
import type { Runtime } from '../util/runtime.js';
import type { AuditLog } from '../audit/log.js';
import { toJsonLines } from '../audit/events.js';
import { EXPOSITION_CONTENT_TYPE, type MetricsRegistry } from '../metrics/registry.js';
import { AdminError } from './errors.js';
import { StoreUnavailableError } from '../errors.js';
import { type Answer, errorAnswer, json, methodNotAllowed, only, onlyAsync } from './answers.js';
import { hostChecker } from './host.js';
import { auditQuery, checkNoNul, credentialFilter, readJson, userFilter } from './params.js';
import type { AdminActions, Actor } from './actions.js';
import type { Readiness } from '../runtime/readiness.js';
import type { AdminTokenStore } from './tokens.js';
import type { Overview } from '../schemas/admin.js';
import { CONSOLE_PATH, consoleFiles, type ConsoleFiles } from './console.js';
import { webhookRoute, type WebhookRequest } from './webhook-routes.js';
import { relaySecretRoute } from './relay-secret-routes.js';
import type { RelaySecretAdmin } from './relay-secrets.js';
import type { WebhookAdmin } from './webhooks.js';

export interface AdminHandlerDeps {
  readonly actions: AdminActions;
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
  /** GET /admin/overview: the last hour's ceremonies per application (metrics/recent.ts); absent: not found. */
  readonly overview?: () => Overview;
  /** The web console's files under /console/ (default: console/dist of the build, console.ts). */
  readonly console?: ConsoleFiles;
  /** The host the listener is bound to (default 127.0.0.1) and other names it answers for (host.ts). */
  readonly host?: string;
  readonly allowedHosts?: readonly string[];
  /** Webhooks, dead letters and marked credentials (admin/webhook-routes.ts); absent: those paths are not found. */
  readonly webhooks?: WebhookAdmin;
  /** An application's relay secrets (admin/relay-secret-routes.ts); absent: those paths are not found. */
  readonly relaySecrets?: RelaySecretAdmin;
}
type Request = WebhookRequest;

export function createAdminHandler(deps: AdminHandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const prefix = deps.runtime.randomBytes(6).toString('base64url');
  let count = 0;
  const limit = deps.bodyBytes ?? 65_536;
  const pages = deps.console ?? consoleFiles();
  const hostAllowed = hostChecker(deps.host ?? '127.0.0.1', deps.allowedHosts ?? []);

  async function route(req: IncomingMessage, requestId: string, trace: { actor: string | null }): Promise<Answer> {
    if (!hostAllowed(req.headersDistinct.host)) throw new AdminError('HOST_NOT_ALLOWED');
    const url = new URL(req.url ?? '/', 'http://admin.invalid');
    const method = req.method ?? 'GET';
    let segments: string[];
    try {
      segments = url.pathname
        .split('/')
        .filter((s) => s !== '')
        .map((s) => decodeURIComponent(s));
    } catch {
      throw new AdminError('NOT_FOUND');
    }
    checkNoNul(segments, url.searchParams);
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
      return onlyAsync(method, ['GET'], async () => ({
        status: 200,
        body: await deps.registry!.expose(),
        contentType: EXPOSITION_CONTENT_TYPE,
      }));
    }
    // The console's page and assets are open: they hold no data; every call they make needs the token.
    if (path === '/console' || path.startsWith(CONSOLE_PATH)) return pages(path, method);
    if (segments[0] !== 'admin') throw new AdminError('NOT_FOUND');

    const actor: Actor = {
      name: await authenticate(req, trace),
      requestId,
      remoteAddress: req.socket.remoteAddress ?? null,
    };
    const request: Request = {
      method,
      segments: segments.slice(1),
      query: url.searchParams,
      actor,
      body: () => readJson(req, limit),
    };
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
    const actions = deps.actions;
    const webhookAnswer = deps.webhooks ? await webhookRoute(r, deps.webhooks) : undefined;
    if (webhookAnswer !== undefined) return webhookAnswer;
    const secretAnswer = deps.relaySecrets ? await relaySecretRoute(r, deps.relaySecrets) : undefined;
    if (secretAnswer !== undefined) return secretAnswer;
    const [resource, id, sub, subId, ...rest] = r.segments;
    if (rest.length > 0) throw new AdminError('NOT_FOUND');

    if (resource === 'applications') {
      if (id === undefined) {
        if (r.method === 'GET') return json(200, { applications: await actions.listApplications() });
        if (r.method === 'POST') return json(201, await actions.createApplication(r.actor, await r.body()));
        throw methodNotAllowed(['GET', 'POST']);
      }
      if (sub === undefined) {
        if (r.method === 'GET') return json(200, await actions.getApplication(id));
        if (r.method === 'PATCH') return json(200, await actions.updateApplication(r.actor, id, await r.body()));
        if (r.method === 'DELETE') return json(200, await actions.deleteApplication(r.actor, id));
        throw methodNotAllowed(['GET', 'PATCH', 'DELETE']);
      }
      const stateChanges = {
        approve: actions.approve,
        unapprove: actions.unapprove,
        disable: actions.disable,
        enable: actions.enable,
      } as const;
      if (subId === undefined && Object.hasOwn(stateChanges, sub)) {
        if (r.method !== 'POST') throw methodNotAllowed(['POST']);
        return json(200, await stateChanges[sub as keyof typeof stateChanges].call(actions, r.actor, id));
      }
      if (sub === 'post-quantum' && subId === undefined) {
        if (r.method !== 'GET') throw methodNotAllowed(['GET']);
        return json(200, await actions.postQuantumUsage(id));
      }
      if (sub === 'credentials') {
        if (subId === undefined) {
          if (r.method === 'GET') return json(200, await actions.listCredentials(id, credentialFilter(r.query)));
          if (r.method === 'DELETE')
            return json(200, await actions.deleteUserCredentials(r.actor, id, userFilter(r.query)));
          throw methodNotAllowed(['GET', 'DELETE']);
        }
        if (r.method === 'GET') return json(200, await actions.getCredential(id, subId));
        if (r.method === 'PATCH') {
          const body = await r.body();
          if (
            typeof body !== 'object' ||
            body === null ||
            Array.isArray(body) ||
            !('nickname' in body) ||
            Object.keys(body).length !== 1
          ) {
            throw new AdminError('INVALID_REQUEST', 'the body must be {"nickname": string | null}', [
              '(body): only nickname can change',
            ]);
          }
          return json(
            200,
            await actions.renameCredential(r.actor, id, subId, (body as { nickname: unknown }).nickname),
          );
        }
        if (r.method === 'DELETE') return json(200, await actions.deleteCredential(r.actor, id, subId));
        throw methodNotAllowed(['GET', 'PATCH', 'DELETE']);
      }
      throw new AdminError('NOT_FOUND');
    }

    if (resource === 'metadata' && id === 'reload' && sub === undefined && deps.reloadMetadata) {
      if (r.method !== 'POST') throw methodNotAllowed(['POST']);
      return reloadAnswer(await reloadMetadata(r, deps.reloadMetadata));
    }

    if (resource === 'overview' && id === undefined && deps.overview) {
      if (r.method !== 'GET') throw methodNotAllowed(['GET']);
      return json(200, deps.overview());
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
        return {
          status: 200,
          body: toJsonLines(await deps.audit.query(query)),
          contentType: 'application/x-ndjson; charset=utf-8',
          headers: { 'content-disposition': 'attachment; filename="audit.jsonl"' },
        };
      }
    }
    throw new AdminError('NOT_FOUND');
  }

  /** Reloads the metadata BLOBs and audits it: failed when a BLOB did not verify (the answer says which). */
  async function reloadMetadata(
    r: Request,
    reload: () => Promise<MetadataReloadReport>,
  ): Promise<MetadataReloadReport> {
    const report = await reload();
    const failed = report.applications.find((application) => !application.ok);
    await deps.audit.record({
      actor: r.actor.name,
      action: 'metadata.reload',
      result: failed ? 'failed' : 'ok',
      errorName: failed?.error?.split(':', 1)[0] ?? null,
      requestId: r.actor.requestId ?? null,
      remoteAddress: r.actor.remoteAddress ?? null,
      details: {
        changed: report.changed,
        applications: report.applications.map((application) => application.clientId),
      },
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
    const error = new AdminError(
      'METADATA_RELOAD_FAILED',
      undefined,
      report.applications
        .filter((application) => !application.ok)
        .map((application) => `${application.clientId}: ${application.error ?? 'failed'}`),
    );
    return json(error.status, { error: error.code, message: error.message, problems: error.problems, ...report });
  }

  return (req, res) => {
    const started = deps.runtime.now();
    const requestId = `${prefix}-${(count++).toString(36)}`;
    const trace: { actor: string | null } = { actor: null };
    void route(req, requestId, trace)
      .catch((error: unknown) => {
        if (error instanceof AdminError) return errorAnswer(error);
        if (error instanceof StoreUnavailableError) return errorAnswer(new AdminError('SERVICE_UNAVAILABLE'));
        deps.log.error(
          { requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) },
          'admin request failed unexpectedly',
        );
        return errorAnswer(new AdminError('INTERNAL_SERVER_ERROR'));
      })
      .then((answer) => {
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
        deps.log.info(
          {
            event: 'admin_request',
            requestId,
            method: req.method,
            path,
            status: answer.status,
            durationMs: Math.max(0, deps.runtime.now() - started),
            actor: trace.actor,
          },
          'admin request',
        );
      });
  };
}
