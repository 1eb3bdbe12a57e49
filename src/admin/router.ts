// The admin listener's router over its one route table (routes.ts): a request's path segments and method →
// the route and its path parameters, or the methods the path has (a 405 with Allow), or nothing (404). Path
// templates are written once, in the table, the way the OpenAPI document writes them
// (`/admin/applications/{clientId}`); where two templates match, the one with more literal segments wins.
// Also here: a body checked against its route's schema, its problems in the config file's words.
import type { Actor } from './audited.js';
import { configProblems, dotted } from '../schemas/config-problems.js';
import type { Failure, Validator } from '../schemas/typebox.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What a route's handler is given: the path's parameters (decoded), the query, who asks, the checked body. */
export interface AdminRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly actor: Actor;
  /** The JSON body, checked against the route's `body` schema (undefined when the route has none). */
  readonly body: unknown;
  /** The body of a `streamed` route as its bytes arrive, unparsed (undefined for every other route). */
  readonly input?: AsyncIterable<Uint8Array>;
}

/** A request body the router hands over unread, as a stream (an import's file), never parsed as JSON. */
export interface StreamedBody {
  /** The media types the document lists for it (the handler reads the bytes whatever the Content-Type). */
  readonly contentTypes: readonly string[];
  readonly description: string;
}

/** A query parameter as the OpenAPI document lists it. */
export interface QueryParameter {
  readonly name: string;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly required?: boolean;
}

/** An answer that is not JSON (the route's handler builds the whole Answer, or a StreamedAnswer). */
export interface RawAnswer {
  readonly contentType: string;
  readonly description: string;
}

/** One route: method, path, body and answer schemas by component name (`N`), handler. `D`: the handler's deps. */
export interface AdminRoute<D, N extends string = string> {
  readonly method: Method;
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  /** Open to anyone (tag `operations`): no admin token, unless `token` says so. Default: needs the token. */
  readonly open?: boolean;
  /** An open route that needs the token when this says so (/metrics with `metrics.requireToken`). */
  readonly token?: (deps: D) => boolean;
  /** HEAD answers as GET does (without the body). */
  readonly head?: boolean;
  /** Served only when this holds (a feature that is off: its paths are not found). */
  readonly when?: (deps: D) => boolean;
  readonly query?: readonly QueryParameter[];
  /** The body's schema: the router reads the body and checks it before the handler runs. */
  readonly body?: N;
  /** A body read by the handler as a stream (`request.input`, at most the listener's streamed-body limit). */
  readonly streamed?: StreamedBody;
  /** The checks no schema can say (a URL's rule): more problems of the same body, reported with the schema's. */
  readonly check?: (body: unknown, deps: D) => readonly string[] | Promise<readonly string[]>;
  /** The audit action of this change, recorded as failed when its body is refused. */
  readonly audit?: string;
  /** The answer's schema (JSON, status `status`, default 200), or a non-JSON answer the handler builds. */
  readonly answer: N | RawAnswer;
  readonly status?: 200 | 201;
  /** Another answer with a body of its own (a 503 Readiness, a 422 report), besides the error envelope's. */
  readonly alternative?: { readonly status: number; readonly description: string; readonly answer: N };
  /** The statuses of its admin error envelopes, for the document. */
  readonly failures?: readonly number[];
  /** The answer's value (JSON), or the Answer itself when `answer` is raw or `alternative` is given. */
  run(request: AdminRequest, deps: D): unknown;
}

/** A path of the table: the route for the method (undefined: 405), its parameters, the methods it allows. */
export interface Found<D, N extends string> {
  readonly route: AdminRoute<D, N> | undefined;
  /** One route of the path (whether it is open, and needs a token), the method's or another. */
  readonly any: AdminRoute<D, N>;
  readonly params: Readonly<Record<string, string>>;
  readonly allow: readonly string[];
}

const isParam = (part: string) => part.startsWith('{') && part.endsWith('}');

/** The path of `segments` among `routes`, for `method`; undefined when no template matches the path. */
export function createRouter<D, N extends string>(routes: readonly AdminRoute<D, N>[]) {
  const templates = routes.map((route) => ({ route, parts: route.path.split('/').filter((s) => s !== '') }));
  const literals = (parts: readonly string[]) => parts.filter((p) => !isParam(p)).length;
  return (segments: readonly string[], method: string): Found<D, N> | undefined => {
    const matching = templates.filter(
      ({ parts }) => parts.length === segments.length && parts.every((p, i) => isParam(p) || p === segments[i]),
    );
    if (matching.length === 0) return undefined;
    const best = matching.reduce((a, b) => (literals(b.parts) > literals(a.parts) ? b : a));
    const same = matching.filter((t) => t.route.path === best.route.path);
    const hit = same.find((t) => t.route.method === method || (method === 'HEAD' && t.route.head === true));
    const params: Record<string, string> = {};
    best.parts.forEach((part, i) => {
      if (isParam(part)) params[part.slice(1, -1)] = segments[i]!;
    });
    const allow = same.flatMap((t) => (t.route.head ? [t.route.method, 'HEAD'] : [t.route.method]));
    return { route: hit?.route, any: best.route, params, allow };
  };
}

/**
 * Every way `body` breaks the schema, as `<key>: <what is expected>` (the config file's words). A value the
 * schema leaves to the loader's words (`wordedByLoader`: an application's) is left to the action's check.
 */
export function bodyProblems(validator: Validator<unknown>, body: unknown): string[] {
  const failures = validator.failures(body);
  if (failures.length === 0) return [];
  const all = (list: readonly Failure[]): Failure[] => list.flatMap((f) => [f, ...all((f.variants ?? []).flat())]);
  const at = (f: Failure) => dotted(f.pointer, body) || '(body)';
  const words = (f: Failure): string | undefined => {
    if (f.keyword === 'missing') return `${at(f)}: required`;
    if (f.keyword === 'unknown' && Object.keys(f.schema.properties ?? {}).length === 0)
      return `${at(f)}: unknown (the body is {})`;
    // configProblems leaves repeated entries to the config loader's words; no loader reads these.
    if (f.keyword === 'unique') return `${at(f)}: each entry at most once`;
    return undefined;
  };
  const own = all(failures).flatMap((f) => words(f) ?? []);
  const missing = new Set(failures.filter((f) => f.keyword === 'missing').map((f) => f.pointer));
  const rest = failures.filter((f) => words(f) === undefined && !missing.has(f.pointer));
  const worded = configProblems(rest, body).map((p) => `${p.path === '' ? '(body)' : p.path}: ${p.message}`);
  const problems = [...own, ...worded];
  const loader = all(failures).some((f) => f.schema.wordedByLoader === true);
  return problems.length > 0 || loader ? problems : validator.explain(body);
}

/** Whether the route's handler builds the whole Answer (a non-JSON answer, or one of two bodies). */
export const answersItself = <D, N extends string>(route: AdminRoute<D, N>): boolean =>
  typeof route.answer !== 'string' || route.alternative !== undefined;
