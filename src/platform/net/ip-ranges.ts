/**
 * Which IP addresses a webhook may not target: everything that is not ordinary, globally routed
 * unicast. IPv4 uses a deny list (the IANA special-purpose registry); IPv6 allows only global
 * unicast `2000::/3` minus its special blocks, and judges the IPv4 address embedded in mapped
 * (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) addresses by the IPv4 rules,
 * since those forms reach the embedded IPv4 host. Matching is `node:net`'s `BlockList`: each IPv4
 * block is also listed at its three embedded IPv6 places.
 *
 * Cloud metadata services and link-local addresses (where they live) are refused whatever the
 * deployment allows (`alwaysRefusedRange`): letting private targets through is for loopback and
 * intranets, never for the instance's credentials.
 */
import { BlockList, isIP } from 'node:net';

/** A block of addresses: its first address, prefix length and the range's name in refusals. */
type Range = readonly [address: string, prefix: number, name: string];

interface Block {
  list: BlockList;
  range: string;
}

/**
 * IPv4 blocks refused even where private targets are allowed: the cloud metadata services (AWS, GCP,
 * Azure, OpenStack and ECS under 169.254/16, Alibaba's 100.100.100.200, Oracle's 192.0.0.192) and
 * the rest of link-local.
 */
const IPV4_ALWAYS_REFUSED: readonly Range[] = [
  ['169.254.169.254', 32, 'cloud_metadata'],
  ['169.254.170.2', 32, 'cloud_metadata'],
  ['100.100.100.200', 32, 'cloud_metadata'],
  ['192.0.0.192', 32, 'cloud_metadata'],
  ['169.254.0.0', 16, 'link_local'],
];

/** IPv6 blocks refused even where private targets are allowed: AWS's metadata address and link-local. */
const IPV6_ALWAYS_REFUSED: readonly Range[] = [
  ['fd00:ec2::254', 128, 'cloud_metadata'],
  ['fe80::', 10, 'link_local'],
];

/** Refused IPv4 blocks, most specific first. */
const IPV4_REFUSED: readonly Range[] = [
  ...IPV4_ALWAYS_REFUSED,
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** IPv6 blocks outside the allowed global unicast space, named for clearer refusals. */
const IPV6_NAMED: readonly Range[] = [
  ...IPV6_ALWAYS_REFUSED,
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'private'],
  ['fec0::', 10, 'link_local'],
  ['ff00::', 8, 'multicast'],
];

/** Special blocks inside `2000::/3` that are refused as well. */
const IPV6_GLOBAL_REFUSED: readonly Range[] = [
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['2001::', 23, 'reserved'],
];

function blocks(entries: readonly Range[], family: 'ipv4' | 'ipv6'): Block[] {
  return entries.map(([address, prefix, range]) => {
    const list = new BlockList();
    list.addSubnet(address, prefix, family);
    return { list, range };
  });
}

/** The 6to4 prefix of an IPv4 address: `2002:` and its 32 bits in two hex groups. */
function sixToFour(ipv4: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = ipv4.split('.').map(Number);
  return `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::`;
}

/** Each IPv4 block where IPv6 addresses embed it: mapped, NAT64 and 6to4. */
const embedded = (entries: readonly Range[]): Block[] =>
  entries.map(([address, prefix, range]) => {
    const list = new BlockList();
    list.addSubnet(`::ffff:${address}`, 96 + prefix, 'ipv6');
    list.addSubnet(`64:ff9b::${address}`, 96 + prefix, 'ipv6');
    list.addSubnet(sixToFour(address), 16 + prefix, 'ipv6');
    return { list, range };
  });

const EMBEDDED_REFUSED = embedded(IPV4_REFUSED);
const EMBEDDED_ALWAYS_REFUSED = embedded(IPV4_ALWAYS_REFUSED);

const EMBEDDING = new BlockList();
EMBEDDING.addSubnet('::ffff:0:0', 96, 'ipv6');
EMBEDDING.addSubnet('64:ff9b::', 96, 'ipv6');
EMBEDDING.addSubnet('2002::', 16, 'ipv6');

const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

const V4 = blocks(IPV4_REFUSED, 'ipv4');
const V4_ALWAYS = blocks(IPV4_ALWAYS_REFUSED, 'ipv4');
const V6_NAMED = blocks(IPV6_NAMED, 'ipv6');
const V6_ALWAYS = blocks(IPV6_ALWAYS_REFUSED, 'ipv6');
const V6_GLOBAL_REFUSED = blocks(IPV6_GLOBAL_REFUSED, 'ipv6');

const firstMatch = (list: readonly Block[], address: string, family: 'ipv4' | 'ipv6') =>
  list.find((block) => block.list.check(address, family))?.range;

/**
 * Names the refused range an address falls in (`loopback`, `private`, `link_local`,
 * `cloud_metadata`, `cgnat`, `multicast`, `reserved`, `unspecified`, `documentation`,
 * `benchmarking`, or `invalid` for text that is not an IP address), or `undefined` when the address
 * is an ordinary public one.
 */
export function refusedRange(address: string): string | undefined {
  const version = isIP(address);
  if (version === 4) return firstMatch(V4, address, 'ipv4');
  if (version !== 6) return 'invalid';
  const ipv6 = withoutZone(address);
  if (EMBEDDING.check(ipv6, 'ipv6')) return firstMatch(EMBEDDED_REFUSED, ipv6, 'ipv6');
  const named = firstMatch(V6_NAMED, ipv6, 'ipv6');
  if (named) return named;
  if (!GLOBAL_UNICAST.check(ipv6, 'ipv6')) return 'reserved';
  return firstMatch(V6_GLOBAL_REFUSED, ipv6, 'ipv6');
}

/**
 * Names the range of an address refused whatever the deployment allows — `cloud_metadata` or
 * `link_local`, in any of its IPv6 forms — or `invalid` for text that is not an IP address;
 * `undefined` otherwise.
 */
export function alwaysRefusedRange(address: string): string | undefined {
  const version = isIP(address);
  if (version === 4) return firstMatch(V4_ALWAYS, address, 'ipv4');
  if (version !== 6) return 'invalid';
  const ipv6 = withoutZone(address);
  if (EMBEDDING.check(ipv6, 'ipv6')) return firstMatch(EMBEDDED_ALWAYS_REFUSED, ipv6, 'ipv6');
  return firstMatch(V6_ALWAYS, ipv6, 'ipv6');
}

function withoutZone(address: string): string {
  const zone = address.indexOf('%');
  return zone >= 0 ? address.slice(0, zone) : address;
}
