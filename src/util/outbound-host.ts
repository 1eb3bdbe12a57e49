// Which hosts an outbound request of the service (a webhook delivery) may reach, and how a refusal reads:
// public addresses only, unless private ones are allowed (docs/admin.md, "Which addresses a webhook may
// reach"). A refusal names the kind of address, never the address or anything the host answered.
import { isIpLiteral, nonPublicKind } from './ip-address.js';

/** A hostname that names the machine itself without asking DNS (RFC 6761). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** "a loopback address", "an unspecified address". */
export function addressPhrase(kind: string): string {
  return `${kind === 'unspecified' ? 'an' : 'a'} ${kind} address`;
}

/** The refusal of a host, `what` saying what it is or resolves to. */
export function privateHostRefusal(what: string): string {
  return `${what}; webhooks reach public addresses only, unless webhookDelivery.allowPrivateAddresses is true (tests, a receiver on your own network)`;
}

/** Why a URL's host is refused before any DNS: a non-public address literal, or a localhost name. */
export function literalHostProblem(url: URL, allowPrivateAddresses: boolean): string | undefined {
  if (allowPrivateAddresses) return undefined;
  if (isIpLiteral(url.hostname)) {
    const kind = nonPublicKind(url.hostname);
    return kind === undefined ? undefined : privateHostRefusal(`the host is ${addressPhrase(kind)}`);
  }
  return isLocalhostName(url.hostname) ? privateHostRefusal('the host is a loopback name') : undefined;
}
