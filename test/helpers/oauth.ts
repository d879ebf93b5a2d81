/**
 * OAuth sign-in from tests (docs/api.md#sign-in-with-oauth), through the real socket: a browser
 * session by sign-in link, client registration, PKCE pairs, a code obtained the way the consent page
 * obtains it (the authorize redirect, then the decision with the session's cookie and CSRF token),
 * and token requests as forms.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Role } from '../../src/platform/auth/principal.js';
import type { HttpAnswer, TestApp } from './app.js';

/** A browser session: its cookie pair and CSRF token. */
export interface TestSession {
  cookie: string;
  csrf: string;
}

/** Signs `who` in by a sign-in link (the org and user are created with `role`). */
export async function signInSession(
  t: TestApp,
  who: { org: string; userId: string; role: Role },
): Promise<TestSession> {
  const link = await t.app.sessions.createLoginLink(who);
  const code = new URL(link.url).hash.replace('#link=', '');
  const answer = await t.request('POST', '/api/v1/sessions', {
    body: { link: code },
    headers: { origin: t.url },
  });
  expect(answer.status).toBe(201);
  return {
    cookie: (answer.headers.get('set-cookie') ?? '').split(';')[0] as string,
    csrf: answer.body.session.csrfToken,
  };
}

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a public client; answers its client_id. */
export async function registerClient(
  t: TestApp,
  redirectUris: string[],
  name = 'Test client',
): Promise<string> {
  const answer = await t.request('POST', '/oauth/register', {
    body: { client_name: name, redirect_uris: redirectUris, token_endpoint_auth_method: 'none' },
  });
  expect(answer.status).toBe(201);
  return answer.body.client_id;
}

/** `GET /oauth/authorize` with `params` (redirects not followed). */
export async function authorize(t: TestApp, params: Record<string, string>): Promise<Response> {
  const url = new URL(`${t.url}/oauth/authorize`);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return fetch(url, { redirect: 'manual' });
}

/** The usual authorization parameters of `clientId` for `redirectUri` with `challenge`. */
export function authorizeParams(
  t: TestApp,
  clientId: string,
  redirectUri: string,
  challenge: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-123',
    scope: 'read:all run:invoke',
    resource: `${t.url}/api/mcp`,
    ...extra,
  };
}

/** The consent page's request id from the authorize redirect. */
export function consentRequestId(t: TestApp, response: Response): string {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(`${t.url}/oauth/consent`);
  return location.searchParams.get('request') as string;
}

/** The consent page's decision on request `id` by `session`. */
export function decide(t: TestApp, session: TestSession, id: string, allow: boolean): Promise<HttpAnswer> {
  return t.request('POST', `/api/v1/oauth/requests/${id}/decision`, {
    body: { allow },
    headers: { cookie: session.cookie, origin: t.url, 'x-csrf-token': session.csrf },
  });
}

/** A code for `clientId`, allowed by `session` (the redirect back carries it). */
export async function obtainCode(
  t: TestApp,
  session: TestSession,
  clientId: string,
  redirectUri: string,
  challenge: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const id = consentRequestId(
    t,
    await authorize(t, authorizeParams(t, clientId, redirectUri, challenge, extra)),
  );
  const decided = await decide(t, session, id, true);
  expect(decided.status).toBe(200);
  const back = new URL(decided.body.redirectTo);
  expect(back.searchParams.get('state')).toBe(extra.state ?? 'state-123');
  return back.searchParams.get('code') as string;
}

/** `POST /oauth/token` with `params` as a form. */
export function tokenRequest(t: TestApp, params: Record<string, string>): Promise<HttpAnswer> {
  return t.request('POST', '/oauth/token', {
    rawBody: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}
