// What the request's span says (src/service.ts `Tracer`): its name, `{method} {http.route}` as the HTTP
// semantic conventions name server spans, and its attributes: the route, the status, the Client ID, the
// variant, the outcome and the error name. Never the user name or a credential id (docs/operations.md).
import type { SpanAttributes } from '../service.js';
import { ROUTES } from './routes.js';

/** The route of a request (its path when it is one of ours), or null. */
export function routeOf(url: string): string | null {
  const path = url.split('?', 1)[0]!;
  return ROUTES.has(path) ? path : null;
}

export function spanName(method: string, route: string | null): string {
  const known = /^[A-Z]{1,10}$/.test(method) ? method : 'HTTP';
  return route === null ? known : `${known} ${route}`;
}

/** A trace-context header the caller sent exactly once; twice or more is no context (W3C Trace Context §3.2). */
export function single(values: readonly string[] | undefined): string | undefined {
  return values?.length === 1 ? values[0] : undefined;
}

export function spanAttributes(answer: {
  readonly method: string;
  readonly route: string | null;
  readonly status: number;
  readonly clientId: string | null;
  readonly variant: string | null;
  readonly errorName: string | null;
}): SpanAttributes {
  const attributes: Record<string, string | number | boolean> = {
    'http.request.method': answer.method,
    'http.response.status_code': answer.status,
    'passkey.outcome': answer.errorName === null && answer.status < 400 ? 'ok' : 'failed',
  };
  if (answer.route !== null) attributes['http.route'] = answer.route;
  if (answer.clientId !== null) attributes['passkey.client_id'] = answer.clientId;
  if (answer.variant !== null) attributes['passkey.variant'] = answer.variant;
  if (answer.errorName !== null) {
    attributes['passkey.error'] = answer.errorName;
    attributes['error.type'] = answer.errorName;
  }
  return attributes;
}
