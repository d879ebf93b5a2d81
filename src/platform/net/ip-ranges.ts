/**
 * Which IP addresses a webhook may not target: everything that is not ordinary, globally routed
 * unicast. IPv4 uses a deny list (the IANA special-purpose registry); IPv6 allows only global
 * unicast `2000::/3` minus its special blocks, and judges the IPv4 address embedded in mapped
 * (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) addresses by the IPv4 rules,
 * since those forms reach the embedded IPv4 host.
 */
import { isIPv4, isIPv6 } from 'node:net';

interface Cidr {
  bytes: Uint8Array;
  prefix: number;
  range: string;
}

function cidr(text: string, range: string): Cidr {
  const [address = '', prefix = ''] = text.split('/');
  const bytes = parseIp(address);
  if (!bytes) throw new Error(`bad CIDR ${text}`);
  return { bytes, prefix: Number(prefix), range };
}

/** Refused IPv4 blocks, most specific first. */
const IPV4_REFUSED: readonly Cidr[] = [
  cidr('169.254.169.254/32', 'cloud_metadata'),
  cidr('0.0.0.0/8', 'unspecified'),
  cidr('10.0.0.0/8', 'private'),
  cidr('100.64.0.0/10', 'cgnat'),
  cidr('127.0.0.0/8', 'loopback'),
  cidr('169.254.0.0/16', 'link_local'),
  cidr('172.16.0.0/12', 'private'),
  cidr('192.0.0.0/24', 'reserved'),
  cidr('192.0.2.0/24', 'documentation'),
  cidr('192.88.99.0/24', 'reserved'),
  cidr('192.168.0.0/16', 'private'),
  cidr('198.18.0.0/15', 'benchmarking'),
  cidr('198.51.100.0/24', 'documentation'),
  cidr('203.0.113.0/24', 'documentation'),
  cidr('224.0.0.0/4', 'multicast'),
  cidr('240.0.0.0/4', 'reserved'),
];

/** IPv6 blocks outside the allowed global unicast space, named for clearer refusals. */
const IPV6_NAMED: readonly Cidr[] = [
  cidr('::/128', 'unspecified'),
  cidr('::1/128', 'loopback'),
  cidr('fc00::/7', 'private'),
  cidr('fe80::/10', 'link_local'),
  cidr('fec0::/10', 'link_local'),
  cidr('ff00::/8', 'multicast'),
];

/** Special blocks inside `2000::/3` that are refused as well. */
const IPV6_GLOBAL_REFUSED: readonly Cidr[] = [
  cidr('2001:db8::/32', 'documentation'),
  cidr('3fff::/20', 'documentation'),
  cidr('2001::/23', 'reserved'),
];

const IPV6_GLOBAL_UNICAST = cidr('2000::/3', 'global');
const IPV4_MAPPED = cidr('::ffff:0:0/96', 'ipv4_mapped');
const NAT64 = cidr('64:ff9b::/96', 'nat64');
const SIX_TO_FOUR = cidr('2002::/16', '6to4');

function inCidr(bytes: Uint8Array, block: Cidr): boolean {
  if (bytes.length !== block.bytes.length) return false;
  const whole = block.prefix >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== block.bytes[i]) return false;
  const rest = block.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[whole] ?? 0) & mask) === ((block.bytes[whole] ?? 0) & mask);
}

function parseIPv4(text: string): Uint8Array | undefined {
  if (!isIPv4(text)) return undefined;
  return Uint8Array.from(text.split('.').map(Number));
}

function parseIPv6(text: string): Uint8Array | undefined {
  if (!isIPv6(text)) return undefined;
  let s = text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (!v4) return undefined;
    const hi = (((v4[0] ?? 0) << 8) | (v4[1] ?? 0)).toString(16);
    const lo = (((v4[2] ?? 0) << 8) | (v4[3] ?? 0)).toString(16);
    s = `${s.slice(0, lastColon + 1)}${hi}:${lo}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const head = groupsOf(halves[0]);
  const rest = groupsOf(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...rest];
  const bytes = new Uint8Array(16);
  for (const [i, group] of groups.entries()) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  }
  return bytes;
}

/** Parses an IPv4 (dotted quad) or IPv6 address to its 4 or 16 bytes; `undefined` if it is neither. */
export function parseIp(text: string): Uint8Array | undefined {
  return parseIPv4(text) ?? parseIPv6(text);
}

function refusedIPv4(bytes: Uint8Array): string | undefined {
  return IPV4_REFUSED.find((block) => inCidr(bytes, block))?.range;
}

function refusedIPv6(bytes: Uint8Array): string | undefined {
  if (inCidr(bytes, IPV4_MAPPED) || inCidr(bytes, NAT64)) return refusedIPv4(bytes.subarray(12, 16));
  if (inCidr(bytes, SIX_TO_FOUR)) return refusedIPv4(bytes.subarray(2, 6));
  const named = IPV6_NAMED.find((block) => inCidr(bytes, block));
  if (named) return named.range;
  if (!inCidr(bytes, IPV6_GLOBAL_UNICAST)) return 'reserved';
  return IPV6_GLOBAL_REFUSED.find((block) => inCidr(bytes, block))?.range;
}

/**
 * Names the refused range an address falls in (`loopback`, `private`, `link_local`,
 * `cloud_metadata`, `cgnat`, `multicast`, `reserved`, `unspecified`, `documentation`,
 * `benchmarking`, or `invalid` for text that is not an IP address), or `undefined` when the address
 * is an ordinary public one.
 */
export function refusedRange(address: string): string | undefined {
  const bytes = parseIp(address);
  if (!bytes) return 'invalid';
  return bytes.length === 4 ? refusedIPv4(bytes) : refusedIPv6(bytes);
}
