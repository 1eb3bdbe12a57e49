// A resolver for the webhook destination check (src/webhooks/destination.ts `ResolveHost`) that answers
// from a table the test holds and may change at any time, so no test depends on real DNS. Every question is
// recorded; a name the table lacks fails as getaddrinfo does (ENOTFOUND).
import { isIPv4 } from 'node:net';
import type { ResolveHost } from '../../src/webhooks/destination.js';

export interface FakeResolver {
  readonly resolve: ResolveHost;
  /** Host name → its addresses; change it to change the next answers. */
  readonly answers: Map<string, readonly string[]>;
  /** Every name asked, in order. */
  readonly asked: string[];
}

export function fakeResolver(answers: Record<string, readonly string[]> = {}): FakeResolver {
  const table = new Map(Object.entries(answers));
  const asked: string[] = [];
  return {
    answers: table,
    asked,
    resolve: async (hostname) => {
      asked.push(hostname);
      const found = table.get(hostname.toLowerCase());
      if (found === undefined)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      return found.map((address) => ({ address, family: isIPv4(address) ? 4 : 6 }));
    },
  };
}
