// What an admin request carries, read and checked: the query parameters of the credential and audit
// listings, and the JSON body. A bad value fails as an AdminError (INVALID_REQUEST names each problem).
import type { IncomingMessage } from 'node:http';
import type { AuditQuery } from '../stores/types.js';
import { FidoError } from '../errors/catalogue.js';
import { checkContentType, parseJsonBody, readBody } from '../http/body.js';
import { IMPORT_FORMATS } from '../transfer/record.js';
import { AdminError } from './errors.js';

/** A request's path, its decoded segments and its query; NOT_FOUND when a segment does not decode. */
export function requestPath(url: string | undefined): {
  readonly path: string;
  readonly segments: string[];
  readonly query: URLSearchParams;
} {
  const parsed = new URL(url ?? '/', 'http://admin.invalid');
  let segments: string[];
  try {
    segments = parsed.pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    throw new AdminError('NOT_FOUND');
  }
  checkNoNul(segments, parsed.searchParams);
  return { path: parsed.pathname, segments, query: parsed.searchParams };
}

/**
 * No NUL character in a path segment or query value: no store can hold one (PostgreSQL refuses it in text),
 * so every store answers alike, with INVALID_REQUEST, before any is asked.
 */
export function checkNoNul(segments: readonly string[], query: URLSearchParams): void {
  const problems: string[] = [];
  if (segments.some((s) => s.includes('\u0000'))) problems.push('(path): a NUL character is not allowed');
  for (const [name, value] of query) {
    if (value.includes('\u0000') || name.includes('\u0000'))
      problems.push(`${name.replaceAll('\u0000', '\\0')}: a NUL character is not allowed`);
  }
  if (problems.length > 0) throw new AdminError('INVALID_REQUEST', undefined, problems);
}

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

/**
 * An import's `from` (required; the action names the formats it reads) and `dryRun` (`true` or `false`,
 * default false).
 */
export function importQuery(query: URLSearchParams): { format: string; dryRun: boolean } {
  const problems: string[] = [];
  const format = query.get('from');
  if (format === null || format === '') problems.push(`from: required, one of ${IMPORT_FORMATS.join(', ')}`);
  const dryRun = query.get('dryRun') ?? 'false';
  if (dryRun !== 'true' && dryRun !== 'false') problems.push('dryRun: true or false');
  if (problems.length > 0) throw new AdminError('INVALID_REQUEST', undefined, problems);
  return { format: format!, dryRun: dryRun === 'true' };
}

/** An export's `to` (default passkey-server; the action refuses a format it does not write). */
export function exportQuery(query: URLSearchParams): string {
  const to = query.get('to');
  return to === null || to === '' ? 'passkey-server' : to;
}

/** The largest time a JavaScript Date holds (ECMAScript §21.4.1.1), far inside a signed 64-bit integer. */
const MAX_TIME_MS = 8.64e15;

export function auditQuery(query: URLSearchParams, defaultLimit: number, maxLimit: number): AuditQuery {
  const problems: string[] = [];
  const time = (name: string): number | undefined => {
    const value = query.get(name);
    if (value === null) return undefined;
    const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    // Within what a date can be (±8.64e15 ms): beyond, no store's 64-bit column could compare it.
    if (!Number.isFinite(at) || Math.abs(at) > MAX_TIME_MS)
      problems.push(`${name}: an ISO 8601 time or epoch milliseconds (at most ${MAX_TIME_MS})`);
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
