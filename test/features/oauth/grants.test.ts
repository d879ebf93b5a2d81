/**
 * OAuth sign-in without a browser (docs/api.md#sign-in-with-oauth), through the real socket and
 * PostgreSQL: registration and its refusals; the authorize endpoint's refusals (to the browser while
 * the client or redirect URI is in doubt, back to the client after); the consent API (tenancy, a
 * session only, one decision, expiry); the token endpoint's code exchange and each refusal (wrong
 * redirect_uri, missing or wrong PKCE verifier, a reused code — which revokes what it was exchanged
 * for —, an expired one, another resource); rotating refresh tokens and a reused one revoking its
 * family; Client ID Metadata Documents fetched, checked and cached. Time moves with the test clock.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  OAuthClientInformationFullSchema,
  OAuthErrorResponseSchema,
  OAuthTokensSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthClients } from '../../../src/features/oauth/clients.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import {
  authorize,
  authorizeParams,
  consentRequestId,
  decide,
  obtainCode,
  pkcePair,
  registerClient,
  signInSession,
  type TestSession,
  tokenRequest,
} from '../../helpers/oauth.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

let t: TestApp;
let owner: TestSession;
let clientId: string;

/** A small server for Client ID Metadata Documents: path → [status, body, headers]; counts hits. */
const documents = new Map<string, { status: number; body: unknown; headers?: Record<string, string> }>();
const hits = new Map<string, number>();
const docServer = http.createServer((req, res) => {
  const path = req.url ?? '/';
  hits.set(path, (hits.get(path) ?? 0) + 1);
  const doc = documents.get(path);
  res.writeHead(doc?.status ?? 404, { 'content-type': 'application/json', ...doc?.headers });
  res.end(doc ? JSON.stringify(doc.body) : '{}');
});
let docBase = '';

beforeAll(async () => {
  t = await startTestApp({ R3_OAUTH_ALLOW_PRIVATE: 'true' });
  owner = await signInSession(t, { org: 'acme', userId: 'olive', role: 'owner' });
  clientId = await registerClient(t, [REDIRECT]);
  await new Promise<void>((resolve) => docServer.listen(0, '127.0.0.1', resolve));
  docBase = `http://127.0.0.1:${(docServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  docServer.close();
  await t.close();
});

async function count(table: string): Promise<number> {
  const rows = await t.app.db.sql.query<{ n: string }>(`select count(*)::text as n from ${table}`);
  return Number(rows[0]?.n);
}

/** Codes exchanged for tokens: the answer, checked against the SDK's schema. */
async function exchange(code: string, verifier: string, extra: Record<string, string> = {}) {
  return tokenRequest(t, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: `${t.url}/api/mcp`,
    ...extra,
  });
}

function refusedWith(answer: { status: number; body: unknown }, error: string, status = 400): void {
  expect(answer.status).toBe(status);
  expect(OAuthErrorResponseSchema.parse(answer.body).error).toBe(error);
}

describe('POST /oauth/register', () => {
  it('registers a public client whatever method it asks for', async () => {
    const answer = await t.request('POST', '/oauth/register', {
      body: {
        client_name: 'Editor',
        redirect_uris: ['https://app.example/cb', 'http://localhost:3000/cb', 'cursor://anysphere/oauth'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'read:all run:invoke',
      },
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const info = OAuthClientInformationFullSchema.parse(answer.body);
    expect(info).toMatchObject({
      client_name: 'Editor',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(info.client_id).toMatch(/^r3c_/);
    expect(info.client_secret).toBeUndefined();
  });

  it.each([
    [{ client_name: 'x', redirect_uris: ['http://evil.example/cb'] }, 'invalid_redirect_uri'],
    [{ client_name: 'x', redirect_uris: ['https://app.example/cb#frag'] }, 'invalid_redirect_uri'],
    [{ client_name: 'x', redirect_uris: ['javascript:alert(1)'] }, 'invalid_client_metadata'],
    [{ client_name: 'x', redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ client_name: 'x' }, 'invalid_client_metadata'],
    [
      { redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] },
      'invalid_client_metadata',
    ],
    [{ redirect_uris: ['https://a.example/cb'], response_types: ['token'] }, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://a.example/cb'], scope: 'read:all admin' }, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://a.example/cb'], client_name: 'a\u0000b' }, 'invalid_client_metadata'],
  ])('refuses %j with %s, storing nothing', async (body, error) => {
    const before = await count('oauth_clients');
    refusedWith(await t.request('POST', '/oauth/register', { body }), error);
    expect(await count('oauth_clients')).toBe(before);
  });

  it('refuses a body that is not JSON', async () => {
    refusedWith(
      await t.request('POST', '/oauth/register', {
        rawBody: 'redirect_uris=x',
        headers: { 'content-type': 'application/json' },
      }),
      'invalid_client_metadata',
    );
  });
});

describe('GET /oauth/authorize', () => {
  it('keeps a good request pending and sends the browser to the consent page', async () => {
    const { challenge } = pkcePair();
    const id = consentRequestId(t, await authorize(t, authorizeParams(t, clientId, REDIRECT, challenge)));
    const view = await t.request('GET', `/api/v1/oauth/requests/${id}`, {
      headers: { cookie: owner.cookie },
    });
    expect(view.status).toBe(200);
    expect(view.body.request).toMatchObject({
      id,
      client: { id: clientId, name: 'Test client', kind: 'registered' },
      redirectUri: REDIRECT,
      scopes: ['read:all', 'run:invoke'],
      granted: ['read:all', 'run:invoke'],
      status: 'pending',
    });
  });

  it('answers the browser, not the client, while the client or its redirect URI is in doubt', async () => {
    const { challenge } = pkcePair();
    const before = await count('oauth_authorizations');
    for (const [params, field] of [
      [{ client_id: 'r3c_unknown' }, 'query.client_id'],
      [{ redirect_uri: 'http://127.0.0.1:9/other' }, 'query.redirect_uri'],
      [{ redirect_uri: `${REDIRECT}?x=1` }, 'query.redirect_uri'],
    ] as const) {
      const response = await authorize(t, authorizeParams(t, clientId, REDIRECT, challenge, params));
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      const body = (await response.json()) as any;
      expect(body.error.code).toBe('VALIDATION_FAILED');
      expect(body.error.details.issues[0].field).toBe(field);
    }
    expect(await count('oauth_authorizations')).toBe(before);
  });

  it.each([
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge_method: '' }, 'invalid_request'],
    [{ code_challenge: '' }, 'invalid_request'],
    [{ code_challenge: 'short' }, 'invalid_request'],
    [{ resource: 'https://elsewhere.example/api/mcp' }, 'invalid_target'],
    [{ resource: '' }, 'invalid_target'],
    [{ scope: 'read:all admin' }, 'invalid_scope'],
    [{ response_type: 'token' }, 'unsupported_response_type'],
  ])('sends %j back to the client as %s, with the state', async (params, error) => {
    const { challenge } = pkcePair();
    const before = await count('oauth_authorizations');
    const response = await authorize(t, authorizeParams(t, clientId, REDIRECT, challenge, params));
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe(error);
    expect(back.searchParams.get('state')).toBe('state-123');
    expect(back.searchParams.get('iss')).toBe(t.url);
    expect(back.searchParams.get('code')).toBeNull();
    expect(await count('oauth_authorizations')).toBe(before);
  });
});

describe('the consent API', () => {
  it('denies: the client is told access_denied with its state, and no code exists', async () => {
    const { challenge } = pkcePair();
    const id = consentRequestId(t, await authorize(t, authorizeParams(t, clientId, REDIRECT, challenge)));
    const denied = await decide(t, owner, id, false);
    expect(denied.status).toBe(200);
    const back = new URL(denied.body.redirectTo);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('state-123');
    expect(back.searchParams.get('code')).toBeNull();
    expect(denied.body.request.status).toBe('denied');
    // Once decided, the same request cannot be decided again.
    const again = await decide(t, owner, id, true);
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe('decided');
  });

  it("another org's person does not see a decided request (404); an unknown one is 404", async () => {
    const { challenge } = pkcePair();
    const id = consentRequestId(t, await authorize(t, authorizeParams(t, clientId, REDIRECT, challenge)));
    expect((await decide(t, owner, id, true)).status).toBe(200);
    const stranger = await signInSession(t, { org: 'globex', userId: 'gus', role: 'owner' });
    const seen = await t.request('GET', `/api/v1/oauth/requests/${id}`, {
      headers: { cookie: stranger.cookie },
    });
    expect(seen.status).toBe(404);
    expect((await decide(t, stranger, id, true)).status).toBe(404);
    expect(
      (await t.request('GET', '/api/v1/oauth/requests/nope', { headers: { cookie: owner.cookie } })).status,
    ).toBe(404);
  });

  it('needs a signed-in person: 401 without one, 403 for a Bearer token, 400 for a bad body', async () => {
    const { challenge } = pkcePair();
    const id = consentRequestId(t, await authorize(t, authorizeParams(t, clientId, REDIRECT, challenge)));
    expect((await t.request('GET', `/api/v1/oauth/requests/${id}`)).status).toBe(401);
    const token = await t.token({ org: 'acme', user: 'olive' });
    const bearer = await t.request('POST', `/api/v1/oauth/requests/${id}/decision`, {
      token: token.token,
      body: { allow: true },
    });
    expect(bearer.status).toBe(403);
    expect(bearer.body.error.details.reason).toBe('session_required');
    const bad = await t.request('POST', `/api/v1/oauth/requests/${id}/decision`, {
      body: { allow: 'yes' },
      headers: { cookie: owner.cookie, origin: t.url, 'x-csrf-token': owner.csrf },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].field).toBe('body.allow');
    const view = await t.request('GET', `/api/v1/oauth/requests/${id}`, {
      headers: { cookie: owner.cookie },
    });
    expect(view.body.request.status).toBe('pending');
  });

  it('expires a request left undecided for 10 minutes (409)', async () => {
    const { challenge } = pkcePair();
    const id = consentRequestId(t, await authorize(t, authorizeParams(t, clientId, REDIRECT, challenge)));
    t.clock.advance(10 * 60_000);
    const view = await t.request('GET', `/api/v1/oauth/requests/${id}`, {
      headers: { cookie: owner.cookie },
    });
    expect(view.body.request.status).toBe('expired');
    const late = await decide(t, owner, id, true);
    expect(late.status).toBe(409);
    expect(late.body.error.details.reason).toBe('expired');
  });

  it('grants only the scopes asked for that the person holds', async () => {
    const specialist = await signInSession(t, { org: 'acme', userId: 'sam', role: 'specialist' });
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, specialist, clientId, REDIRECT, challenge, {
      scope: 'read:all run:invoke run:approve write:resources',
    });
    const answer = await exchange(code, verifier);
    expect(answer.status).toBe(200);
    expect(OAuthTokensSchema.parse(answer.body).scope).toBe('read:all run:invoke');
  });
});

describe('POST /oauth/token: authorization_code', () => {
  it('exchanges a code for an access token of the person (1 h, named for the client, listed) and a refresh token', async () => {
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, owner, clientId, REDIRECT, challenge);
    const answer = await exchange(code, verifier);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const tokens = OAuthTokensSchema.parse(answer.body);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read:all run:invoke' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const session = await t.request('GET', '/api/v1/session', { token: tokens.access_token });
    expect(session.status).toBe(200);
    expect(session.body.session).toMatchObject({
      org: 'acme',
      userId: 'olive',
      scopes: ['read:all', 'run:invoke'],
    });
    const tokenId = session.body.session.tokenId;
    const listed = await t.request('GET', '/api/v1/tokens', { headers: { cookie: owner.cookie } });
    const row = listed.body.tokens.find((tk: { id: string }) => tk.id === tokenId);
    expect(row).toMatchObject({ name: 'oauth: Test client', userId: 'olive', scope: 'read:all,run:invoke' });
    expect(Date.parse(row.expiresAt) - Date.parse(row.createdAt)).toBe(3_600_000);
    // Rate-limited like any token: its answers carry its bucket.
    expect(session.headers.get('x-ratelimit-limit')).toEqual(expect.any(String));
    // An hour later it is expired like any token.
    t.clock.advance(3_600_000);
    expect((await t.request('GET', '/api/v1/session', { token: tokens.access_token })).status).toBe(401);
  });

  it('is revocable like any token, and what it does is attributed token:<id>', async () => {
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, owner, clientId, REDIRECT, challenge);
    const tokens = OAuthTokensSchema.parse((await exchange(code, verifier)).body);
    const session = await t.request('GET', '/api/v1/session', { token: tokens.access_token });
    const tokenId = session.body.session.tokenId as string;
    const created = await t.app.db.sql.query<{ actor: string }>(
      `select actor from audit_log where action = 'token.created' and target_id = $1`,
      [tokenId],
    );
    expect(created).toEqual([{ actor: 'user:olive' }]);
    const revoked = await t.request('DELETE', `/api/v1/tokens/${tokenId}`, { token: tokens.access_token });
    expect(revoked.status).toBe(200);
    const audit = await t.app.db.sql.query<{ actor: string }>(
      `select actor from audit_log where action = 'token.revoked' and target_id = $1`,
      [tokenId],
    );
    expect(audit).toEqual([{ actor: `token:${tokenId}` }]);
    expect((await t.request('GET', '/api/v1/session', { token: tokens.access_token })).status).toBe(401);
  });

  it.each([
    ['a wrong redirect_uri', { redirect_uri: 'http://127.0.0.1:9/other' }, 'invalid_grant'],
    ['a wrong verifier', { code_verifier: pkcePair().verifier }, 'invalid_grant'],
    ['a verifier of the wrong shape', { code_verifier: 'short' }, 'invalid_grant'],
    ['no verifier', { code_verifier: '' }, 'invalid_request'],
    ['another resource', { resource: 'https://elsewhere.example/api/mcp' }, 'invalid_target'],
    ['another client', { client_id: 'r3c_other' }, 'invalid_grant'],
  ])('refuses %s, and the code is spent', async (_name, params, error) => {
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, owner, clientId, REDIRECT, challenge);
    const tokensBefore = await count('api_tokens');
    refusedWith(await exchange(code, verifier, params), error);
    expect(await count('api_tokens')).toBe(tokensBefore);
    if (error !== 'invalid_request') refusedWith(await exchange(code, verifier), 'invalid_grant');
  });

  it('refuses a code used twice and revokes what the first use gave', async () => {
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, owner, clientId, REDIRECT, challenge);
    const first = OAuthTokensSchema.parse((await exchange(code, verifier)).body);
    expect((await t.request('GET', '/api/v1/session', { token: first.access_token })).status).toBe(200);
    refusedWith(await exchange(code, verifier), 'invalid_grant');
    expect((await t.request('GET', '/api/v1/session', { token: first.access_token })).status).toBe(401);
    refusedWith(
      await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token as string,
        client_id: clientId,
      }),
      'invalid_grant',
    );
  });

  it('stores codes and refresh tokens only as their SHA-256', async () => {
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, owner, clientId, REDIRECT, challenge);
    const tokens = OAuthTokensSchema.parse((await exchange(code, verifier)).body);
    const stored = await t.app.db.sql.query<{ codes: string; refresh: string; plain: string }>(
      `select (select count(*) from oauth_authorizations where code_hash = sha256(convert_to($1, 'utf8')))::text as codes,
              (select count(*) from oauth_refresh_tokens where token_hash = sha256(convert_to($2, 'utf8')))::text as refresh,
              (select count(*) from oauth_authorizations a where a::text like '%' || $1 || '%')::text as plain`,
      [code, tokens.refresh_token],
    );
    expect(stored).toEqual([{ codes: '1', refresh: '1', plain: '0' }]);
  });

  it('refuses a code past its 60 s', async () => {
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, owner, clientId, REDIRECT, challenge);
    t.clock.advance(60_000);
    refusedWith(await exchange(code, verifier), 'invalid_grant');
  });

  it('refuses an unknown code, a bad grant type, a JSON body, credentials, a repeated parameter', async () => {
    refusedWith(await exchange('nope', pkcePair().verifier), 'invalid_grant');
    refusedWith(
      await tokenRequest(t, { grant_type: 'client_credentials', client_id: clientId }),
      'unsupported_grant_type',
    );
    refusedWith(await tokenRequest(t, { client_id: clientId }), 'invalid_request');
    refusedWith(
      await t.request('POST', '/oauth/token', { body: { grant_type: 'authorization_code' } }),
      'invalid_request',
    );
    refusedWith(
      await t.request('POST', '/oauth/token', {
        rawBody: 'grant_type=refresh_token&refresh_token=x',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${clientId}:secret`).toString('base64')}`,
        },
      }),
      'invalid_client',
      401,
    );
    refusedWith(
      await t.request('POST', '/oauth/token', {
        rawBody: 'grant_type=refresh_token&grant_type=authorization_code',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      'invalid_request',
    );
  });
});

describe('POST /oauth/token: refresh_token', () => {
  it('rotates; a refresh token used twice revokes its whole family and its access tokens', async () => {
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, owner, clientId, REDIRECT, challenge);
    const first = OAuthTokensSchema.parse((await exchange(code, verifier)).body);
    const refresh = (token: string, extra: Record<string, string> = {}) =>
      tokenRequest(t, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId, ...extra });
    const second = await refresh(first.refresh_token as string);
    expect(second.status).toBe(200);
    const rotated = OAuthTokensSchema.parse(second.body);
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect(rotated.access_token).not.toBe(first.access_token);
    // Narrowing is allowed; widening is not.
    refusedWith(
      await refresh(rotated.refresh_token as string, { scope: 'read:all run:approve' }),
      'invalid_scope',
    );
    refusedWith(await refresh(rotated.refresh_token as string, { client_id: 'r3c_other' }), 'invalid_grant');
    for (const token of [first.access_token, rotated.access_token]) {
      expect((await t.request('GET', '/api/v1/session', { token })).status).toBe(200);
    }
    // The first refresh token again: a replay. The family goes, every token in it.
    refusedWith(await refresh(first.refresh_token as string), 'invalid_grant');
    refusedWith(await refresh(rotated.refresh_token as string), 'invalid_grant');
    for (const token of [first.access_token, rotated.access_token]) {
      expect((await t.request('GET', '/api/v1/session', { token })).status).toBe(401);
    }
    const audit = await t.app.db.sql.query<{ details: { reason: string } }>(
      `select details from audit_log where action = 'oauth.family_revoked' order by id desc limit 1`,
    );
    expect(audit[0]?.details.reason).toBe('refresh_token_reused');
  });

  it('narrows the scopes to what the person holds now', async () => {
    const pm = await signInSession(t, { org: 'acme', userId: 'pat', role: 'pm' });
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, pm, clientId, REDIRECT, challenge, { scope: 'read:all run:approve' });
    const first = OAuthTokensSchema.parse((await exchange(code, verifier)).body);
    expect(first.scope).toBe('read:all run:approve');
    await t.app.db.sql.query(`update users set role = 'specialist' where id = 'pat'`);
    const next = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token as string,
      client_id: clientId,
    });
    expect(OAuthTokensSchema.parse(next.body).scope).toBe('read:all');
  });
});

describe('Client ID Metadata Documents', () => {
  it('fetches the document named by client_id, keeps it as its Cache-Control says, and signs in with it', async () => {
    const url = `${docBase}/clients/editor.json`;
    documents.set('/clients/editor.json', {
      status: 200,
      body: {
        client_id: url,
        client_name: 'Doc Editor',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      },
      headers: { 'cache-control': 'max-age=120' },
    });
    const { challenge, verifier } = pkcePair();
    const id = consentRequestId(t, await authorize(t, authorizeParams(t, url, REDIRECT, challenge)));
    const view = await t.request('GET', `/api/v1/oauth/requests/${id}`, {
      headers: { cookie: owner.cookie },
    });
    expect(view.body.request.client).toEqual({ id: url, name: 'Doc Editor', uri: null, kind: 'document' });
    const back = new URL((await decide(t, owner, id, true)).body.redirectTo);
    const answer = await tokenRequest(t, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') as string,
      redirect_uri: REDIRECT,
      client_id: url,
      code_verifier: verifier,
    });
    expect(answer.status).toBe(200);
    expect(hits.get('/clients/editor.json')).toBe(1);
    // Within its max-age the document is not fetched again; after, it is.
    consentRequestId(t, await authorize(t, authorizeParams(t, url, REDIRECT, challenge)));
    expect(hits.get('/clients/editor.json')).toBe(1);
    t.clock.advance(121_000);
    consentRequestId(t, await authorize(t, authorizeParams(t, url, REDIRECT, challenge)));
    expect(hits.get('/clients/editor.json')).toBe(2);
  });

  it.each([
    [
      'names another client_id',
      200,
      { client_id: 'https://other.example/c.json', redirect_uris: [REDIRECT] },
    ],
    ['is not found', 404, {}],
    [
      'asks for a client secret',
      200,
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' },
    ],
    ['has no redirect URIs', 200, { redirect_uris: [] }],
    ['is too long', 200, { redirect_uris: [REDIRECT], client_name: 'x'.repeat(6000) }],
  ])('refuses a document that %s (400, to the browser)', async (_name, status, body) => {
    const path = `/clients/bad-${status}-${Object.keys(body).join('-')}-${Math.random().toString(36).slice(2)}.json`;
    const url = `${docBase}${path}`;
    documents.set(path, { status, body: { client_id: url, ...body } });
    const response = await authorize(t, authorizeParams(t, url, REDIRECT, pkcePair().challenge));
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.details.issues[0].field).toBe('query.client_id');
  });

  it('refuses a loopback document unless R3_OAUTH_ALLOW_PRIVATE', async () => {
    const strict = new OAuthClients({ sql: t.app.db.sql, clock: t.clock, allowPrivate: false });
    const url = `${docBase}/clients/editor.json`;
    await t.app.db.sql.query('delete from oauth_clients where client_id = $1', [`${url}x`]);
    await expect(strict.find(`${url}x`)).rejects.toThrow(/could not be fetched/);
  });
});

/**
 * Issue 36 #3 through OAuth: a leaked token pasted into `POST /sessions` (Origin forged) gives a
 * session that may allow an app on the consent page. What that consent grants is the leaked token's
 * and no more: access tokens that expire no later than it and end with it, and no refresh once it is
 * revoked — the app's rotating refresh tokens cannot outlive the leaked token.
 */
describe('a consent given from a pasted token’s session', () => {
  async function pastedSession(token: string): Promise<TestSession> {
    const answer = await t.request('POST', '/api/v1/sessions', {
      body: { token },
      headers: { origin: t.url },
    });
    expect(answer.status).toBe(201);
    return {
      cookie: (answer.headers.get('set-cookie') ?? '').split(';')[0] as string,
      csrf: answer.body.session.csrfToken,
    };
  }
  const works = async (token: string) => (await t.request('GET', '/api/v1/session', { token })).status;
  const refresh = (token: string) =>
    tokenRequest(t, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });

  it('mints access tokens through the leaked token: no later expiry, revoked with it, and no refresh after', async () => {
    const expiresAt = new Date(t.clock.now() + 30 * 60_000);
    const leaked = await t.token({
      org: 'acme',
      user: 'olive',
      scopes: ['read:all', 'run:invoke'],
      expiresAt,
    });
    const session = await pastedSession(leaked.token);
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, session, clientId, REDIRECT, challenge);
    const first = OAuthTokensSchema.parse((await exchange(code, verifier)).body);
    // 30 minutes, not the usual hour: the access token ends when the leaked token does.
    expect(first.expires_in).toBeLessThanOrEqual(30 * 60);
    const row = await t.app.db.sql.one<{ expires_at: Date; source_token_id: string }>(
      `select t.expires_at, t.source_token_id from api_tokens t
        join oauth_refresh_tokens r on r.access_token_id = t.id where r.token_hash = sha256($1::bytea)`,
      [Buffer.from(first.refresh_token as string)],
    );
    expect(row).toEqual({ expires_at: expiresAt, source_token_id: leaked.id });
    const rotated = await refresh(first.refresh_token as string);
    expect(rotated.status).toBe(200);
    const second = OAuthTokensSchema.parse(rotated.body);
    expect(await works(second.access_token)).toBe(200);

    const revoked = await t.request('DELETE', `/api/v1/tokens/${leaked.id}`, { token: leaked.token });
    expect(revoked.status).toBe(200);
    expect(await works(first.access_token)).toBe(401);
    expect(await works(second.access_token)).toBe(401);
    refusedWith(await refresh(second.refresh_token as string), 'invalid_grant');
  });

  it('refuses the code once the leaked token is revoked, and a refresh once it expired', async () => {
    const leaked = await t.token({ org: 'acme', user: 'olive', scopes: ['read:all'] });
    const session = await pastedSession(leaked.token);
    const pair = pkcePair();
    const code = await obtainCode(t, session, clientId, REDIRECT, pair.challenge);
    expect(await t.app.tokens.revoke(leaked.id)).toBe(true);
    refusedWith(await exchange(code, pair.verifier), 'invalid_grant');

    const expiring = await t.token({
      org: 'acme',
      user: 'olive',
      scopes: ['read:all'],
      expiresAt: new Date(t.clock.now() + 10 * 60_000),
    });
    const other = pkcePair();
    const tokens = OAuthTokensSchema.parse(
      (
        await exchange(
          await obtainCode(t, await pastedSession(expiring.token), clientId, REDIRECT, other.challenge),
          other.verifier,
        )
      ).body,
    );
    t.clock.advance(10 * 60_000 + 1);
    refusedWith(await refresh(tokens.refresh_token as string), 'invalid_grant');
  });

  it('sees a revocation of the leaked token that commits while the code is exchanged: refused, nothing minted', async () => {
    const leaked = await t.token({ org: 'acme', user: 'olive', scopes: ['read:all'] });
    const session = await pastedSession(leaked.token);
    const pair = pkcePair();
    const code = await obtainCode(t, session, clientId, REDIRECT, pair.challenge);
    const before = await count('api_tokens');
    let settled = false;
    let answer: ReturnType<typeof exchange> | undefined;
    await t.app.db.sql.tx(async (sql) => {
      // A revocation's first statement, not yet committed: it holds the leaked token's row.
      await sql.query('update api_tokens set revoked_at = now() where id = $1', [leaked.id]);
      answer = exchange(code, pair.verifier);
      const done = () => {
        settled = true;
      };
      answer.then(done, done);
      await new Promise((resolve) => setTimeout(resolve, 400));
      // The exchange waits for the revocation (a read without the lock minted at once, from the
      // version before it, and the revocation's cascade could not see that access token yet).
      expect(settled).toBe(false);
    });
    refusedWith(await (answer as ReturnType<typeof exchange>), 'invalid_grant');
    expect(await count('api_tokens')).toBe(before);
  });

  it('leaves a consent from a sign-in link’s session as it was: an hour, refreshable', async () => {
    const { verifier, challenge } = pkcePair();
    const tokens = OAuthTokensSchema.parse(
      (await exchange(await obtainCode(t, owner, clientId, REDIRECT, challenge), verifier)).body,
    );
    expect(tokens.expires_in).toBe(3600);
    expect((await refresh(tokens.refresh_token as string)).status).toBe(200);
  });
});

describe('the sweep', () => {
  it('deletes ended requests and codes, and families no token of which can be presented, a day on', async () => {
    const { challenge, verifier } = pkcePair();
    const code = await obtainCode(t, owner, clientId, REDIRECT, challenge);
    const live = OAuthTokensSchema.parse((await exchange(code, verifier)).body);
    expect(await count('oauth_authorizations')).toBeGreaterThan(0);
    // A day past the request's 10 minutes, the refresh token is still live: its family stays; every
    // request and code is gone.
    t.clock.advance(86_400_000 + 10 * 60_000);
    await t.app.oauthGrants.sweep();
    expect(await count('oauth_authorizations')).toBe(0);
    const families = await t.app.db.sql.query<{ n: string }>(
      `select count(*)::text as n from oauth_refresh_families f
        where exists (select 1 from oauth_refresh_tokens r where r.family_id = f.id and r.used_at is null and r.expires_at > $1)`,
      [new Date(t.clock.now())],
    );
    expect(await count('oauth_refresh_families')).toBe(Number(families[0]?.n));
    const refreshed = await tokenRequest(t, {
      grant_type: 'refresh_token',
      refresh_token: live.refresh_token as string,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    // Past every refresh token's 30 days, nothing is left.
    t.clock.advance(31 * 86_400_000);
    await t.app.oauthGrants.sweep();
    expect(await count('oauth_refresh_families')).toBe(0);
    expect(await count('oauth_refresh_tokens')).toBe(0);
  });
});
