/**
 * Signing in and out from a browser (docs/api.md#browser-sessions-the-web-ui): `POST /api/v1/sessions`
 * starts a session from a sign-in link's code or a pasted API token and sets the cookie; `GET
 * /api/v1/session` says who the caller is (with the CSRF token a session's state-changing requests must
 * send);
 * `DELETE /api/v1/session` signs out.
 */
import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { SCOPES } from '../../../platform/auth/principal.js';
import { validationFailed } from '../../../platform/errors.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { clearedSessionCookie, sessionCookie } from './cookies.js';
import { checkOrigin } from './csrf.js';
import { bearerView, type SessionService } from './session-service.js';

const sessionViewSchema = z.object({
  id: z.string().nullable(),
  org: z.string(),
  userId: z.string(),
  role: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  canApprove: z.boolean(),
  via: z.enum(['link', 'token', 'bearer']),
  tokenId: z.string().nullable(),
  csrfToken: z.string().nullable(),
});

const signInSchema = z.strictObject({
  link: z.string().min(1).max(200).optional(),
  token: z.string().min(1).max(200).optional(),
});

/** The session routes over `sessions`; `secure` marks the cookie Secure (BASE_URL is https). */
export function sessionRoutes(sessions: SessionService, baseUrl: () => string): RouteDef[] {
  const secure = () => baseUrl().startsWith('https:');
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/sessions',
      access: access.public,
      // Charged to the address: a sign-in attempt, good or not, is limited like any anonymous call.
      limitByAddress: true,
      body: signInSchema,
      summary:
        'Browser sign-in: start a session from a sign-in link code (`link`) or a pasted API token (`token`); sets the HttpOnly session cookie. Needs a same-origin Origin.',
      responses: { 201: { description: 'The session.', schema: z.object({ session: sessionViewSchema }) } },
      errors: [401, 403],
      handler: async ({ body, headers }) => {
        // Login CSRF: a page of another site must not sign the browser in as someone else.
        checkOrigin(headers, baseUrl());
        if ((body.link === undefined) === (body.token === undefined)) {
          throw validationFailed([{ field: 'body', message: 'send exactly one of link or token' }]);
        }
        const started =
          body.link !== undefined
            ? await sessions.signInWithLink(body.link)
            : await sessions.signInWithToken(body.token as string);
        return json(
          201,
          { session: started.view },
          { 'Set-Cookie': sessionCookie(started.cookie, secure()) },
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/session',
      access: access.authenticated,
      summary: 'Who the caller is: the session (with its CSRF token), or the Bearer token’s principal.',
      responses: { 200: { description: 'The caller.', schema: z.object({ session: sessionViewSchema }) } },
      handler: async ({ headers, principal }) => {
        const view = headers.authorization ? null : await sessions.viewOf(headers);
        return ok({ session: view ?? bearerView(principal) });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/session',
      access: access.authenticated,
      summary: 'Sign out: ends the browser session server-side and clears its cookie.',
      responses: { 200: { description: 'Signed out.', schema: z.object({ signedOut: z.boolean() }) } },
      handler: async ({ headers }) => {
        const signedOut = headers.authorization ? false : await sessions.signOut(headers);
        return ok({ signedOut }, { 'Set-Cookie': clearedSessionCookie(secure()) });
      },
    }),
  ];
}
