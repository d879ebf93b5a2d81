/**
 * Authentication and rate limiting of concurrent requests, which share one statement per batch
 * (`r3_authenticate_batch`, `r3_rate_take_batch`): a batch must give every request exactly the answer
 * it would have had alone, in arrival order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/platform/auth/tokens.js';
import { RATE_TAKE_BATCH } from '../../../src/platform/ratelimit/gcra-sql.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { countingAuthenticator } from '../../helpers/sql.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ R3_RATE_LIMIT_PER_MIN: '60', R3_RATE_LIMIT_BURST: '5' });
});
afterAll(() => t.close());

const get = (token?: string) => t.request('GET', '/api/v1/tokens', token ? { token } : {});

describe('the batched rate-limit step (RATE_TAKE_BATCH)', () => {
  type Policy = { interval: number; burst: number };

  /** The reference: one r3_rate_take (migration 0001) per key, in order. */
  async function oneByOne(keys: string[], policy: Policy, now: number) {
    const out = [];
    for (const key of keys) {
      out.push(
        await t.app.db.sql.one<{ allowed: boolean; tat_ms: number }>(
          'select allowed, tat_ms from r3_rate_take($1, $2, $3, $4)',
          [key, now, policy.interval, policy.burst],
        ),
      );
    }
    return out;
  }

  function batched(keys: string[], policy: Policy, now: number) {
    return t.app.db.sql.query<{ ord: number; allowed: boolean; tat_ms: number }>(RATE_TAKE_BATCH, [
      keys,
      now,
      policy.interval,
      policy.burst,
    ]);
  }

  it('agrees with one step at a time on random batches, state and policy changes carried between them', async () => {
    // Deterministic pseudo-random sequence (no flaky seeds).
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const policies: Policy[] = [
      { interval: 1000, burst: 3 },
      { interval: 250, burst: 7 },
      { interval: 60_000 / 7, burst: 2 },
    ];
    let now = 1_790_000_000_000;
    for (let round = 0; round < 60; round++) {
      now += Math.floor(random() * 3000);
      const policy = policies[Math.floor(random() * policies.length)] as Policy;
      const keys = Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => `k${Math.floor(random() * 4)}`,
      );
      const expected = await oneByOne(
        keys.map((k) => `ref:${k}`),
        policy,
        now,
      );
      const got = await batched(
        keys.map((k) => `bat:${k}`),
        policy,
        now,
      );
      expect(got.map((r) => r.ord)).toEqual(keys.map((_, i) => i + 1));
      expect(got.map((r) => [r.allowed, Math.round(r.tat_ms * 1000)])).toEqual(
        expected.map((r) => [r.allowed, Math.round(r.tat_ms * 1000)]),
      );
    }
  });

  it('answers an empty batch with no rows', async () => {
    expect(await batched([], { interval: 1000, burst: 1 }, 1)).toEqual([]);
  });
});

describe('concurrent requests of one token', () => {
  it('admit exactly the burst, each with its own remaining count', async () => {
    const { token } = await t.token({ org: 'concurrent' });
    const answers = await Promise.all(Array.from({ length: 9 }, () => get(token)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429]);
    const remaining = answers
      .filter((r) => r.status === 200)
      .map((r) => r.headers.get('x-ratelimit-remaining'))
      .sort();
    expect(remaining).toEqual(['0', '1', '2', '3', '4']);
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    }
  });

  it('are answered one by one in a mixed batch: valid, revoked, wrong secret, unknown, other token', async () => {
    const good = await t.token({ org: 'mixed' });
    const other = await t.token({ org: 'mixed-other' });
    const revoked = await t.token({ org: 'mixed' });
    await t.request('DELETE', `/api/v1/tokens/${revoked.id}`, { token: revoked.token });
    const forged = issueToken('test', good.id).token;
    const unknown = issueToken('test').token;
    const tokens = [good.token, forged, revoked.token, unknown, other.token, good.token];
    const answers = await Promise.all(tokens.map((token) => get(token)));
    expect(answers.map((r) => r.status)).toEqual([200, 401, 401, 401, 200, 200]);
    expect(answers.map((r) => r.body.error?.details?.reason ?? null)).toEqual([
      null,
      'unknown',
      'revoked',
      'unknown',
      null,
      null,
    ]);
    // The forged secret did not spend the real token's bucket: 2 of 5 taken.
    const next = await get(good.token);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('2');
    // Each principal saw its own org's tokens.
    expect(answers[4]?.body.tokens.map((tk: { id: string }) => tk.id)).toEqual([other.id]);
  });
});

describe('the authenticator', () => {
  it('reads the tokens of concurrent requests in one statement, and a later request in its own', async () => {
    const a = await t.token({ org: 'shared-a' });
    const b = await t.token({ org: 'shared-b' });
    const counting = countingAuthenticator(t);
    const { authenticate } = counting;
    const statements = () => counting.statements.map((s) => (s.values as [string[]])[0].length);
    const principals = await Promise.all(
      [a, b, a].map(async ({ token }) => (await authenticate(`Bearer ${token}`)).principal.orgSlug),
    );
    expect(principals).toEqual(['shared-a', 'shared-b', 'shared-a']);
    expect(statements()).toEqual([3]);
    await authenticate(`Bearer ${b.token}`);
    expect(statements()).toEqual([3, 1]);
  });
});
