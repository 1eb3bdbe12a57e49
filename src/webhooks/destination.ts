// Where a webhook may be delivered (docs/admin.md, "Which addresses a webhook may reach"): its host must be,
// and resolve only to, public addresses unless `webhookDelivery.allowPrivateAddresses` is set. The check runs
// when a webhook is added (the admin API, the CLI, the console) and at every delivery, because DNS may answer
// otherwise later. At delivery the resolution is the connection's own `lookup`: the socket connects to an
// address this check passed, never to one a second resolution gives (so a DNS rebinding between check and
// connect cannot slip through). The resolver is injected (tests answer without real DNS).
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIpLiteral, nonPublicKind } from '../util/ip-address.js';
import { addressPhrase, literalHostProblem, privateHostRefusal } from '../util/outbound-host.js';

export interface ResolvedAddress {
  readonly address: string;
  /** 4 or 6. */
  readonly family: number;
}

/** Every address a host name resolves to (rejects as dns.lookup does: ENOTFOUND, EAI_AGAIN …). */
export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system's resolver (getaddrinfo, as node:http itself would ask). */
export const systemResolveHost: ResolveHost = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface DestinationRules {
  readonly allowPrivateAddresses: boolean;
  readonly resolve: ResolveHost;
}

/** A delivery refused before it connected; its message is the dead letter's `lastError`. */
export class DestinationRefused extends Error {
  readonly code = 'EWEBHOOK_DESTINATION';
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

/** Why these addresses may not be reached (the first non-public one's kind), or undefined. */
function resolvedProblem(addresses: readonly ResolvedAddress[]): string | undefined {
  for (const { address } of addresses) {
    const kind = nonPublicKind(address);
    if (kind === 'not an IP address')
      return privateHostRefusal('the host resolves to something that is not an address');
    // Every address counts: a client may connect to any of them (both families are tried).
    if (kind !== undefined) return privateHostRefusal(`the host resolves to ${addressPhrase(kind)}`);
  }
  return undefined;
}

/** The host's addresses, each one checked; rejects with DestinationRefused when one may not be reached. */
export async function checkedAddresses(hostname: string, rules: DestinationRules): Promise<ResolvedAddress[]> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const addresses = [...(await rules.resolve(host))];
  if (addresses.length === 0) throw new DestinationRefused('the host resolves to no address');
  if (!rules.allowPrivateAddresses) {
    const problem = resolvedProblem(addresses);
    if (problem !== undefined) throw new DestinationRefused(problem);
  }
  return addresses;
}

/**
 * Why `url` may not be added, once its form passed webhookUrlProblem (config/webhook-urls.ts): its host name
 * resolves to a non-public address. A name that does not resolve now is accepted (its DNS may not be set up
 * yet): every delivery resolves it again. Resolution is bounded by `timeoutMs`.
 */
export async function addedDestinationProblem(
  url: string,
  rules: DestinationRules,
  timeoutMs = 5000,
): Promise<string | undefined> {
  const target = new URL(url);
  const literal = literalHostProblem(target, rules.allowPrivateAddresses);
  if (literal !== undefined || rules.allowPrivateAddresses || isIpLiteral(target.hostname)) return literal;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([
      checkedAddresses(target.hostname, rules).then(
        () => undefined,
        (error: unknown) => (error instanceof DestinationRefused ? error.message : undefined),
      ),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The `lookup` of a delivery's socket: resolves with `rules.resolve`, checks every address, and hands the
 * socket only checked ones (node:net then connects to exactly these).
 */
export function checkedLookup(rules: DestinationRules): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    checkedAddresses(hostname, rules).then(
      (found) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addresses: LookupAddress[] = found
          .filter((a) => family === undefined || a.family === family)
          .map((a) => ({ address: a.address, family: a.family }));
        const first = addresses[0];
        if (first === undefined) {
          callback(new DestinationRefused(`the host has no IPv${family} address`), '', 0);
          return;
        }
        if (options.all === true) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
