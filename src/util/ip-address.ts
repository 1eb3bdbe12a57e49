// What kind of address an IP address is, for the webhook destination rule (docs/admin.md, "Which addresses a
// webhook may reach"): a public (globally reachable) unicast address, or one of the kinds a webhook must not
// reach without `webhookDelivery.allowPrivateAddresses`. IPv4 by the IANA special-purpose registry; IPv6 by
// an allow list (global unicast 2000::/3 only, minus its special blocks), so an odd or future block is never
// taken for public. An address that carries an IPv4 address (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4
// 2002::/16) is what its IPv4 address is.
import { isIPv4, isIPv6 } from 'node:net';

/** The kinds of address a webhook may not reach unless private addresses are allowed. */
export type NonPublicKind =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'not an IP address';

type Block = readonly [bits: readonly number[], prefix: number, kind: NonPublicKind];

const IPV4_BLOCKS: readonly Block[] = [
  [[0, 0, 0, 0], 8, 'unspecified'],
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'private'], // shared address space (carrier-grade NAT)
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved'], // IETF protocol assignments
  [[192, 0, 2, 0], 24, 'reserved'], // documentation
  [[192, 88, 99, 0], 24, 'reserved'], // 6to4 relay anycast
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'reserved'], // benchmarking
  [[198, 51, 100, 0], 24, 'reserved'], // documentation
  [[203, 0, 113, 0], 24, 'reserved'], // documentation
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'], // and the broadcast address
];

/** Blocks inside 2000::/3 that are not globally reachable (as bytes). */
const IPV6_RESERVED: readonly Block[] = [
  [[0x20, 0x01, 0x00, 0x00], 23, 'reserved'], // IETF protocol assignments (Teredo, ORCHID, …)
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'reserved'], // documentation
  [[0x3f, 0xff, 0x00, 0x00], 20, 'reserved'], // documentation
];

function inBlock(bytes: Uint8Array, [bits, prefix]: Block): boolean {
  for (let i = 0; i * 8 < prefix; i++) {
    const take = Math.min(8, prefix - i * 8);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((bits[i] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Kind(bytes: Uint8Array): NonPublicKind | undefined {
  return IPV4_BLOCKS.find((block) => inBlock(bytes, block))?.[2];
}

/** The 4 bytes of a dotted-quad IPv4 address (as net.isIPv4 accepts it). */
function ipv4Bytes(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number));
}

/** The 16 bytes of an IPv6 address as net.isIPv6 accepts it (`::` shorthand, a dotted IPv4 tail, a zone). */
function ipv6Bytes(text: string): Uint8Array {
  const address = text.split('%')[0]!;
  const groups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (group.includes('.')) {
        const [a, b, c, d] = ipv4Bytes(group);
        return [(a! << 8) | b!, (c! << 8) | d!];
      }
      return [Number.parseInt(group, 16)];
    });
  };
  const cut = address.indexOf('::');
  const head = groups(cut < 0 ? address : address.slice(0, cut));
  const tail = cut < 0 ? [] : groups(address.slice(cut + 2));
  const all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

const zeros = (bytes: Uint8Array, from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);

function ipv6Kind(bytes: Uint8Array): NonPublicKind | undefined {
  if (zeros(bytes, 0, 10)) {
    const mapped = bytes[10] === 0xff && bytes[11] === 0xff;
    if (mapped) return ipv4Kind(bytes.subarray(12));
    if (zeros(bytes, 10, 15)) {
      if (bytes[15] === 0) return 'unspecified';
      if (bytes[15] === 1) return 'loopback';
    }
    return 'reserved'; // IPv4-compatible (deprecated) and the rest of ::/80
  }
  // NAT64 (64:ff9b::/96): what the IPv4 address it carries is.
  if (inBlock(bytes, [[0x00, 0x64, 0xff, 0x9b], 96, 'reserved'])) return ipv4Kind(bytes.subarray(12));
  if ((bytes[0]! & 0xfe) === 0xfc) return 'unique-local';
  if (bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80) return 'link-local';
  if (bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0xc0) return 'private'; // site-local (deprecated)
  if (bytes[0] === 0xff) return 'multicast';
  if ((bytes[0]! & 0xe0) !== 0x20) return 'reserved'; // outside global unicast 2000::/3
  // 6to4 (2002::/16): what the IPv4 address it carries is.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return ipv4Kind(bytes.subarray(2, 6));
  return IPV6_RESERVED.find((block) => inBlock(bytes, block))?.[2];
}

/**
 * undefined for a public unicast address; otherwise what kind of address it is. `address` is an IP address
 * as a resolver answers it or a URL's host holds it (IPv6 with or without brackets); anything else is
 * `not an IP address`.
 */
export function nonPublicKind(address: string): NonPublicKind | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return ipv4Kind(ipv4Bytes(bare));
  if (isIPv6(bare)) return ipv6Kind(ipv6Bytes(bare));
  return 'not an IP address';
}

/** Whether `host` (a URL's hostname) is an IP address literal rather than a name to resolve. */
export function isIpLiteral(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIPv4(bare) || isIPv6(bare);
}
