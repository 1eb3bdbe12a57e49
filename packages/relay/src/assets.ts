// What the relay serves to a browser besides the JSON operations: the browser package as one ES module
// (`<prefix>/passkeys.mjs`) and one classic script (`<prefix>/passkeys.js`, global `Passkeys`), bundled
// when the relay is built (scripts/bundle-browser.mjs), and the W3C Passkey Endpoints document
// (`/.well-known/passkey-endpoints`) from the `passkeyEndpoints` option.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { PASSKEYS_MODULE, PASSKEYS_SCRIPT } from './browser-bundle.generated.js';

/** Where the W3C Passkey Endpoints draft has password managers look for a site's enroll and manage pages. */
export const WELL_KNOWN_PASSKEY_ENDPOINTS = '/.well-known/passkey-endpoints';

/** A static answer: its bytes, type, validator and caching. */
export interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  readonly cacheControl: string;
}

function asset(text: string, contentType: string, cacheControl: string): Asset {
  const body = Buffer.from(text, 'utf8');
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, contentType, etag, cacheControl };
}

// Revalidated on every use (ETag): a relay upgrade reaches pages at once, an unchanged file costs a 304.
const SCRIPT_CACHE = 'no-cache';
const SCRIPT_TYPE = 'text/javascript; charset=utf-8';

/** The GET paths of the relay's files under its prefix, and the well-known documents at the root. */
export function relayAssets(prefix: string, endpoints: string | undefined): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>([
    [`${prefix}/passkeys.mjs`, asset(PASSKEYS_MODULE, SCRIPT_TYPE, SCRIPT_CACHE)],
    [`${prefix}/passkeys.js`, asset(PASSKEYS_SCRIPT, SCRIPT_TYPE, SCRIPT_CACHE)],
  ]);
  if (endpoints !== undefined)
    assets.set(
      WELL_KNOWN_PASSKEY_ENDPOINTS,
      asset(endpoints, 'application/json; charset=utf-8', 'public, max-age=3600'),
    );
  return assets;
}

/** GET or HEAD of one asset (304 when the browser's copy is current); another method gets 405. */
export function sendAsset(
  response: ServerResponse,
  method: string,
  ifNoneMatch: string | undefined,
  file: Asset,
): void {
  if (method !== 'GET' && method !== 'HEAD') {
    response.statusCode = 405;
    response.setHeader('allow', 'GET, HEAD');
    response.end();
    return;
  }
  response.setHeader('etag', file.etag);
  response.setHeader('cache-control', file.cacheControl);
  response.setHeader('x-content-type-options', 'nosniff');
  if (ifNoneMatch?.split(',').some((tag) => tag.trim() === file.etag)) {
    response.statusCode = 304;
    response.end();
    return;
  }
  response.statusCode = 200;
  response.setHeader('content-type', file.contentType);
  response.setHeader('content-length', file.body.length);
  response.end(method === 'HEAD' ? undefined : file.body);
}

/** The Passkey Endpoints document: `{"enroll": …, "manage": …}`, each an https URL (http on localhost). */
export function passkeyEndpointsDocument(
  endpoints: { readonly enroll?: string | undefined; readonly manage?: string | undefined },
  origin: string | undefined,
  problems: string[],
): string | undefined {
  const document: Record<string, string> = {};
  for (const key of ['enroll', 'manage'] as const) {
    const value = endpoints[key];
    if (value === undefined) continue;
    try {
      const url = new URL(value, origin);
      const local = url.hostname === 'localhost' || url.hostname.endsWith('.localhost');
      if (url.protocol !== 'https:' && !(local && url.protocol === 'http:')) throw new Error('not https');
      document[key] = url.href;
    } catch {
      problems.push(`passkeyEndpoints.${key} must be an https URL (or a path, with origin set)`);
    }
  }
  if (Object.keys(document).length === 0) {
    problems.push('passkeyEndpoints needs enroll and/or manage');
    return undefined;
  }
  return JSON.stringify(document);
}
