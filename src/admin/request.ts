// What an admin request carries, read and checked: the query parameters of the credential and audit
// listings, and the JSON body. A bad value fails as an AdminError (INVALID_REQUEST names each problem).
import type { IncomingMessage } from 'node:http';
import type { AuditQuery } from '../audit/types.js';
import { FidoError } from '../errors.js';
import { checkContentType, parseJsonBody, readBody } from '../http/body.js';
import { AdminError } from './errors.js';

export function credentialFilter(query: URLSearchParams): {
  userHandle?: string;
  username?: string;
  limit?: number;
  after?: string;
} {
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
export function userFilter(query: URLSearchParams): { username?: string; userHandle?: string } {
  const { username, userHandle } = credentialFilter(query);
  return { ...(username === undefined ? {} : { username }), ...(userHandle === undefined ? {} : { userHandle }) };
}

export function auditQuery(query: URLSearchParams, defaultLimit: number, maxLimit: number): AuditQuery {
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
  if (!(value >= min && value <= max))
    throw new AdminError('INVALID_REQUEST', undefined, [`${name}: an integer from ${min} to ${max}`]);
  return value;
}

/**
 * The request body through the service's one body reader (src/http/body.ts: JSON media type, byte limit,
 * strict UTF-8, bounded nesting), its failures under the admin API's names.
 */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  try {
    checkContentType(req.headersDistinct['content-type']);
    return parseJsonBody(await readBody(req, limit, req.headersDistinct['content-length']));
  } catch (error) {
    if (!(error instanceof FidoError)) throw error;
    const code =
      error.code === 'UNSUPPORTED_MEDIA_TYPE' || error.code === 'PAYLOAD_TOO_LARGE' || error.code === 'MALFORMED_JSON'
        ? error.code
        : 'INVALID_REQUEST';
    throw code === 'INVALID_REQUEST'
      ? new AdminError(code, error.detail, [`(body): ${error.detail ?? error.code}`])
      : new AdminError(code, error.detail);
  }
}
