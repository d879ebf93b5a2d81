/**
 * Server-side request forgery guard for webhook targets. A target is checked once per delivery
 * attempt, and the attempt then connects to exactly the address the check approved (see
 * `deliver-http.ts`), so a name that re-resolves to an internal address between check and connect
 * (DNS rebinding) cannot slip through.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { alwaysRefusedRange, refusedRange } from './ip-ranges.js';

/** One resolved address, as `dns.lookup(host, {all: true})` returns it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address a client could connect to. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Options of {@link checkTarget}. */
export interface CheckTargetOptions {
  /**
   * Lets plain http and loopback/private/reserved targets through (`R3_WEBHOOK_ALLOW_PRIVATE`), never
   * cloud metadata or link-local ones.
   */
  allowPrivate: boolean;
  /**
   * Lets plain http through for public targets too (agent tools fetch the open web; webhooks and
   * connectors carry secrets and need https). Every address rule still applies.
   */
  allowPlainHttp?: boolean;
  /** Defaults to the system resolver (`dns.lookup`, which honours /etc/hosts like any client). */
  resolver?: Resolver;
  /** Time allowed for resolving the host. Default 5000 ms. */
  resolveTimeoutMs?: number;
}

/** Why a target was refused. */
export type TargetRefusal =
  | 'invalid_url'
  | 'url_too_long'
  | 'unsupported_scheme'
  | 'https_required'
  | 'userinfo_not_allowed'
  | 'blocked_hostname'
  | 'dns_failed'
  | 'blocked_address';

/** An approved target: connect to `address`, while TLS and `Host` keep using `url.hostname`. */
export interface ApprovedTarget {
  ok: true;
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * A refused target. `range` names the refused address range for `blocked_address` (the address
 * itself is left out: echoing what an internal name resolves to would leak it to the tenant).
 */
export interface RefusedTarget {
  ok: false;
  reason: TargetRefusal;
  range?: string;
}

/** Longest accepted target URL. */
export const MAX_TARGET_URL_LENGTH = 2048;

const defaultResolver: Resolver = (hostname) => lookup(hostname, { all: true });

/** Names of a cloud metadata service: refused whatever the deployment allows. */
const METADATA_HOSTNAMES: ReadonlySet<string> = new Set(['metadata.google.internal']);

function isBlockedHostname(hostname: string, allowPrivate: boolean): boolean {
  if (METADATA_HOSTNAMES.has(hostname.toLowerCase())) return true;
  return !allowPrivate && (hostname === 'localhost' || hostname.endsWith('.localhost'));
}

async function resolveWithin(resolver: Resolver, hostname: string, ms: number): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('dns timeout')), ms);
  });
  try {
    return await Promise.race([resolver(hostname), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks a webhook target URL and resolves it to the one address to connect to.
 *
 * Refused: anything but http/https; `user:pass@` in the URL; plain http unless `allowPrivate`;
 * unless `allowPrivate`, the names `localhost` and `*.localhost`, and a host for which ANY resolved
 * address is loopback, unspecified, private, link-local (cloud metadata included), CGNAT, multicast,
 * reserved, documentation or benchmarking space, including IPv4-mapped/NAT64/6to4 forms of those.
 * Always, `allowPrivate` or not: `metadata.google.internal` and a host with any cloud metadata or
 * link-local address. Any port is allowed. An IP literal is used as is.
 */
export async function checkTarget(
  url: string,
  options: CheckTargetOptions,
): Promise<ApprovedTarget | RefusedTarget> {
  if (url.length > MAX_TARGET_URL_LENGTH) return { ok: false, reason: 'url_too_long' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'invalid_url' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return { ok: false, reason: 'unsupported_scheme' };
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: 'userinfo_not_allowed' };
  if (!options.allowPrivate && !options.allowPlainHttp && parsed.protocol !== 'https:')
    return { ok: false, reason: 'https_required' };

  // URL keeps IPv6 literals bracketed; a trailing dot names the same host as without it.
  let hostname = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  // Trailing dots (a fully qualified name): trimmed by a loop, as `/\.+$/` backtracks quadratically.
  while (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  if (hostname === '') return { ok: false, reason: 'invalid_url' };
  if (isBlockedHostname(hostname, options.allowPrivate)) return { ok: false, reason: 'blocked_hostname' };

  let addresses: ResolvedAddress[];
  const literalFamily = isIP(hostname);
  if (literalFamily !== 0) {
    addresses = [{ address: hostname, family: literalFamily }];
  } else {
    try {
      addresses = await resolveWithin(
        options.resolver ?? defaultResolver,
        hostname,
        options.resolveTimeoutMs ?? 5000,
      );
    } catch {
      return { ok: false, reason: 'dns_failed' };
    }
  }

  const usable: Array<{ address: string; family: 4 | 6 }> = [];
  for (const { address } of addresses) {
    const family = isIP(address);
    // Whatever the resolver claims, only a real IP address can be pinned.
    if (family === 0) return { ok: false, reason: 'dns_failed' };
    const range = options.allowPrivate ? alwaysRefusedRange(address) : refusedRange(address);
    if (range !== undefined) return { ok: false, reason: 'blocked_address', range };
    usable.push({ address, family: family === 4 ? 4 : 6 });
  }
  const first = usable[0];
  if (!first) return { ok: false, reason: 'dns_failed' };
  return { ok: true, url: parsed, address: first.address, family: first.family };
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `http(s).request` / `net.connect` that answers every query with the address
 * `checkTarget` approved, so the socket goes there and nowhere else (no second resolution).
 */
export function pinnedLookup(address: string, family: 4 | 6) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    // With `autoSelectFamily` (Node 20's default) the socket asks for all addresses at once.
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
