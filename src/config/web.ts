// Checks of the web identifiers a configuration names: RP ID domains and origins.
// Each returns a problem text, or undefined when the value is fine.

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

/**
 * An Android app's origin: `android:apk-key-hash:` then the SHA-256 of the app's signing certificate in
 * base64url without padding (43 characters), as Android's Credential Manager writes it in clientDataJSON.
 */
export function androidOriginProblem(value: string): string | undefined {
  const hash = value.slice('android:apk-key-hash:'.length);
  if (!/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/.test(hash)) {
    return `${JSON.stringify(value.slice(0, 120))} is not an Android app origin: android:apk-key-hash: then the base64url SHA-256 (43 characters, no padding) of the app's signing certificate`;
  }
  return undefined;
}

/** Whether `host` may use RP ID `domain`: equal, or a subdomain of it (WebAuthn L3 §5.1.3 / §5.1.4 step 8). */
export function hostMatchesDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}
