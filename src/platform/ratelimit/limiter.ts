/**
 * Request rate limiting shared by every node: a GCRA token bucket (capacity `burst`, refilled at
 * `perMinute`) whose state lives in PostgreSQL (`rate_limits`, one unlogged row per bucket, updated
 * by one statement per batch of concurrent requests, gcra-sql.ts). Buckets: `t:<tokenId>` for
 * authenticated calls (taken in the statement that authenticates them, src/platform/auth/authenticate.ts),
 * `ip:<address>` for everything else (taken here).
 *
 * A refused request leaves the bucket unchanged, so a node that saw a refusal can refuse locally
 * until the retry time without asking the database again: every node would reach the same answer.
 */
import type { Sql } from '../db/sql.js';
import { createBatchLoader } from '../util/batch-loader.js';
import type { Clock } from '../util/clock.js';

/** One rate-limit reading, rendered into headers on every response. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the bucket is full again. */
  resetAt: number;
  retryAfterSec: number;
  /** Seconds the bucket needs to refill from empty (the IETF policy window). */
  windowSec: number;
  /** Seconds until the bucket is full (the IETF `t`). */
  fullInSec: number;
}

import { RATE_TAKE_BATCH } from './gcra-sql.js';

export interface RatePolicy {
  perMinute: number;
  burst: number;
}

export interface RateLimiter {
  /** Takes one request from an address's bucket; null when limiting is off. */
  takeForAddress(ip: string): Promise<RateDecision | null>;
  /** Takes one request from bucket `key` under `policy` (browser sessions: `s:<id>`); null when it is off. */
  take(key: string, policy: RatePolicy): Promise<RateDecision | null>;
  /** Drops idle buckets (full for over an hour). */
  sweep(): Promise<number>;
}

export function createRateLimiter(deps: { sql: Sql; clock: Clock; defaults: RatePolicy }): RateLimiter {
  const { sql, clock, defaults } = deps;
  /** Buckets known to be empty: key → the bucket's theoretical arrival time (ms). */
  const refused = new Map<string, { tatMs: number; untilMs: number }>();
  // One loader per policy: a batch's statement takes one interval and burst.
  const loaders = new Map<string, ReturnType<typeof stepsFor>>();
  const stepsFor = (policy: RatePolicy) =>
    createBatchLoader<string, { allowed: boolean; tat_ms: number; now: number }>({
      async batch(keys) {
        const interval = 60_000 / policy.perMinute;
        const now = clock.now();
        const rows = await sql.prepared<{ ord: number; allowed: boolean; tat_ms: number }>(
          'rate_take_batch',
          RATE_TAKE_BATCH,
          [keys, now, interval, policy.burst],
        );
        return rows.map((row) => ({ ...row, now }));
      },
    });
  const steps = (policy: RatePolicy) => {
    const name = `${policy.perMinute}/${policy.burst}`;
    let loader = loaders.get(name);
    if (!loader) {
      if (loaders.size > 100) loaders.clear();
      loader = stepsFor(policy);
      loaders.set(name, loader);
    }
    return loader;
  };

  async function take(key: string, policy: RatePolicy): Promise<RateDecision | null> {
    if (policy.perMinute === 0 || policy.burst === 0) return null;
    const interval = 60_000 / policy.perMinute;
    const known = refused.get(key);
    if (known) {
      const now = clock.now();
      if (now < known.untilMs) return decide(false, known.tatMs, now, interval, policy.burst);
      refused.delete(key);
    }
    const { allowed, tat_ms: tatMs, now } = await steps(policy).load(key);
    const decision = decide(allowed, tatMs, now, interval, policy.burst);
    if (!allowed) {
      if (refused.size > 10_000) refused.clear();
      refused.set(key, { tatMs, untilMs: now + decision.retryAfterSec * 1000 });
    }
    return decision;
  }

  return {
    takeForAddress: (ip) => take(`ip:${ip}`, defaults),
    take,
    async sweep() {
      const rows = await sql.query('delete from rate_limits where tat_ms < $1 returning 1', [
        clock.now() - 3_600_000,
      ]);
      return rows.length;
    },
  };
}

/** Turns a GCRA state into the numbers the headers carry. */
export function decide(
  allowed: boolean,
  tatMs: number,
  nowMs: number,
  intervalMs: number,
  burst: number,
): RateDecision {
  const capacityMs = intervalMs * burst;
  const backlogMs = Math.max(0, tatMs - nowMs);
  const remaining = Math.max(0, Math.floor((capacityMs - backlogMs) / intervalMs + 1e-9));
  // Refused: the next request fits once the backlog has drained to capacity - one interval.
  const retryAfterMs = allowed ? 0 : Math.max(1, backlogMs + intervalMs - capacityMs);
  return {
    allowed,
    limit: burst,
    remaining: allowed ? remaining : 0,
    resetAt: Math.ceil(Math.max(tatMs, nowMs) / 1000),
    retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil(retryAfterMs / 1000)),
    windowSec: Math.ceil(capacityMs / 1000),
    fullInSec: Math.ceil(backlogMs / 1000),
  };
}
