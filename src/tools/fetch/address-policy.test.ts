import { describe, expect, it } from 'vitest';
import { blockedReason, ipv6Bytes } from './address-policy.ts';

describe('blockedReason', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['0.0.0.0', 'the "this network" range'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['169.254.169.254', 'a link-local address (cloud metadata lives there)'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a reserved address'],
    ['::', 'the unspecified address'],
    ['::1', 'a loopback address'],
    ['0:0:0:0:0:0:0:1', 'a loopback address'],
    ['fc00::1', 'a unique-local address'],
    ['fd12:3456::1', 'a unique-local address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'a loopback address (IPv4-mapped)'],
    ['::ffff:7f00:1', 'a loopback address (IPv4-mapped)'],
    ['::ffff:169.254.169.254', 'a link-local address (cloud metadata lives there) (IPv4-mapped)'],
    ['64:ff9b::10.0.0.1', 'a private address (NAT64)'],
    ['2002:c0a8:0101::1', 'a private address (6to4)'],
    ['2001:db8::1', 'a documentation address'],
    ['2001:0:4136:e378::1', 'a Teredo tunnel address'],
    ['::127.0.0.1', 'a reserved address'],
    ['example.com', 'not an IP address'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::6810:84e5',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(blockedReason(address)).toBeUndefined();
  });

  it('expands compressed IPv6 and dotted tails into 16 bytes', () => {
    expect(ipv6Bytes('::1')).toEqual([...Array<number>(15).fill(0), 1]);
    expect(ipv6Bytes('::ffff:1.2.3.4').slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(ipv6Bytes('2001:db8::')).toEqual([0x20, 0x01, 0x0d, 0xb8, ...Array<number>(12).fill(0)]);
  });
});
