// The admin listener answers only requests addressed to it by name: a page on another site that made its
// own DNS name resolve to 127.0.0.1 (DNS rebinding) sends that name in `Host`, and is refused before any
// path, even /metrics, is looked at. Accepted: the loopback forms, the host the listener is bound to, and
// the configured `admin.allowedHosts` (for a listener reached by a name, e.g. behind a private proxy).

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** The host part of a Host header value or a configured name, lower-case, without a port; IPv6 in brackets. */
export function hostName(value: string): string {
  const host = value.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colons = host.split(':').length - 1;
  if (colons > 1) return `[${host}]`; // a bare IPv6 address (a configured name; never a valid Host value)
  return colons === 1 ? host.slice(0, host.indexOf(':')) : host;
}

/** Whether a request's Host header names this listener. Missing, repeated or unknown: false. */
export function hostChecker(
  boundHost: string,
  allowedHosts: readonly string[],
): (header: readonly string[] | undefined) => boolean {
  const allowed = new Set([...LOOPBACK, ...allowedHosts.map(hostName)]);
  const bound = hostName(boundHost);
  if (!WILDCARDS.has(bound)) allowed.add(bound);
  return (header) => header?.length === 1 && allowed.has(hostName(header[0]!));
}
