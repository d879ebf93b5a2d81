/**
 * `POST /api/v1/sessions` is charged to the caller's address like any unauthenticated request
 * (docs/api.md "Rate limits"): its answers carry the rate-limit headers, and past the bucket a
 * sign-in — with a good token too — is 429 with Retry-After, starting no session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ R3_RATE_LIMIT_PER_MIN: '1', R3_RATE_LIMIT_BURST: '3' });
});
afterAll(async () => {
  await t.close();
});

const signIn = (body: { link?: string; token?: string }) =>
  t.request('POST', '/api/v1/sessions', { body, headers: { origin: t.url } });

const sessions = async () =>
  (await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from web_sessions')).n;

describe('sign-in and the rate limit', () => {
  it('charges every attempt to the address, and refuses past the bucket with 429', async () => {
    const good = await t.token({ user: 'tom' });
    const first = await signIn({ token: good.token });
    expect(first.status).toBe(201);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    for (const remaining of ['1', '0']) {
      const guess = await signIn({ token: `${good.token.slice(0, -4)}AAAA` });
      expect(guess.status).toBe(401);
      expect(guess.headers.get('x-ratelimit-remaining')).toBe(remaining);
    }
    const refused = await signIn({ token: good.token });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect(await sessions()).toBe(1);
    // The bucket refills: a minute later one attempt fits again.
    t.clock.advance(60_000);
    expect((await signIn({ token: good.token })).status).toBe(201);
  });
});
