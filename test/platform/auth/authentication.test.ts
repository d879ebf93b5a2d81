/**
 * Bearer authentication through the socket: every 401 case of docs/api.md "Conventions", the scope matrix of
 * docs/api.md "Scopes" on one route per access kind, token revocation (`DELETE /tokens/:id`) and lastUsedAt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { access } from '../../../src/platform/auth/guard.js';
import type { Role, Scope } from '../../../src/platform/auth/principal.js';
import { issueToken } from '../../../src/platform/auth/tokens.js';
import { ok } from '../../../src/platform/http/reply.js';
import { defineRoute } from '../../../src/platform/http/server.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  const probes = [
    ['GET', '/api/v1/_test/read', access.read],
    ['GET', '/api/v1/_test/skills', access.readSkills],
    ['POST', '/api/v1/_test/write', access.write],
    ['POST', '/api/v1/_test/invoke', access.invoke],
    ['POST', '/api/v1/_test/approve', access.approve],
  ] as const;
  for (const [method, path, rule] of probes) {
    t.app.http.add(
      defineRoute({ method, path, access: rule, handler: ({ principal }) => ok({ actor: principal.actor }) }),
    );
  }
});
afterAll(() => t.close());

const call = (token: string | undefined, path = '/api/v1/tokens') =>
  t.request('GET', path, token ? { token } : {});

describe('401 UNAUTHORIZED', () => {
  it.each([
    ['missing header', undefined, 'missing'],
    ['not Bearer', 'Basic dXNlcjpwYXNz', 'not_bearer'],
    ['malformed', 'Bearer not-a-token', 'malformed'],
    ['bad checksum', `Bearer ${issueToken('test').token.slice(0, -2)}xx`, 'malformed'],
    ['unknown id', `Bearer ${issueToken('test').token}`, 'unknown'],
    ['other environment', `Bearer ${issueToken('live').token}`, 'wrong_environment'],
  ])('%s', async (_name, header, reason) => {
    const res = await t.request(
      'GET',
      '/api/v1/tokens',
      header ? { headers: { authorization: header } } : {},
    );
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', details: { reason } });
  });

  it('says which environment a token of the other one belongs to', async () => {
    const res = await call(issueToken('live').token);
    expect(res.body.error.message).toMatch(/svc_live_.*R3_ENV=test/);
  });

  it('wrong secret for a real token id', async () => {
    const real = await t.token();
    const forged = issueToken('test', real.id).token;
    expect(forged).not.toBe(real.token);
    const res = await call(forged);
    expect(res.status).toBe(401);
    expect(res.body.error.details.reason).toBe('unknown');
    expect((await call(real.token)).status).toBe(200);
  });

  it("a known token's text with its checksum broken is malformed, not the token", async () => {
    const real = await t.token();
    expect((await call(real.token)).status).toBe(200);
    const last = real.token.endsWith('A') ? 'B' : 'A';
    const res = await call(real.token.slice(0, -1) + last);
    expect(res.status).toBe(401);
    expect(res.body.error.details.reason).toBe('malformed');
  });

  it('revoked token', async () => {
    const created = await t.token();
    expect((await call(created.token)).status).toBe(200);
    expect((await t.request('DELETE', `/api/v1/tokens/${created.id}`, { token: created.token })).status).toBe(
      200,
    );
    const res = await call(created.token);
    expect(res.status).toBe(401);
    expect(res.body.error.details.reason).toBe('revoked');
  });

  it('expired token, as soon as the clock passes expiresAt', async () => {
    const expiresAt = new Date(t.clock.now() + 60_000);
    const created = await t.token({ expiresAt });
    expect((await call(created.token)).status).toBe(200);
    t.clock.advance(60_000);
    const res = await call(created.token);
    expect(res.status).toBe(401);
    expect(res.body.error.details.reason).toBe('expired');
  });
});

describe('scope matrix (docs/api.md "Scopes")', () => {
  const routes = {
    read: ['GET', '/api/v1/_test/read'],
    skills: ['GET', '/api/v1/_test/skills'],
    write: ['POST', '/api/v1/_test/write'],
    invoke: ['POST', '/api/v1/_test/invoke'],
    approve: ['POST', '/api/v1/_test/approve'],
  } as const;
  type Probe = keyof typeof routes;
  const cases: Array<[Scope[], Role, Probe[]]> = [
    [['read:all'], 'owner', ['read', 'skills']],
    [['read:skills'], 'owner', ['skills']],
    [['write:resources'], 'owner', ['write']],
    [['run:invoke'], 'owner', ['invoke']],
    [['run:approve'], 'owner', ['approve']],
    [['run:approve'], 'pm', ['approve']],
    [['run:approve'], 'client_reviewer', ['approve']],
    [
      ['run:approve', 'read:all', 'write:resources', 'run:invoke'],
      'specialist',
      ['read', 'skills', 'write', 'invoke'],
    ],
    [['read:all', 'run:invoke'], 'owner', ['read', 'skills', 'invoke']],
  ];
  it.each(cases)('%j as %s may call exactly %j', async (scopes, role, allowed) => {
    const { token } = await t.token({ scopes, role });
    for (const [probe, [method, path]] of Object.entries(routes)) {
      const res = await t.request(method, path, { token });
      const expected = allowed.includes(probe as Probe) ? 200 : 403;
      expect({ probe, status: res.status }).toEqual({ probe, status: expected });
      if (expected === 403) expect(res.body.error.code).toBe('FORBIDDEN');
    }
  });
});

describe('DELETE /tokens/:id', () => {
  it('lets a token revoke itself, records the audit row with its id, and the token stops working at once', async () => {
    const created = await t.token({ role: 'specialist' });
    const res = await t.request('DELETE', `/api/v1/tokens/${created.id}`, { token: created.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, revokedAt: expect.any(String), role: 'specialist' });
    expect(res.body.secret).toBeUndefined();
    expect((await call(created.token)).status).toBe(401);
    const audit = await t.app.db.sql.query<{ api_token_id: string; action: string; actor: string }>(
      `select api_token_id, action, actor from audit_log where target_id = $1 and action = 'token.revoked'`,
      [created.id],
    );
    expect(audit).toEqual([
      { api_token_id: created.id, action: 'token.revoked', actor: `token:${created.id}` },
    ]);
  });

  it('lets an owner revoke any token of the org', async () => {
    const owner = await t.token({ role: 'owner' });
    const other = await t.token({ role: 'pm' });
    const res = await t.request('DELETE', `/api/v1/tokens/${other.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect((await call(other.token)).status).toBe(401);
    expect((await call(owner.token)).status).toBe(200);
  });

  it('refuses a non-owner revoking another token of the org with 403, changing nothing', async () => {
    const pm = await t.token({ role: 'pm', scopes: ['read:all', 'run:approve'] });
    const other = await t.token({ role: 'specialist' });
    const res = await t.request('DELETE', `/api/v1/tokens/${other.id}`, { token: pm.token });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect((await call(other.token)).status).toBe(200);
  });

  it("answers 404 for another org's token (never 403) and for unknown ids", async () => {
    const owner = await t.token({ role: 'owner', org: 'acme' });
    const foreign = await t.token({ role: 'owner', org: 'globex' });
    for (const id of [foreign.id, 'aaaaaaaaaaaaaaaa', 'not-an-id']) {
      const res = await t.request('DELETE', `/api/v1/tokens/${id}`, { token: owner.token });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await call(foreign.token)).status).toBe(200);
  });

  it('is idempotent for an owner revoking an already revoked token', async () => {
    const owner = await t.token({ role: 'owner' });
    const other = await t.token();
    const first = await t.request('DELETE', `/api/v1/tokens/${other.id}`, { token: owner.token });
    const second = await t.request('DELETE', `/api/v1/tokens/${other.id}`, { token: owner.token });
    expect(second.status).toBe(200);
    expect(second.body.revokedAt).toBe(first.body.revokedAt);
  });
});

describe('GET /tokens and lastUsedAt', () => {
  it('lists the org for owners and only the own user otherwise, never secrets', async () => {
    const owner = await t.token({ role: 'owner', org: 'initech', user: 'boss' });
    const pm = await t.token({ role: 'pm', org: 'initech', user: 'peter' });
    const mine = await t.request('GET', '/api/v1/tokens', { token: pm.token });
    expect(mine.body.tokens.map((x: { id: string }) => x.id)).toEqual([pm.id]);
    const all = await t.request('GET', '/api/v1/tokens', { token: owner.token });
    expect(all.body.tokens.map((x: { id: string }) => x.id).sort()).toEqual([owner.id, pm.id].sort());
    expect(all.text).not.toContain(owner.token.slice(-46));
    expect(all.text).not.toContain('secret');
  });

  it('records lastUsedAt without a write per request', async () => {
    const created = await t.token({ org: 'umbrella' });
    const before = await t.app.db.sql.one<{ last_used_at: Date | null }>(
      'select last_used_at from api_tokens where id = $1',
      [created.id],
    );
    expect(before.last_used_at).toBeNull();
    await call(created.token);
    await call(created.token);
    const unflushed = await t.app.db.sql.one<{ last_used_at: Date | null }>(
      'select last_used_at from api_tokens where id = $1',
      [created.id],
    );
    expect(unflushed.last_used_at).toBeNull();
    await t.app.lastUsed.flush();
    const after = await t.app.db.sql.one<{ last_used_at: Date }>(
      'select last_used_at from api_tokens where id = $1',
      [created.id],
    );
    expect(after.last_used_at.getTime()).toBe(Math.floor(t.clock.now()));
  });
});
