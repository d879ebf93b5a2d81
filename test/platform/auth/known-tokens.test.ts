/**
 * Known tokens (src/platform/auth/authenticate.ts, migration 0010): a token this process authenticated is
 * checked on later requests by its org's `auth_epoch` alone. These tests hold the two halves of that
 * argument: every change to what authenticates a caller moves the epoch (and nothing else does), and
 * a known token is never accepted on its memory alone — each change holds on the very next request,
 * on this process and on a second one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { issueToken } from '../../../src/platform/auth/tokens.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { countingAuthenticator } from '../../helpers/sql.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ R3_RATE_LIMIT_PER_MIN: '600', R3_RATE_LIMIT_BURST: '50' });
});
afterAll(() => t.close());

const get = (token: string) => t.request('GET', '/api/v1/tokens', { token });
const bearer = (token: CreatedToken) => `Bearer ${token.token}`;

async function epochOf(org: string): Promise<number> {
  const [row] = await t.app.db.sql.query<{ e: string }>(
    'select auth_epoch::text as e from orgs where slug = $1',
    [org],
  );
  return Number(row?.e);
}

describe('the known-token statement', () => {
  it('serves every later request of a token this process authenticated', async () => {
    const token = await t.token({ org: 'known-a' });
    const { authenticate, statements } = countingAuthenticator(t);
    await authenticate(bearer(token));
    await Promise.all([authenticate(bearer(token)), authenticate(bearer(token))]);
    expect(statements.map((s) => s.name)).toEqual(['authenticate_batch', 'authenticate_known_limited']);
  });

  it('takes rate-limit steps for a limited org and none for an unlimited one', async () => {
    const limited = await t.token({ org: 'known-limited' });
    const free = await t.token({ org: 'known-free' });
    await t.app.db.sql.query(`update orgs set rate_limit_per_min = 0 where slug = 'known-free'`);
    const { authenticate, statements } = countingAuthenticator(t);
    await authenticate(bearer(limited));
    await authenticate(bearer(free));
    const [a, b] = await Promise.all([authenticate(bearer(limited)), authenticate(bearer(free))]);
    expect(statements.map((s) => s.name).sort()).toEqual([
      'authenticate_batch',
      'authenticate_batch',
      'authenticate_known_limited',
      'authenticate_known_unlimited',
    ]);
    expect(a.rate).toMatchObject({ allowed: true, limit: 5, remaining: 3 });
    expect(b.rate).toBeNull();
  });

  it('reads a token anew once its org changed, and keeps it known afterwards', async () => {
    const token = await t.token({ org: 'known-b' });
    const { authenticate, statements } = countingAuthenticator(t);
    await authenticate(bearer(token));
    await t.app.db.sql.query(`update orgs set name = 'renamed' where slug = 'known-b'`);
    await authenticate(bearer(token));
    await authenticate(bearer(token));
    expect(statements.map((s) => s.name)).toEqual([
      'authenticate_batch',
      'authenticate_known_limited',
      'authenticate_batch',
      'authenticate_known_limited',
    ]);
  });

  it('forgets the oldest token beyond its bound', async () => {
    const tokens = await Promise.all([1, 2, 3].map(() => t.token({ org: 'known-c' })));
    const { authenticate, statements } = countingAuthenticator(t, undefined, { knownTokens: 2 });
    for (const token of tokens) await authenticate(bearer(token));
    statements.length = 0;
    await authenticate(bearer(tokens[2] as CreatedToken));
    await authenticate(bearer(tokens[0] as CreatedToken));
    expect(statements.map((s) => s.name)).toEqual(['authenticate_known_limited', 'authenticate_batch']);
  });

  it('checks a known token against the secret presented, the batch instant and the database', async () => {
    const token = await t.token({ org: 'known-d', expiresAt: new Date(t.clock.now() + 60_000) });
    const { authenticate } = countingAuthenticator(t);
    await authenticate(bearer(token));
    const status = (header: string) =>
      authenticate(header).then(
        () => 200,
        (error: { code: string; details: { reason: string } }) => `${error.code} ${error.details.reason}`,
      );
    expect(await status(`Bearer ${issueToken('test', token.id).token}`)).toBe('UNAUTHORIZED unknown');
    expect(await status(bearer(token))).toBe(200);
    t.clock.advance(60_000);
    expect(await status(bearer(token))).toBe('UNAUTHORIZED expired');
  });
});

describe('what moves an org’s auth epoch', () => {
  // Each row: a change, and whether it must move the epoch of the token's org.
  const changes: Array<[string, string, boolean]> = [
    ['revoking a token', 'update api_tokens set revoked_at = now() where id = $1', true],
    [
      'changing its expiry',
      `update api_tokens set expires_at = now() + interval '1 day' where id = $1`,
      true,
    ],
    ['changing its scopes', `update api_tokens set scopes = '{read:all}' where id = $1`, true],
    ['deleting it', 'delete from api_tokens where id = $1', true],
    [
      "changing its user's role",
      `update users set role = 'pm' where pk = (select user_pk from api_tokens where id = $1)`,
      true,
    ],
    [
      'deleting its user',
      'delete from users where pk = (select user_pk from api_tokens where id = $1)',
      true,
    ],
    [
      "changing its org's limits",
      'update orgs set rate_limit_burst = 7 where id = (select org_id from api_tokens where id = $1)',
      true,
    ],
    ['noting its last use', 'update api_tokens set last_used_at = now() where id = $1', false],
    ['an update that changes nothing', 'update api_tokens set revoked_at = revoked_at where id = $1', false],
  ];
  let n = 0;
  for (const [label, statement, moves] of changes) {
    it(`${label}: ${moves ? 'moves' : 'does not move'} it`, async () => {
      const org = `epoch-${++n}`;
      const token = await t.token({ org });
      const before = await epochOf(org);
      await t.app.db.sql.query(statement, [token.id]);
      const after = await epochOf(org);
      if (moves) expect(after).toBeGreaterThan(before);
      else expect(after).toBe(before);
    });
  }

  it('creating a token through the API does not move it', async () => {
    await t.token({ org: 'epoch-create' });
    const before = await epochOf('epoch-create');
    await t.token({ org: 'epoch-create' });
    expect(await epochOf('epoch-create')).toBe(before);
  });

  it('moving a token to another org moves both orgs’ epochs', async () => {
    const token = await t.token({ org: 'epoch-from' });
    await t.token({ org: 'epoch-to' });
    const [from, to] = [await epochOf('epoch-from'), await epochOf('epoch-to')];
    await t.app.db.sql.query(
      `update api_tokens set org_id = (select id from orgs where slug = 'epoch-to') where id = $1`,
      [token.id],
    );
    expect(await epochOf('epoch-from')).toBeGreaterThan(from);
    expect(await epochOf('epoch-to')).toBeGreaterThan(to);
  });
});

describe('a known token through HTTP', () => {
  it('is refused on the next request once deleted or its user deleted', async () => {
    const gone = await t.token({ org: 'http-a' });
    const orphan = await t.token({ org: 'http-a', user: 'leaving' });
    expect((await get(gone.token)).status).toBe(200);
    expect((await get(orphan.token)).status).toBe(200);
    await t.app.db.sql.query('delete from api_tokens where id = $1', [gone.id]);
    await t.app.db.sql.query(`delete from users where id = 'leaving'`);
    for (const token of [gone, orphan]) {
      const res = await get(token.token);
      expect(res.status).toBe(401);
      expect(res.body.error.details.reason).toBe('unknown');
    }
  });

  it('is refused by every request that starts after its revocation returned', async () => {
    const victim = await t.token({ org: 'http-b' });
    expect((await get(victim.token)).status).toBe(200);
    let revoked = false;
    const afterRevocation: number[] = [];
    const load = Array.from({ length: 8 }, async () => {
      for (let i = 0; i < 40; i++) {
        const startedAfter = revoked;
        const res = await get(victim.token);
        if (startedAfter) afterRevocation.push(res.status);
      }
    });
    const revoke = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const res = await t.request('DELETE', `/api/v1/tokens/${victim.id}`, { token: victim.token });
      expect(res.status).toBe(200);
      revoked = true;
    })();
    await Promise.all([...load, revoke]);
    // Refused, as revoked (or, once the refusals drained the address's bucket, as rate limited).
    expect(afterRevocation).toContain(401);
    expect(afterRevocation.filter((status) => status !== 401 && status !== 429)).toEqual([]);
  });

  it('takes rate-limit steps once its unlimited org is limited again', async () => {
    const token = await t.token({ org: 'http-c' });
    await t.app.db.sql.query(`update orgs set rate_limit_per_min = 0 where slug = 'http-c'`);
    expect((await get(token.token)).headers.get('x-ratelimit-limit')).toBeNull();
    expect((await get(token.token)).headers.get('x-ratelimit-limit')).toBeNull();
    await t.app.db.sql.query(
      `update orgs set rate_limit_per_min = 60, rate_limit_burst = 2 where slug = 'http-c'`,
    );
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(token.token)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('TRUNCATE', () => {
  it('moves every org’s epoch', async () => {
    await t.token({ org: 'truncate-a' });
    const before = await epochOf('truncate-a');
    await t.app.db.sql.query('truncate api_tokens cascade');
    expect(await epochOf('truncate-a')).toBeGreaterThan(before);
  });
});
