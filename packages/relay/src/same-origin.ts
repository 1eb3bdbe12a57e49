// No cross-site request reaches the relay's actions (docs/relay.md, "Cross-site requests"): whatever ran
// before the relay (a body parser for forms, say), a call must be JSON and come from the page's own
// origin. The browser says where a request comes from: `Sec-Fetch-Site` (every current browser), else
// `Origin` (sent with every cross-origin POST). A call with neither is not a browser's cross-site request
// (curl, a server), and its JSON content type is what a cross-site form or simple request cannot send.
import type { IncomingMessage } from 'node:http';
import { isJsonContentType } from './body.js';
import type { RelayErrorName } from './errors.js';
import type { ResolvedRelayOptions } from './options.js';

/** The refusal of a call that is not the page's own JSON call, or undefined. */
export function foreignCallRefusal(config: ResolvedRelayOptions, request: IncomingMessage): RelayErrorName | undefined {
  if (crossSite(config, request)) return 'CROSS_SITE_REQUEST';
  if (!isJsonContentType(request.headers['content-type'])) return 'UNSUPPORTED_MEDIA_TYPE';
  return undefined;
}

function crossSite(config: ResolvedRelayOptions, request: IncomingMessage): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === config.origin) return false;
  // The page's own origin, however the relay is reached (the local variant's many hostnames, a proxy
  // that keeps the Host): the origin's host and port are the request's Host.
  try {
    const { host, protocol } = new URL(origin);
    return !(protocol === 'https:' || protocol === 'http:') || host !== (request.headers.host ?? '').toLowerCase();
  } catch {
    return true; // `null` (a sandboxed frame, a redirect across sites) or garbage
  }
}
