import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses fetch_url may connect to: public unicast only. Everything a server-side
 * request could abuse is refused — loopback, private and shared ranges, link-local (with the
 * cloud metadata address 169.254.169.254), unique-local and link-local IPv6, multicast,
 * reserved and documentation ranges — including IPv6 forms that embed an IPv4 address
 * (IPv4-mapped, NAT64, 6to4).
 */

interface Range {
  prefix: readonly number[];
  bits: number;
  reason: string;
}

const IPV4_BLOCKED: readonly Range[] = [
  range([0, 0, 0, 0], 8, 'the "this network" range'),
  range([10, 0, 0, 0], 8, 'a private address'),
  range([100, 64, 0, 0], 10, 'a shared (carrier-grade NAT) address'),
  range([127, 0, 0, 0], 8, 'a loopback address'),
  range([169, 254, 0, 0], 16, 'a link-local address (cloud metadata lives there)'),
  range([172, 16, 0, 0], 12, 'a private address'),
  range([192, 0, 0, 0], 24, 'a reserved address'),
  range([192, 0, 2, 0], 24, 'a documentation address'),
  range([192, 88, 99, 0], 24, 'a reserved relay address'),
  range([192, 168, 0, 0], 16, 'a private address'),
  range([198, 18, 0, 0], 15, 'a benchmarking address'),
  range([198, 51, 100, 0], 24, 'a documentation address'),
  range([203, 0, 113, 0], 24, 'a documentation address'),
  range([224, 0, 0, 0], 4, 'a multicast address'),
  range([240, 0, 0, 0], 4, 'a reserved address'),
];

/** IPv6 forms carrying an IPv4 address at a byte offset: judged by that address. */
const IPV6_EMBEDDING_IPV4: readonly (Range & { offset: number })[] = [
  { ...range([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, 'IPv4-mapped'), offset: 12 },
  { ...range([0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96, 'NAT64'), offset: 12 },
  { ...range([0x20, 0x02], 16, '6to4'), offset: 2 },
];

const IPV6_BLOCKED: readonly Range[] = [
  range([0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, 'a local-use NAT64 address'),
  range([0x20, 0x01, 0x00, 0x00], 32, 'a Teredo tunnel address'),
  range([0x20, 0x01, 0x0d, 0xb8], 32, 'a documentation address'),
  range([0x20, 0x01, 0x00, 0x10], 28, 'a reserved address'),
];
/** Only global unicast (2000::/3) is public; the rest is loopback, ULA, link-local, multicast… */
const IPV6_GLOBAL_UNICAST = range([0x20], 3, '');

/** Why the address may not be fetched, or undefined when it is public. */
export function blockedReason(address: string): string | undefined {
  const withoutZone = address.replace(/%.*$/, '');
  if (isIPv4(withoutZone)) return matchRange(ipv4Bytes(withoutZone), IPV4_BLOCKED);
  if (!isIPv6(withoutZone)) return 'not an IP address';
  const bytes = ipv6Bytes(withoutZone);
  for (const embedding of IPV6_EMBEDDING_IPV4) {
    if (inRange(bytes, embedding)) {
      const embedded = bytes.slice(embedding.offset, embedding.offset + 4);
      const reason = matchRange(embedded, IPV4_BLOCKED);
      return reason === undefined ? undefined : `${reason} (${embedding.reason})`;
    }
  }
  if (bytes.every((byte) => byte === 0)) return 'the unspecified address';
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) {
    return 'a loopback address';
  }
  if (!inRange(bytes, IPV6_GLOBAL_UNICAST)) return describeNonGlobal(bytes);
  return matchRange(bytes, IPV6_BLOCKED);
}

function describeNonGlobal(bytes: readonly number[]): string {
  const first = bytes[0] ?? 0;
  const second = bytes[1] ?? 0;
  if ((first & 0xfe) === 0xfc) return 'a unique-local address';
  if (first === 0xfe && (second & 0xc0) === 0x80) return 'a link-local address';
  if (first === 0xff) return 'a multicast address';
  return 'a reserved address';
}

function matchRange(bytes: readonly number[], ranges: readonly Range[]): string | undefined {
  return ranges.find((candidate) => inRange(bytes, candidate))?.reason;
}

function inRange(bytes: readonly number[], candidate: Range): boolean {
  for (let bit = 0; bit < candidate.bits; bit += 1) {
    const index = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((bytes[index] ?? 0) & mask) !== ((candidate.prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

function range(prefix: number[], bits: number, reason: string): Range {
  return { prefix, bits, reason };
}

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** 16 bytes of an IPv6 address (validated by isIPv6), with `::` and a dotted IPv4 tail expanded. */
export function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const [a, b, c, d] = ipv4Bytes(dotted[1]) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  return groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}
