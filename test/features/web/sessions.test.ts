/**
 * Browser sessions over HTTP (docs/api.md "Browser sessions (the web UI)"): sign-in by one-time link (`r3 login-link`) or pasted
 * token, the cookie accepted by API routes (SSE included), CSRF refusals, idle expiry, sign-out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { runCli } from '../../helpers/process.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** The `r3_session=…` pair of a Set-Cookie answer. */
function cookieOf(headers: Headers): string {
  const set = headers.get('set-cookie') ?? '';
  const pair = set.split(';')[0] ?? '';
  expect(pair).toMatch(/^r3_session=.+/);
  return pair;
}

async function linkCode(org: string, user: string, role?: string): Promise<string> {
  const link = await t.app.sessions.createLoginLink({
    org,
    userId: user,
    ...(role ? { role: role as 'pm' } : {}),
  });
  return new URL(link.url).hash.replace('#link=', '');
}

async function signIn(body: { link?: string; token?: string }) {
  return t.request('POST', '/api/v1/sessions', { body, headers: { origin: t.url } });
}

describe('sign-in by link', () => {
  it('starts a session once; the same link a second time is refused', async () => {
    const code = await linkCode('acme', 'rita', 'client_reviewer');
    const first = await signIn({ link: code });
    expect(first.status).toBe(201);
    expect(first.body.session).toMatchObject({
      org: 'acme',
      userId: 'rita',
      role: 'client_reviewer',
      via: 'link',
      canApprove: true,
    });
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).not.toContain('Secure');
    const again = await signIn({ link: code });
    expect(again.status).toBe(401);
    expect(again.body.error.details.reason).toBe('link_unusable');
  });

  it('refuses an expired link', async () => {
    const code = await linkCode('acme', 'late', 'pm');
    t.clock.advance(10 * 60_000 + 1);
    expect((await signIn({ link: code })).status).toBe(401);
  });

  it('refuses a sign-in posted from another site', async () => {
    const code = await linkCode('acme', 'victim', 'pm');
    const res = await t.request('POST', '/api/v1/sessions', {
      body: { link: code },
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    // The link was not spent by the refused attempt.
    expect((await signIn({ link: code })).status).toBe(201);
  });

  it('r3 login-link --json prints {url, expiresAt}; without --role the user must exist', async () => {
    const env = { DATABASE_URL: t.database.url, BASE_URL: t.url };
    const res = await runCli(
      ['login-link', '--org', 'acme', '--user', 'cli-user', '--role', 'pm', '--json'],
      env,
    );
    expect(res.code).toBe(0);
    const printed = JSON.parse(res.stdout);
    expect(Object.keys(printed).sort()).toEqual(['expiresAt', 'url']);
    expect(printed.url).toMatch(new RegExp(`^${t.url}/login#link=[A-Za-z0-9_-]{43}$`));
    const missing = await runCli(['login-link', '--org', 'acme', '--user', 'nobody'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no user "nobody"');
  });

  it('r3 login-link --next puts the page to open in the query, the code still in the fragment; another origin is refused', async () => {
    const env = { DATABASE_URL: t.database.url, BASE_URL: t.url };
    const res = await runCli(
      [
        'login-link',
        '--org',
        'acme',
        '--user',
        'cli-user',
        '--role',
        'pm',
        '--next',
        '/review/runs/5?x=1',
        '--json',
      ],
      env,
    );
    expect(res.code).toBe(0);
    const url = new URL(JSON.parse(res.stdout).url);
    expect(url.pathname).toBe('/login');
    expect(url.searchParams.get('next')).toBe('/review/runs/5?x=1');
    expect(url.hash).toMatch(/^#link=[A-Za-z0-9_-]{43}$/);
    for (const next of ['//evil.example/x', 'review']) {
      const refused = await runCli(
        ['login-link', '--org', 'acme', '--user', 'cli-user', '--next', next],
        env,
      );
      expect(refused.code, next).toBe(2);
      expect(refused.stderr).toContain('--next must be a path of this site');
    }
  });
});

describe('the session cookie on API routes', () => {
  it('reads with the cookie alone; writes need the CSRF token and a same-origin Origin', async () => {
    const res = await signIn({ link: await linkCode('acme', 'paula', 'pm') });
    const cookie = cookieOf(res.headers);
    const csrf = res.body.session.csrfToken as string;
    const me = await t.request('GET', '/api/v1/session', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.session).toMatchObject({ userId: 'paula', csrfToken: csrf });
    expect((await t.request('GET', '/api/v1/reviews', { headers: { cookie } })).status).toBe(200);

    const body = { kind: 'skill', id: 999_999, assignedTo: null };
    const noToken = await t.request('POST', '/api/v1/reviews/assign', {
      body,
      headers: { cookie, origin: t.url },
    });
    expect(noToken.status).toBe(403);
    expect(noToken.body.error.details.reason).toBe('csrf_token');
    const crossSite = await t.request('POST', '/api/v1/reviews/assign', {
      body,
      headers: { cookie, origin: 'https://evil.example', 'x-csrf-token': csrf },
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.details.reason).toBe('csrf_origin');
    const noOrigin = await t.request('POST', '/api/v1/reviews/assign', {
      body,
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(noOrigin.status).toBe(403);
    const allowed = await t.request('POST', '/api/v1/reviews/assign', {
      body,
      headers: { cookie, origin: t.url, 'x-csrf-token': csrf },
    });
    // Past the CSRF checks: the item does not exist.
    expect(allowed.status).toBe(404);
  });

  it('streams a run over SSE with the cookie and no token in the URL', async () => {
    const owner = await t.token({ scopes: ALL_SCOPES });
    const res = await signIn({ token: owner.token });
    const cookie = cookieOf(res.headers);
    const stream = await fetch(`${t.url}/api/v1/runs/run_doesnotexist/stream`, { headers: { cookie } });
    // Authenticated by the cookie: the answer is about the run, not the caller.
    expect(stream.status).toBe(404);
    await stream.body?.cancel();
  });

  it('a pasted token’s session ends when the token is revoked', async () => {
    const created = await t.token({ role: 'pm', scopes: ['read:all'] });
    const res = await signIn({ token: created.token });
    expect(res.status).toBe(201);
    expect(res.body.session).toMatchObject({ via: 'token', tokenId: created.id, scopes: ['read:all'] });
    const cookie = cookieOf(res.headers);
    expect((await t.request('GET', '/api/v1/session', { headers: { cookie } })).status).toBe(200);
    await t.app.tokens.revoke(created.id);
    const after = await t.request('GET', '/api/v1/session', { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(after.body.error.details.reason).toBe('session_token_revoked');
  });

  it('refuses a malformed or unknown pasted token', async () => {
    expect((await signIn({ token: 'svc_test_nope' })).status).toBe(401);
    const created = await t.token();
    const forged = created.token.slice(0, -8) + 'AAAAAAAA';
    expect((await signIn({ token: forged })).status).toBe(401);
  });

  it('ends after 12 idle hours, and stays alive while used', async () => {
    const cookie = cookieOf((await signIn({ link: await linkCode('acme', 'idle', 'pm') })).headers);
    t.clock.advance(11 * 3_600_000);
    expect((await t.request('GET', '/api/v1/session', { headers: { cookie } })).status).toBe(200);
    t.clock.advance(11 * 3_600_000);
    expect((await t.request('GET', '/api/v1/session', { headers: { cookie } })).status).toBe(200);
    t.clock.advance(12 * 3_600_000 + 1);
    const gone = await t.request('GET', '/api/v1/session', { headers: { cookie } });
    expect(gone.status).toBe(401);
    expect(gone.body.error.details.reason).toBe('session_idle');
  });

  it('sign-out ends the session server-side (the old cookie no longer works)', async () => {
    const res = await signIn({ link: await linkCode('acme', 'leaver', 'pm') });
    const cookie = cookieOf(res.headers);
    const out = await t.request('DELETE', '/api/v1/session', {
      headers: { cookie, origin: t.url, 'x-csrf-token': res.body.session.csrfToken },
    });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signedOut: true });
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    const after = await t.request('GET', '/api/v1/session', { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(after.body.error.details.reason).toBe('session_signed_out');
  });

  it('r3 session revoke ends every session of a user at once', async () => {
    const first = cookieOf((await signIn({ link: await linkCode('acme', 'revoked-rick', 'pm') })).headers);
    const second = cookieOf((await signIn({ link: await linkCode('acme', 'revoked-rick') })).headers);
    const env = { DATABASE_URL: t.database.url };
    const res = await runCli(['session', 'revoke', '--org', 'acme', '--user', 'revoked-rick', '--json'], env);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ revoked: 2 });
    for (const cookie of [first, second]) {
      const after = await t.request('GET', '/api/v1/session', { headers: { cookie } });
      expect(after.status).toBe(401);
    }
    const unknown = await runCli(['session', 'revoke', '--org', 'acme', '--user', 'nobody'], env);
    expect(unknown.code).toBe(1);
  });

  it('a Bearer token wins over a cookie, and keeps working without one', async () => {
    const created = await t.token({ user: 'bearer-user' });
    const me = await t.request('GET', '/api/v1/session', {
      token: created.token,
      headers: { cookie: 'r3_session=junk' },
    });
    expect(me.status).toBe(200);
    expect(me.body.session).toMatchObject({ via: 'bearer', userId: 'bearer-user', csrfToken: null });
  });
});

describe('the pages and the bundle', () => {
  it('serves the shell under a strict CSP and hashed assets with long caching', async () => {
    const page = await fetch(`${t.url}/review`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).not.toMatch(/<script>(?!<)/);
    const script = /<script type="module" src="(\/assets\/main-[A-Z0-9]+\.js)">/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${t.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toContain('text/javascript');
    expect((await fetch(`${t.url}/assets/main-NOPE.js`)).status).toBe(404);
    const root = await fetch(`${t.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/review');
  });
});
