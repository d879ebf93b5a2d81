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
