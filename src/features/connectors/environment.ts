/**
 * The connectors' process-wide settings from the configuration, with the SSRF guard: every HTTP
 * target (API base URLs, download links) and every IMAP/SMTP host is checked as webhook targets are
 * (`R3_CONNECTORS_ALLOW_PRIVATE=true` lets loopback, private ranges and plain http through, for tests
 * and self-hosted upstreams on a private network).
 */
import type { Config } from '../../platform/config.js';
import { checkTarget } from '../../platform/net/ssrf.js';
import type { Clock } from '../../platform/util/clock.js';
import { ConnectorError } from './errors.js';
import type { ConnectorEnvironment } from './registry.js';

async function guard(url: string, allowPrivate: boolean, shown: string): Promise<void> {
  const verdict = await checkTarget(url, { allowPrivate });
  if (!verdict.ok) {
    const range = verdict.range ? ` (${verdict.range})` : '';
    throw new ConnectorError('REJECTED', `connection target ${shown} refused: ${verdict.reason}${range}`);
  }
}

/** The environment connectors are built with in this process. */
export function connectorEnvironment(config: Config, clock: Clock): ConnectorEnvironment {
  const { allowPrivate, timeoutMs, retryBaseMs } = config.connectors;
  return {
    now: () => clock.now(),
    timeoutMs,
    retry: { baseDelayMs: retryBaseMs },
    guardUrl: (url) => guard(url.toString(), allowPrivate, url.origin),
    // Mail hosts are checked as an https origin on their port: the same address rules apply.
    guardHost: (host, port) =>
      guard(`https://${host.includes(':') ? `[${host}]` : host}:${port}/`, allowPrivate, `${host}:${port}`),
  };
}
