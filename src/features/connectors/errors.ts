/**
 * The one error connectors throw. Its `code` says what went wrong upstream in terms the sync job,
 * the domain tools and proposals act on; `message` is the upstream's own words where it gave some
 * (shown as a source's `connectionError`), and never contains credentials.
 */

/** What went wrong upstream. */
export type ConnectorErrorCode =
  /** The credentials were refused (401/403, IMAP/SMTP authentication). Not retried. */
  | 'AUTH_FAILED'
  /** Credentials are missing: nothing was sent. Not retried. */
  | 'NOT_CONFIGURED'
  /** The upstream asked to slow down longer than a request may wait. Retried later. */
  | 'RATE_LIMITED'
  /** No answer in time, after the retries. Retried later. */
  | 'TIMEOUT'
  /** Unreachable or failing (network error, 5xx), after the retries. Retried later. */
  | 'UNAVAILABLE'
  /** The upstream has no such item. */
  | 'NOT_FOUND'
  /** The upstream refused the request itself (another 4xx): retrying the same request fails again. */
  | 'REJECTED'
  /** The upstream answered something the protocol does not allow. */
  | 'BAD_RESPONSE';

const RETRYABLE: ReadonlySet<ConnectorErrorCode> = new Set(['RATE_LIMITED', 'TIMEOUT', 'UNAVAILABLE']);

/** An upstream failure (see {@link ConnectorErrorCode}). */
export class ConnectorError extends Error {
  override name = 'ConnectorError';

  constructor(
    readonly code: ConnectorErrorCode,
    message: string,
    readonly details: { status?: number; retryAfterMs?: number } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Whether trying again later may succeed (the upstream was slow, down or busy). */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
}
