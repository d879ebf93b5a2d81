/**
 * Authentication reads committed state on every request: a change made by anyone — here an
 * operator's SQL, not the API — holds on the very next request, and a caller who only knows a
 * token id cannot drain that token's rate-limit bucket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { access } from '../../../src/platform/auth/guard.js';
import { issueToken } from '../../../src/platform/auth/tokens.js';
import { ok } from '../../../src/platform/http/reply.js';
import { defineRoute } from '../../../src/platform/http/server.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ R3_RATE_LIMIT_PER_MIN: '60', R3_RATE_LIMIT_BURST: '3' });
  t.app.http.add(
    defineRoute({
      method: 'POST',
      path: '/api/v1/_test/approve',
      access: access.approve,
      handler: () => ok({}),
    }),
  );
});
afterAll(() => t.close());

const get = (token: string) => t.request('GET', '/api/v1/tokens', { token });

describe('changes made outside the API hold on the next request', () => {
  it('revocation', async () => {
    const { id, token } = await t.token({ org: 'rev' });
    expect((await get(token)).status).toBe(200);
    await t.app.db.sql.query('update api_tokens set revoked_at = now() where id = $1', [id]);
    const res = await get(token);
    expect(res.status).toBe(401);
    expect(res.body.error.details.reason).toBe('revoked');
  });

  it("a role change of the token's user", async () => {
    const { token } = await t.token({
      org: 'role',
      role: 'pm',
      user: 'changing',
      scopes: ['read:all', 'run:approve'],
    });
    expect((await t.request('POST', '/api/v1/_test/approve', { token })).status).toBe(200);
    await t.app.db.sql.query(`update users set role = 'specialist' where id = 'changing'`);
    expect((await t.request('POST', '/api/v1/_test/approve', { token })).status).toBe(403);
  });

  it('a shortened expiry', async () => {
    const { id, token } = await t.token({ org: 'exp' });
    expect((await get(token)).status).toBe(200);
    await t.app.db.sql.query('update api_tokens set expires_at = $2 where id = $1', [
      id,
      new Date(t.clock.now() - 1000),
    ]);
    expect((await get(token)).body.error.details.reason).toBe('expired');
  });

  it('an org limit change', async () => {
    const { token } = await t.token({ org: 'lim' });
    expect((await get(token)).headers.get('x-ratelimit-limit')).toBe('3');
    await t.app.db.sql.query(
      `update orgs set rate_limit_per_min = 600, rate_limit_burst = 9 where slug = 'lim'`,
    );
    expect((await get(token)).headers.get('x-ratelimit-limit')).toBe('9');
  });
});

describe('a guessed secret', () => {
  it("does not charge the real token's bucket", async () => {
    const real = await t.token({ org: 'guess' });
    const forged = issueToken('test', real.id).token;
    t.clock.advance(60_000); // the address's bucket refills after the 401s above
    for (let i = 0; i < 3; i++) expect((await get(forged)).status).toBe(401);
    const res = await get(real.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('2');
  });
});

describe('a known token id with a wrong secret', () => {
  it('takes the path of an unknown id: the statement reads no row back for it, in a mixed batch too', async () => {
    const real = await t.token({ org: 'timing' });
    // Well-formed tokens (their checksums hold): one with the real id and another secret, one unknown.
    const forged = issueToken('test', real.id).token;
    const unknown = issueToken('test').token;
    // Failed authentications are charged to the address: start with its bucket full.
    t.clock.set(t.clock.now() + 3_600_000);
    const db = t.app.db.reads;
    const original = db.prepared.bind(db);
    const answered: Array<Record<string, unknown>> = [];
    db.prepared = (async (name: string, text: string, values: unknown[]) => {
      const rows = await original(name, text, values);
      if (name.startsWith('authenticate') && !name.startsWith('authenticate_known')) {
        answered.push(...(rows as Array<Record<string, unknown>>));
      }
      return rows;
    }) as typeof db.prepared;
    try {
      // Sent together, so they share one statement.
      const [a, b, c] = await Promise.all([get(forged), get(real.token), get(unknown)]);
      expect([a.status, b.status, c.status]).toEqual([401, 200, 401]);
      expect(a.body.error.details.reason).toBe('unknown');
    } finally {
      db.prepared = original;
    }
    const forgedRows = answered.filter((row) => row.token_id === real.id && row.found === false);
    expect(forgedRows.length).toBeGreaterThan(0);
    for (const row of forgedRows) expect(row.secret_hash ?? null).toBeNull();
  });
});
