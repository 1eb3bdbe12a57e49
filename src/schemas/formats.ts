// The formats of the config file's strings that a pattern cannot say in the operator's words: RP ID domains,
// origins (browser, Android app, https only), the stores' URLs and the SQLite writer mode. Each is a function
// from the text to its problem (undefined: well formed); typebox.ts registers them, so the compiled checker
// refuses a malformed value, and config-problems.ts words the refusal with the format's own sentence. What
// needs another key (an origin on the application's domain) stays with the loader (src/config/).

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** A registrable-looking host name in canonical form: lower-case labels, no trailing dot, not an IP address. */
export function domainProblem(domain: string): string | undefined {
  if (domain.length > 253) return 'is longer than 253 characters';
  const labels = domain.toLowerCase().split('.');
  if (labels.some((label) => !LABEL.test(label))) {
    return `${JSON.stringify(domain)} is not a host name (letters, digits and hyphens in dot-separated labels; no scheme, port, path or trailing dot)`;
  }
  if (domain !== domain.toLowerCase()) return `must be lower-case (${JSON.stringify(domain.toLowerCase())})`;
  if (labels.every((label) => /^[0-9]+$/.test(label)))
    return `${JSON.stringify(domain)} is an IP address; WebAuthn RP IDs are domains`;
  if (domain === 'localhost')
    return '"localhost" is the RP ID of the local variant; the standard variant needs the application\'s own domain';
  return undefined;
}

export interface ParsedOrigin {
  readonly scheme: 'https' | 'http';
  readonly host: string;
  /** undefined when the origin was written without a port (local origins: any port). */
  readonly port: string | undefined;
}

/**
 * An origin exactly as browsers serialise it (`scheme://host[:port]`): no path, query, fragment, user info,
 * trailing slash or default port; lower-case. A mismatch in form would make every comparison fail silently.
 */
export function parseOrigin(value: string): ParsedOrigin | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(value)} is not an origin (expected scheme://host[:port])`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `${JSON.stringify(value)} must use https (or http for localhost)`;
  if (url.origin === 'null' || url.origin !== value) {
    return `${JSON.stringify(value)} is not in origin form; did you mean ${JSON.stringify(url.origin)}? (scheme://host[:port], lower-case, no path or trailing slash, no default port)`;
  }
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  if (scheme === 'http' && url.hostname !== 'localhost' && !url.hostname.endsWith('.localhost')) {
    return `${JSON.stringify(value)} uses http, which browsers allow for WebAuthn only on localhost; use https`;
  }
  return { scheme, host: url.hostname, port: url.port === '' ? undefined : url.port };
}

/** Whether `host` may use RP ID `domain`: equal, or a subdomain of it (WebAuthn L3 §5.1.3 / §5.1.4 step 8). */
export function hostMatchesDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** The prefix of an Android app's origin (`android:apk-key-hash:<hash>`), as Android writes it. */
export const ANDROID_ORIGIN_PREFIX = 'android:apk-key-hash:';

const problemOf = (parsed: ParsedOrigin | string) => (typeof parsed === 'string' ? parsed : undefined);

/**
 * An Android app's origin: `android:apk-key-hash:` then the SHA-256 of the app's signing certificate in
 * base64url without padding (43 characters), as Android's Credential Manager writes it in clientDataJSON.
 */
function androidOriginProblem(value: string): string | undefined {
  const hash = value.slice(ANDROID_ORIGIN_PREFIX.length);
  if (!/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/.test(hash)) {
    return `${JSON.stringify(value.slice(0, 120))} is not an Android app origin: android:apk-key-hash: then the base64url SHA-256 (43 characters, no padding) of the app's signing certificate`;
  }
  return undefined;
}

/** A URL with its password replaced, for messages and logs (a database URL may carry credentials). */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return value.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  }
}

/** A URL that parses and names a host (PostgreSQL's may name it in `?host=`), or the problem, redacted. */
function urlProblem(value: string, scheme: 'postgres' | 'redis', example: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(redactUrl(value))} is not a URL (${example})`;
  }
  const host = url.hostname !== '' || (scheme === 'postgres' && url.searchParams.has('host'));
  return host ? undefined : `the ${scheme}:// URL names no host`;
}

export const isPostgresUrl = (text: string) => text.startsWith('postgres://') || text.startsWith('postgresql://');
export const isRedisUrl = (text: string) => text.startsWith('redis://') || text.startsWith('rediss://');

/** Every format by name: the problem of a text, or undefined. */
export const FORMATS: Readonly<Record<string, (text: string) => string | undefined>> = {
  'rp-domain': domainProblem,
  'dev-hostname': (text) =>
    text === 'localhost'
      ? '"localhost" is always served; list only the other development hostnames'
      : domainProblem(text),
  origin: (text) => problemOf(parseOrigin(text)),
  /** `origins`: a browser's origin, or an Android app's. */
  'app-origin': (text) =>
    text.startsWith(ANDROID_ORIGIN_PREFIX) ? androidOriginProblem(text) : problemOf(parseOrigin(text)),
  /** `relatedOrigins`: browsers fetch them over https only. */
  'https-origin': (text) => {
    const origin = parseOrigin(text);
    if (typeof origin === 'string') return origin;
    return origin.scheme === 'https'
      ? undefined
      : `${JSON.stringify(text)} must use https: browsers fetch related origins over https only`;
  },
  database: (text) => {
    if (text === 'sqlite:') return '"sqlite:" needs a file path, e.g. "sqlite:./data/fido2.db"';
    if (text.startsWith('sqlite:')) return undefined;
    if (isPostgresUrl(text)) return urlProblem(text, 'postgres', 'postgres://user@host:5432/database');
    return `must be "sqlite:<path>" or a "postgres://" URL, got ${JSON.stringify(redactUrl(text))}`;
  },
  challenges: (text) => {
    if (text === 'memory' || text === 'database') return undefined;
    if (isRedisUrl(text)) return urlProblem(text, 'redis', 'redis://host:6379');
    return `must be "memory", "database" or a "redis://" URL, got ${JSON.stringify(redactUrl(text))}`;
  },
  'sqlite-writer': (text) =>
    text === 'auto' || text === 'thread' || text === 'inline'
      ? undefined
      : `must be "auto", "thread" or "inline", got ${JSON.stringify(text)}`,
};
