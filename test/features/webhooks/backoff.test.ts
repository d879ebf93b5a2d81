import { describe, expect, it } from 'vitest';
import {
  backoffSchema,
  DEFAULT_WEBHOOK_BACKOFF,
  nextRetryDelayMs,
  parseBackoff,
  retryDelayMs,
} from '../../../src/features/webhooks/backoff.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('parseBackoff', () => {
  it('parses the default list', () => {
    expect(parseBackoff(DEFAULT_WEBHOOK_BACKOFF)).toEqual([
      SECOND,
      30 * SECOND,
      5 * MINUTE,
      HOUR,
      6 * HOUR,
      24 * HOUR,
    ]);
  });

  it('parses fast test lists and refuses bad ones', () => {
    expect(parseBackoff('10ms, 20ms,50')).toEqual([10, 20, 50]);
    expect(parseBackoff('')).toBeUndefined();
    expect(parseBackoff('1s,,5m')).toBeUndefined();
    expect(parseBackoff('1d')).toBeUndefined();
    expect(parseBackoff('-1s')).toBeUndefined();
  });

  it('as a config schema, says what format it wants', () => {
    expect(backoffSchema.parse('1s,2s')).toEqual([SECOND, 2 * SECOND]);
    const bad = backoffSchema.safeParse('soon');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain('ms/s/m/h');
  });
});

describe('retryDelayMs', () => {
  const defaults = parseBackoff(DEFAULT_WEBHOOK_BACKOFF) ?? [];

  it('waits the n-th entry after failed attempt n', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(defaults, n))).toEqual(defaults);
  });

  it('repeats the last entry when the list is shorter', () => {
    expect(retryDelayMs([10, 20], 2)).toBe(20);
    expect(retryDelayMs([10, 20], 3)).toBe(20);
    expect(retryDelayMs([10, 20], 50)).toBe(20);
  });

  it('puts the sixth attempt 7h 5m 31s after the first with the defaults', () => {
    // Attempts 2..6 wait the first five entries: 1s + 30s + 5m + 1h + 6h.
    const waited = [1, 2, 3, 4, 5].reduce((sum, n) => sum + retryDelayMs(defaults, n), 0);
    expect(waited).toBe(7 * HOUR + 5 * MINUTE + 31 * SECOND);
  });

  it('refuses attempt numbers below 1 and an empty list', () => {
    expect(() => retryDelayMs(defaults, 0)).toThrow(RangeError);
    expect(() => retryDelayMs(defaults, 1.5)).toThrow(RangeError);
    expect(() => retryDelayMs([], 1)).toThrow(RangeError);
  });
});

describe('nextRetryDelayMs', () => {
  const defaults = parseBackoff(DEFAULT_WEBHOOK_BACKOFF) ?? [];

  it('gives up after the last allowed attempt, so the 24h entry needs more attempts', () => {
    expect(nextRetryDelayMs(defaults, 5, 6)).toBe(6 * HOUR);
    expect(nextRetryDelayMs(defaults, 6, 6)).toBeNull();
    expect(nextRetryDelayMs(defaults, 6, 8)).toBe(24 * HOUR);
    expect(nextRetryDelayMs(defaults, 7, 8)).toBe(24 * HOUR);
  });
});
