/**
 * The org's people through HTTP (docs/api.md#users-and-people): `GET /users` (paged by id),
 * `GET /users/:id`, and `GET /people?actor=…` (who a `token:<id>` or `user:<id>` attribution is) —
 * each with its errors: another org's user (404) and token (unknown, never its owner), a token
 * without `read:all` (403), bad input (400 naming the field).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let owner: CreatedToken;
let reviewer: CreatedToken;
let outsider: CreatedToken;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.token({ org: 'people', user: 'ann', role: 'owner' });
  reviewer = await t.token({ org: 'people', user: 'bob', role: 'client_reviewer' });
  await t.token({ org: 'people', user: 'cid', role: 'specialist' });
  outsider = await t.token({ org: 'people-elsewhere', user: 'eve', role: 'owner' });
});
afterAll(() => t.close());

describe('GET /users', () => {
  it("lists the org's users by id, page by page, and no other org's", async () => {
    const first = await t.request('GET', '/api/v1/users?limit=2', { token: reviewer.token });
    expect(first.status).toBe(200);
    expect(first.body.users).toEqual([
      { id: 'ann', role: 'owner', createdAt: expect.any(String) },
      { id: 'bob', role: 'client_reviewer', createdAt: expect.any(String) },
    ]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await t.request('GET', `/api/v1/users?limit=2&cursor=${first.body.nextCursor}`, {
      token: reviewer.token,
    });
    expect(second.body).toEqual({
      users: [{ id: 'cid', role: 'specialist', createdAt: expect.any(String) }],
      nextCursor: null,
    });
  });

  it('answers one user; an unknown id and another org’s user are 404', async () => {
    const bob = await t.request('GET', '/api/v1/users/bob', { token: owner.token });
    expect(bob.status).toBe(200);
    expect(bob.body).toMatchObject({ id: 'bob', role: 'client_reviewer' });
    for (const id of ['nobody', 'eve']) {
      const missing = await t.request('GET', `/api/v1/users/${id}`, { token: owner.token });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('needs read:all (403, naming the scope)', async () => {
    const narrow = await t.token({ org: 'people', user: 'dan', role: 'pm', scopes: ['run:invoke'] });
    for (const path of ['/api/v1/users', '/api/v1/users/ann', '/api/v1/people?actor=token:x']) {
      const refused = await t.request('GET', path, { token: narrow.token });
      expect(refused.status, path).toBe(403);
      expect(refused.body.error.details.requiredScope).toEqual(['read:all']);
    }
  });

  it('refuses a bad limit and a cursor it did not give (400 naming the field)', async () => {
    const limit = await t.request('GET', '/api/v1/users?limit=0', { token: owner.token });
    expect(limit.status).toBe(400);
    expect(limit.body.error.details.issues[0].field).toBe('query.limit');
    const cursor = await t.request('GET', '/api/v1/users?cursor=nonsense', { token: owner.token });
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.details.issues[0].field).toBe('query.cursor');
  });
});

describe('GET /people', () => {
  it("names a token's user and the token; a session user; r3's own actors", async () => {
    const actors = [`token:${reviewer.id}`, 'user:cid', 'mcp', `token:${reviewer.id}`, 'worker'];
    const answer = await t.request(
      'GET',
      `/api/v1/people?${actors.map((a) => `actor=${encodeURIComponent(a)}`).join('&')}`,
      { token: owner.token },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.people).toEqual([
      {
        actor: `token:${reviewer.id}`,
        kind: 'token',
        userId: 'bob',
        tokenName: expect.stringMatching(/^test token/),
      },
      { actor: 'user:cid', kind: 'user', userId: 'cid', tokenName: null },
      { actor: 'mcp', kind: 'system', userId: null, tokenName: null },
      { actor: 'worker', kind: 'system', userId: null, tokenName: null },
    ]);
  });

  it("says nothing of another org's token or user, nor of unknown ones", async () => {
    const answer = await t.request(
      'GET',
      `/api/v1/people?actor=token:${outsider.id}&actor=user:eve&actor=token:aaaaaaaaaaaaaaaa`,
      { token: owner.token },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.people).toEqual([
      { actor: `token:${outsider.id}`, kind: 'token', userId: null, tokenName: null },
      { actor: 'user:eve', kind: 'user', userId: null, tokenName: null },
      { actor: 'token:aaaaaaaaaaaaaaaa', kind: 'token', userId: null, tokenName: null },
    ]);
  });

  it('needs at least one actor and at most 100 (400 naming query.actor)', async () => {
    const none = await t.request('GET', '/api/v1/people', { token: owner.token });
    expect(none.status).toBe(400);
    expect(none.body.error.details.issues[0].field).toBe('query.actor');
    const many = Array.from({ length: 101 }, (_, i) => `actor=user:u${i}`).join('&');
    const tooMany = await t.request('GET', `/api/v1/people?${many}`, { token: owner.token });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details.issues[0].field).toBe('query.actor');
  });
});
