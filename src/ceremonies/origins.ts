// Which origins a ceremony accepts. Standard: the origin header must be a registered origin, and the
// browser's clientDataJSON.origin must equal that header. Local: no header; clientDataJSON.origin must be one
// of the application's development origins, where an entry without a port allows any port.

import { FidoError } from '../errors/catalogue.js';
import type { ApplicationConfig } from '../service-config.js';

/**
 * The origins the standard variant accepts for the application's RP ID: its own origins (web and Android
 * apps) and its related origins on other registrable domains (WebAuthn L3 §5.11: the browser checks the
 * RP ID's /.well-known/webauthn before it lets such a page use the RP ID).
 */
export function standardOrigins(app: Pick<ApplicationConfig, 'origins' | 'relatedOrigins'>): readonly string[] {
  return app.relatedOrigins === undefined || app.relatedOrigins.length === 0
    ? app.origins
    : [...app.origins, ...app.relatedOrigins];
}

/** Standard variant: the origin header is required and must be one of the application's origins (exact). */
export function requireStandardOrigin(origin: string | undefined, allowed: readonly string[]): string {
  if (origin === undefined) throw new FidoError('ORIGIN_HEADER_MISSING');
  if (!allowed.includes(origin)) {
    throw new FidoError(
      'ORIGIN_NOT_ALLOWED',
      `The origin header "${printable(origin)}" is not registered for this Client ID.`,
    );
  }
  return origin;
}

/** Standard variant: clientDataJSON.origin must be exactly the origin header (which was checked above). */
export function exactOrigin(expected: string): (origin: string) => boolean {
  return (origin) => origin === expected;
}

interface OriginPattern {
  readonly protocol: string;
  readonly hostname: string;
  /** undefined: any port. */
  readonly port: string | undefined;
}

/** Local variant: `https://localhost` matches every port of https://localhost; `https://localhost:8443` only 8443. */
export function localOriginMatcher(entries: readonly string[]): (origin: string) => boolean {
  const patterns = entries.map(toPattern).filter((p): p is OriginPattern => p !== undefined);
  return (origin) => {
    const url = asOrigin(origin);
    if (!url) return false;
    return patterns.some(
      (p) =>
        p.protocol === url.protocol && p.hostname === url.hostname && (p.port === undefined || p.port === url.port),
    );
  };
}

function toPattern(entry: string): OriginPattern | undefined {
  const url = asOrigin(entry);
  if (!url) return undefined;
  const explicitPort = /:\d+$/.test(entry);
  return { protocol: url.protocol, hostname: url.hostname, port: explicitPort ? url.port : undefined };
}

/** A URL that is exactly an origin (`scheme://host[:port]`, no path, query, fragment or credentials). */
function asOrigin(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.origin === 'null' || url.username || url.password || url.search || url.hash) return undefined;
  if (url.pathname !== '/' || text.endsWith('/')) return undefined;
  return url;
}

function printable(text: string): string {
  const safe = text.replace(/[^\x20-\x7E]/g, '?');
  return safe.length > 100 ? `${safe.slice(0, 100)}…` : safe;
}
