/**
 * `POST /api/v1/tokens` (the web UI's "Create token"): from a browser session only, for the caller or
 * (owners) another user of the org, never with a scope the issuer lacks; the plaintext once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A session's cookie and the headers its writes need. */
async function session(userId: string, role: 'owner' | 'pm' | 'specialist') {
  const link = await t.app.sessions.createLoginLink({ org: 'acme', userId, role });
  const code = new URL(link.url).hash.replace('#link=', '');
  const res = await t.request('POST', '/api/v1/sessions', {
    body: { link: code },
    headers: { origin: t.url },
  });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
  return { cookie, origin: t.url, 'x-csrf-token': res.body.session.csrfToken as string };
}

describe('issuing tokens from the web UI', () => {
  it('issues a working token for the caller, shown once', async () => {
    const headers = await session('ivy', 'pm');
    const res = await t.request('POST', '/api/v1/tokens', {
      headers,
      body: {
        name: 'ci bot',
        scope: ['read:all'],
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ userId: 'ivy', role: 'pm', scope: 'read:all', org: 'acme' });
    const me = await t.request('GET', '/api/v1/session', { token: res.body.token });
    expect(me.body.session).toMatchObject({ userId: 'ivy', via: 'bearer', scopes: ['read:all'] });
    const listed = await t.request('GET', '/api/v1/tokens', { headers: { cookie: headers.cookie } });
    const row = listed.body.tokens.find((x: { id: string }) => x.id === res.body.id);
    expect(row).toMatchObject({ name: 'ci bot', scope: 'read:all' });
    expect(JSON.stringify(listed.body)).not.toContain(res.body.token);
  });

  it('refuses a Bearer caller: tokens do not issue tokens', async () => {
    const owner = await t.token({ scopes: ALL_SCOPES });
    const res = await t.request('POST', '/api/v1/tokens', { token: owner.token, body: { name: 'x' } });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe('session_required');
  });

  it('refuses a scope the issuer lacks, and another user for a non-owner', async () => {
    const headers = await session('spec', 'specialist');
    const wider = await t.request('POST', '/api/v1/tokens', {
      headers,
      body: { name: 'x', scope: ['read:all', 'run:approve'] },
    });
    expect(wider.status).toBe(403);
    expect(wider.body.error.details.scopes).toEqual(['run:approve']);
    const forOther = await t.request('POST', '/api/v1/tokens', {
      headers,
      body: { name: 'x', userId: 'ivy' },
    });
    expect(forOther.status).toBe(403);
  });

  it('lets an owner issue for an existing user of the org (keeping their role), and no one else', async () => {
    const headers = await session('olga', 'owner');
    const res = await t.request('POST', '/api/v1/tokens', {
      headers,
      body: { name: 'for ivy', userId: 'ivy' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ userId: 'ivy', role: 'pm', scope: 'read:all,run:invoke' });
    const ghost = await t.request('POST', '/api/v1/tokens', {
      headers,
      body: { name: 'x', userId: 'ghost' },
    });
    expect(ghost.status).toBe(400);
    const past = await t.request('POST', '/api/v1/tokens', {
      headers,
      body: { name: 'x', expiresAt: '2001-01-01T00:00:00Z' },
    });
    expect(past.status).toBe(400);
  });

  it('needs the CSRF token like any session write', async () => {
    const { cookie } = await session('nocsrf', 'owner');
    const res = await t.request('POST', '/api/v1/tokens', {
      headers: { cookie, origin: t.url },
      body: { name: 'x' },
    });
    expect(res.status).toBe(403);
  });
});

/**
 * Issue 36 #3, as the attacker did it: a leaked Bearer token, pasted into `POST /sessions` by a script
 * that forges the Origin header, starts a session; that session is the leaked token's and no more.
 */
describe('a session started from a pasted token', () => {
  async function pasted(token: string) {
    const res = await t.request('POST', '/api/v1/sessions', { body: { token }, headers: { origin: t.url } });
    expect(res.status).toBe(201);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
    return { cookie, origin: t.url, 'x-csrf-token': res.body.session.csrfToken as string };
  }
  const mint = (headers: Record<string, string>, body: Record<string, unknown>) =>
    t.request('POST', '/api/v1/tokens', { headers, body });
  const works = async (token: string) => (await t.request('GET', '/api/v1/session', { token })).status;

  it('mints no token that outlives the leaked one: an omitted expiry is the source’s, a later one 403', async () => {
    const expiresAt = new Date(t.clock.now() + 3_600_000);
    const leaked = await t.token({ user: 'leaky', role: 'owner', scopes: ALL_SCOPES, expiresAt });
    const headers = await pasted(leaked.token);
    const forever = await mint(headers, { name: 'forever', scope: ['read:all'] });
    expect(forever.status).toBe(201);
    expect(forever.body.expiresAt).toBe(expiresAt.toISOString());
    const explicitNull = await mint(headers, { name: 'null', scope: ['read:all'], expiresAt: null });
    expect(explicitNull.body.expiresAt).toBe(expiresAt.toISOString());
    const later = await mint(headers, {
      name: 'later',
      scope: ['read:all'],
      expiresAt: new Date(expiresAt.getTime() + 1_000).toISOString(),
    });
    expect(later.status).toBe(403);
    expect(later.body.error.details).toMatchObject({
      reason: 'outlives_source',
      expiresAt: expiresAt.toISOString(),
    });
    const earlier = await mint(headers, {
      name: 'earlier',
      scope: ['read:all'],
      expiresAt: new Date(expiresAt.getTime() - 60_000).toISOString(),
    });
    expect(earlier.status).toBe(201);
    // The minted token ends when the leaked one would have, and so does the session.
    t.clock.advance(3_600_001);
    expect(await works(forever.body.token)).toBe(401);
    const session = await t.request('GET', '/api/v1/session', { headers: { cookie: headers.cookie } });
    expect(session.status).toBe(401);
    expect(session.body.error.details.reason).toBe('session_token_expired');
  });

  it('mints no scope beyond the leaked token’s, even for an owner', async () => {
    const leaked = await t.token({ user: 'leaky2', role: 'owner', scopes: ['read:all'] });
    const headers = await pasted(leaked.token);
    const wider = await mint(headers, { name: 'wider', scope: ['read:all', 'write:resources'] });
    expect(wider.status).toBe(403);
    expect(wider.body.error.details.scopes).toEqual(['write:resources']);
  });

  it('cannot mint for another user, even an owner’s token: that takes an owner’s own sign-in', async () => {
    await session('victim', 'pm');
    const leaked = await t.token({ user: 'boss', role: 'owner', scopes: ALL_SCOPES });
    const headers = await pasted(leaked.token);
    const forOther = await mint(headers, { name: 'for victim', userId: 'victim' });
    expect(forOther.status).toBe(403);
    expect(forOther.body.error.details.reason).toBe('owner_sign_in_required');
    // The same owner signed in by a link may.
    const own = await session('boss', 'owner');
    expect((await mint(own, { name: 'for victim', userId: 'victim' })).status).toBe(201);
  });

  it('every token minted through it, however deep, ends when the leaked token is revoked', async () => {
    const leaked = await t.token({ user: 'leaky3', role: 'pm', scopes: ALL_SCOPES });
    const first = await mint(await pasted(leaked.token), { name: 'child', scope: ALL_SCOPES });
    expect(first.status).toBe(201);
    const second = await mint(await pasted(first.body.token), { name: 'grandchild', scope: ['read:all'] });
    expect(second.status).toBe(201);
    const bystander = await mint(await session('leaky3', 'pm'), { name: 'own sign-in', scope: ['read:all'] });
    expect(await works(second.body.token)).toBe(200);
    const revoked = await t.request('DELETE', `/api/v1/tokens/${leaked.id}`, { token: leaked.token });
    expect(revoked.status).toBe(200);
    expect(await works(first.body.token)).toBe(401);
    expect(await works(second.body.token)).toBe(401);
    // A token the user minted from their own sign-in answers to no other token.
    expect(await works(bystander.body.token)).toBe(200);
    const listed = await t.request('GET', '/api/v1/tokens', { token: bystander.body.token });
    const revokedIds = listed.body.tokens
      .filter((x: { revokedAt: string | null }) => x.revokedAt)
      .map((x: { id: string }) => x.id);
    expect(revokedIds.sort()).toEqual([leaked.id, first.body.id, second.body.id].sort());
  });

  it('a revocation by the operator (r3 token revoke) reaches the minted tokens too', async () => {
    const leaked = await t.token({ user: 'leaky4', role: 'pm', scopes: ALL_SCOPES });
    const minted = await mint(await pasted(leaked.token), { name: 'child', scope: ['read:all'] });
    expect(await t.app.tokens.revoke(leaked.id)).toBe(true);
    expect(await works(minted.body.token)).toBe(401);
  });
});
