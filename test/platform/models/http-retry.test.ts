import { describe, expect, it } from 'vitest';
import {
  abortableSleep,
  backoffDelay,
  isRetryableStatus,
  parseRetryAfter,
} from '../../../src/platform/models/http-retry.js';

describe('isRetryableStatus', () => {
  it('retries 429 and 5xx only', () => {
    expect([429, 500, 502, 503, 599].map(isRetryableStatus)).toEqual([true, true, true, true, true]);
    expect([200, 301, 400, 401, 403, 404, 408, 409, 422].map(isRetryableStatus)).toEqual(
      new Array(9).fill(false),
    );
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads retry-after-ms first, then seconds, then an HTTP date', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }), now)).toBe(0);
  });

  it('ignores absent, negative and unreadable values', () => {
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': '-1' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': 'x', 'retry-after': '1' }), now)).toBe(1000);
  });
});

describe('backoffDelay', () => {
  it('doubles per retry, jitters within the upper half, and is capped', () => {
    const low = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000, random: () => 0 };
    const high = { ...low, random: () => 0.999999 };
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, low))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, high))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});

describe('abortableSleep', () => {
  it('rejects with the reason when aborted', async () => {
    const controller = new AbortController();
    const pending = abortableSleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });

  it('resolves after the delay', async () => {
    await expect(abortableSleep(1)).resolves.toBeUndefined();
  });
});
