import { describe, expect, it } from 'vitest';
import { decide } from '../../../src/platform/ratelimit/limiter.js';

describe('GCRA header arithmetic', () => {
  const interval = 1000; // 60 per minute
  it('reports the remaining requests and when the bucket is full again', () => {
    const now = 1_000_000;
    // After 3 requests from a full bucket of 5, the backlog is 3 intervals.
    const d = decide(true, now + 3 * interval, now, interval, 5);
    expect(d).toMatchObject({
      allowed: true,
      limit: 5,
      remaining: 2,
      resetAt: Math.ceil((now + 3000) / 1000),
      fullInSec: 3,
      windowSec: 5,
    });
  });

  it('asks a refused caller to wait until one request fits', () => {
    const now = 2_000_000;
    const d = decide(false, now + 5 * interval, now, interval, 5);
    expect(d.allowed).toBe(false);
    expect(d.remaining).toBe(0);
    expect(d.retryAfterSec).toBe(1);
    const slow = decide(false, now + 2 * 30_000, now, 30_000, 2); // 2 per minute, burst 2
    expect(slow.retryAfterSec).toBe(30);
  });
});
