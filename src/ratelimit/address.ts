// The key a client address is limited under. IPv4-mapped IPv6 addresses count as their IPv4 address, and an
// IPv6 address counts as its /64 network (one host usually owns a whole /64, so per-address limits on full
// IPv6 addresses would be trivial to dodge).
import { isIPv4, isIPv6 } from 'node:net';

export function addressKey(address: string | null, ipv6PrefixHextets = 4): string {
  if (address === null || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return 'unknown';
  return `${expandIPv6(address).slice(0, ipv6PrefixHextets).join(':')}::/${ipv6PrefixHextets * 16}`;
}

/** The eight hextets of an IPv6 address (zone id dropped), lower-case, without leading zeros. */
function expandIPv6(address: string): string[] {
  const withoutZone = address.split('%')[0]!.toLowerCase();
  const [head, tail] = withoutZone.includes('::')
    ? (withoutZone.split('::') as [string, string])
    : [withoutZone, undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  let left = parse(head);
  let right = tail === undefined ? [] : parse(tail);
  // An embedded IPv4 tail (::ffff:a.b.c.d handled above; others are rare) becomes two hextets.
  const fix = (parts: string[]) =>
    parts.flatMap((p) => {
      if (!p.includes('.')) return [p];
      const [a, b, c, d] = p.split('.').map(Number) as [number, number, number, number];
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  left = fix(left);
  right = fix(right);
  const missing = 8 - left.length - right.length;
  const all = [...left, ...new Array<string>(Math.max(0, missing)).fill('0'), ...right];
  return all.map((h) => parseInt(h, 16).toString(16));
}
