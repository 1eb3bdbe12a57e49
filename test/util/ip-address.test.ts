// The kinds of address (src/util/ip-address.ts) as a resolver answers them: every non-public block the
// webhook destination rule refuses, in both families and in the spellings that carry an IPv4 address inside
// an IPv6 one; public addresses pass; anything that is not an address is never taken for a public one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isIpLiteral, nonPublicKind } from '../../src/util/ip-address.js';

const KINDS: [string, string | undefined][] = [
  ['8.8.8.8', undefined],
  ['93.184.215.14', undefined],
  ['172.15.255.255', undefined],
  ['172.32.0.1', undefined],
  ['100.63.255.255', undefined],
  ['2606:4700::6810:84e5', undefined],
  ['2a00:1450:4001:82a::200e', undefined],
  ['::ffff:8.8.8.8', undefined],
  ['64:ff9b::808:808', undefined],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['100.64.0.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['224.0.0.251', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.51.100.1', 'reserved'],
  ['203.0.113.1', 'reserved'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:192.168.1.1', 'private'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:0a00:0001::1', 'private'],
  ['::127.0.0.1', 'reserved'],
  ['::2', 'reserved'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'private'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['ff02::1', 'multicast'],
  ['100::1', 'reserved'],
  ['2001::1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['3fff::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['hooks.example', 'not an IP address'],
  ['127.1', 'not an IP address'],
  ['0x7f000001', 'not an IP address'],
  ['', 'not an IP address'],
];

describe('the kind of an IP address', () => {
  it('every non-public block is named; public addresses have no kind', () => {
    for (const [address, kind] of KINDS) assert.equal(nonPublicKind(address), kind, address);
  });

  it('an address literal is told from a name', () => {
    assert.deepEqual(['127.0.0.1', '[::1]', '::1', 'hooks.example', '127.1', 'localhost'].map(isIpLiteral), [
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
