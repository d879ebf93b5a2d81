/**
 * Rate limiting through the socket with a manual clock: burst, refill, headers on every response
 * (errors and 429 included), per-token buckets, per-IP limiting of unauthenticated calls, the
 * per-org override.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ R3_RATE_LIMIT_PER_MIN: '60', R3_RATE_LIMIT_BURST: '5' });
});
afterAll(() => t.close());

const get = (token?: string) => t.request('GET', '/api/v1/tokens', token ? { token } : {});
const headers = (res: { headers: Headers }) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: res.headers.get('x-ratelimit-reset'),
});

describe('token bucket', () => {
  it('allows the burst, then answers 429 RATE_LIMITED with Retry-After and the headers', async () => {
    const { token } = await t.token({ org: 'burst' });
    const now = t.clock.now();
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await get(token);
      expect(res.status).toBe(200);
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=5;w=5');
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await get(token);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(headers(refused)).toEqual({
      limit: '5',
      remaining: '0',
      reset: String(Math.ceil((now + 5000) / 1000)),
    });
    expect(refused.headers.get('ratelimit')).toBe('"default";r=0;t=5');
  });

  it('refills at the configured rate', async () => {
    const { token } = await t.token({ org: 'refill' });
    for (let i = 0; i < 5; i++) expect((await get(token)).status).toBe(200);
    expect((await get(token)).status).toBe(429);
    t.clock.advance(999);
    expect((await get(token)).status).toBe(429);
    t.clock.advance(1);
    const one = await get(token);
    expect(one.status).toBe(200);
    expect(one.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await get(token)).status).toBe(429);
    t.clock.advance(10_000);
    const full = await get(token);
    expect(full.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('keeps one bucket per token', async () => {
    const a = await t.token({ org: 'pair' });
    const b = await t.token({ org: 'pair' });
    for (let i = 0; i < 5; i++) await get(a.token);
    expect((await get(a.token)).status).toBe(429);
    expect((await get(b.token)).status).toBe(200);
  });

  it('puts the headers on error responses too (404, 403)', async () => {
    const { token } = await t.token({ org: 'errors', scopes: ['run:invoke'] });
    const notFound = await t.request('GET', '/api/v1/nope', { token });
    expect(notFound.status).toBe(404);
    expect(headers(notFound).remaining).toBe('4');
    const forbidden = await get(token);
    expect(forbidden.status).toBe(403);
    expect(headers(forbidden).remaining).toBe('3');
  });
});

describe('unauthenticated callers', () => {
  it('are limited per IP address, with the headers on the 401s', async () => {
    t.clock.advance(3_600_000);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await get());
    expect(answers.slice(0, 5).map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(headers(answers[0]!).remaining).toBe('4');
    expect(answers[5]!.status).toBe(429);
    expect(answers[5]!.headers.get('retry-after')).toBe('1');
    // A valid token is not held back by its address's failures.
    const { token } = await t.token({ org: 'ip-ok' });
    expect((await get(token)).status).toBe(200);
  });

  it('does not limit the health probes', async () => {
    for (let i = 0; i < 8; i++) expect((await t.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('per-org override (enterprise tier)', () => {
  it('raises the limit', async () => {
    const { token } = await t.token({ org: 'bigco' });
    await t.app.db.sql.query(
      `update orgs set rate_limit_per_min = 600, rate_limit_burst = 20, tier = 'enterprise' where slug = 'bigco'`,
    );
    const res = await get(token);
    expect(headers(res)).toMatchObject({ limit: '20', remaining: '19' });
    for (let i = 0; i < 19; i++) expect((await get(token)).status).toBe(200);
    expect((await get(token)).status).toBe(429);
  });

  it('disables the limit: no bucket, no headers', async () => {
    const { token } = await t.token({ org: 'nolimit' });
    await t.app.db.sql.query(
      `update orgs set rate_limit_per_min = 0, tier = 'enterprise' where slug = 'nolimit'`,
    );
    for (let i = 0; i < 12; i++) {
      const res = await get(token);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});

describe('policy changes', () => {
  it('apply at once to a bucket emptied under the old policy', async () => {
    const { token } = await t.token({ org: 'upgrade' });
    for (let i = 0; i < 5; i++) await get(token);
    expect((await get(token)).status).toBe(429);
    await t.app.db.sql.query(
      `update orgs set rate_limit_per_min = 6000, rate_limit_burst = 50 where slug = 'upgrade'`,
    );
    t.clock.advance(1_000); // the old policy's retry time: the refusal known locally lapses
    const res = await get(token);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('50');
  });
});
