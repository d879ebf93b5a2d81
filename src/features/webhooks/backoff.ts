/**
 * Retry spacing of webhook deliveries (decisions §7). Attempt 1 goes out at once; after failed
 * attempt n, attempt n+1 waits the n-th entry of the backoff list, and the last entry repeats when
 * the list is shorter than the attempts allowed.
 */
import { z } from 'zod';
import { parseDurationList } from '../../platform/util/duration.js';

/** The spec's backoff list, `R3_WEBHOOK_BACKOFF`'s default. */
export const DEFAULT_WEBHOOK_BACKOFF = '1s,30s,5m,1h,6h,24h';

/** Parses a backoff list (`1s,30s,5m`) to milliseconds; `undefined` when any entry is not a duration. */
export function parseBackoff(text: string): number[] | undefined {
  return parseDurationList(text);
}

/** A backoff list in configuration: text in, milliseconds out, with a message naming the format. */
export const backoffSchema = z.string().transform((text, ctx) => {
  const parsed = parseBackoff(text);
  if (parsed === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `expected comma-separated durations with ms/s/m/h suffixes (like "${DEFAULT_WEBHOOK_BACKOFF}"), got "${text}"`,
    });
    return z.NEVER;
  }
  return parsed;
});

/**
 * Delay before the attempt that follows failed attempt `failedAttempt` (1-based): the entry at that
 * position, or the last entry when the list is shorter.
 */
export function retryDelayMs(backoffMs: readonly number[], failedAttempt: number): number {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) {
    throw new RangeError(`failedAttempt must be a positive integer, got ${failedAttempt}`);
  }
  const delay = backoffMs[Math.min(failedAttempt, backoffMs.length) - 1];
  if (delay === undefined) throw new RangeError('backoff list is empty');
  return delay;
}

/**
 * Delay before the next attempt after failed attempt `failedAttempt`, or `null` when that was the
 * last allowed attempt and the delivery is now `failed`.
 */
export function nextRetryDelayMs(
  backoffMs: readonly number[],
  failedAttempt: number,
  maxAttempts: number,
): number | null {
  const delay = retryDelayMs(backoffMs, failedAttempt);
  return failedAttempt >= maxAttempts ? null : delay;
}
