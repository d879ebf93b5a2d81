/**
 * The authorization server's routes (docs/api.md#sign-in-with-oauth): `POST /oauth/register`,
 * `GET /oauth/authorize`, `POST /oauth/token` (OAuth's wire formats: JSON registration, a form for the
 * token request, `{error, error_description}` refusals), and the consent page's two API calls
 * (`/api/v1/oauth/requests/:id`, r3's conventions). The public ones are charged to the caller's
 * address like any anonymous call.
 */
import {
  OAuthClientInformationFullSchema,
  OAuthClientRegistrationErrorSchema,
  OAuthErrorResponseSchema,
  OAuthTokensSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { SCOPES } from '../../platform/auth/principal.js';
import { forbidden } from '../../platform/errors.js';
import { inputIssues } from '../../platform/http/input-guard.js';
import { json, ok, type RawReply, raw } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import type { OAuthClients } from './clients.js';
import { failureReply, OAUTH_HEADERS, OAuthFailure } from './errors.js';
import { type OAuthGrants, RedirectedFailure } from './grants.js';
import { DISCOVERY_PATHS, OAUTH_PATHS } from './metadata.js';

const redirect = (location: string): RawReply => ({
  kind: 'raw',
  status: 302,
  body: '',
  contentType: 'text/plain; charset=utf-8',
  headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' },
});

const optional = z.string().optional();
const authorizeQuery = z.looseObject({
  response_type: optional.describe('`code`'),
  client_id: optional.describe('A registered client id, or the https URL of a Client ID Metadata Document.'),
  redirect_uri: optional.describe("Exactly one of the client's redirect URIs."),
  code_challenge: optional.describe('PKCE: base64url SHA-256 of the verifier.'),
  code_challenge_method: optional.describe('`S256` (plain is refused).'),
  state: optional.describe('Returned unchanged with the code or the error.'),
  scope: optional.describe("Space-separated r3 scopes (default: the client's, else read:all run:invoke)."),
  resource: optional.describe('`{BASE_URL}/api/mcp` (RFC 8707).'),
});

const requestViewSchema = z.object({
  id: z.string(),
  client: z.object({
    id: z.string(),
    name: z.string(),
    uri: z.string().nullable(),
    kind: z.enum(['registered', 'document']),
  }),
  redirectUri: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  granted: z.array(z.enum(SCOPES)),
  expiresAt: z.iso.datetime(),
  status: z.enum(['pending', 'allowed', 'denied', 'expired']),
});

/**
 * The CORS preflight of the discovery documents and the public endpoints a browser-based client
 * calls (with JSON, or MCP's `MCP-Protocol-Version` header, a cross-origin request asks first).
 */
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, MCP-Protocol-Version',
  'Access-Control-Max-Age': '86400',
};

/** The paths a browser-based client reaches across origins. */
const CROSS_ORIGIN_PATHS = [...Object.values(DISCOVERY_PATHS), OAUTH_PATHS.register, OAUTH_PATHS.token];

/** The form of a token request: each parameter once (RFC 6749 §3.2), as storable text. */
function tokenParams(contentType: string | undefined, body: Buffer): Record<string, string> {
  if (!(contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw new OAuthFailure('invalid_request', 'The token request must be application/x-www-form-urlencoded.');
  }
  const params: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body.toString('utf8'))) {
    if (key in params) throw new OAuthFailure('invalid_request', `${key} is given more than once.`);
    params[key] = value;
  }
  const issues = inputIssues(params, 'body');
  if (issues.length > 0)
    throw new OAuthFailure('invalid_request', `${issues[0]?.field} ${issues[0]?.message}.`);
  return params;
}

/** The routes over `clients` and `grants`. */
export function oauthRoutes(clients: OAuthClients, grants: OAuthGrants): RouteDef[] {
  return [
    ...CROSS_ORIGIN_PATHS.map((path) =>
      defineRoute({
        method: 'OPTIONS',
        path,
        access: access.public,
        hidden: true,
        handler: () => raw(204, '', 'text/plain; charset=utf-8', PREFLIGHT_HEADERS),
      }),
    ),
    defineRoute({
      method: 'POST',
      path: OAUTH_PATHS.register,
      access: access.public,
      limitByAddress: true,
      rawBody: true,
      summary:
        "Dynamic client registration (RFC 7591): a public client (token_endpoint_auth_method none) with its redirect URIs (https; http only on a loopback host; or an app's own scheme).",
      responses: {
        201: { description: 'The client, with its client_id.', schema: OAuthClientInformationFullSchema },
        400: {
          description: 'invalid_redirect_uri or invalid_client_metadata.',
          schema: OAuthClientRegistrationErrorSchema,
        },
      },
      handler: async ({ rawBody }) => {
        try {
          let body: unknown;
          try {
            body = JSON.parse(rawBody.toString('utf8'));
          } catch {
            throw new OAuthFailure(
              'invalid_client_metadata',
              'The body must be the client metadata as JSON.',
            );
          }
          const issues = inputIssues(body, 'body');
          if (issues.length > 0) {
            throw new OAuthFailure('invalid_client_metadata', `${issues[0]?.field} ${issues[0]?.message}.`);
          }
          return json(201, await clients.register(body), OAUTH_HEADERS);
        } catch (error) {
          if (error instanceof OAuthFailure) return failureReply(error);
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: OAUTH_PATHS.authorize,
      access: access.public,
      limitByAddress: true,
      query: authorizeQuery,
      summary:
        "Start signing in (authorization code, PKCE S256): redirects to the web UI's consent page, or back to the client's redirect_uri with error and state.",
      responses: {
        302: { description: 'To the consent page, or to redirect_uri with `error`.' },
      },
      handler: async ({ query }) => {
        try {
          return redirect(await grants.authorize(query));
        } catch (error) {
          if (error instanceof RedirectedFailure) return redirect(error.location);
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: OAUTH_PATHS.token,
      access: access.public,
      limitByAddress: true,
      rawBody: true,
      rawBodyType: 'application/x-www-form-urlencoded',
      summary:
        'The token endpoint (form-encoded): grant_type authorization_code (code, redirect_uri, client_id, code_verifier) or refresh_token (refresh_token, client_id; rotating). Access tokens are r3 API tokens of the person, 1 hour.',
      responses: {
        200: { description: 'The tokens.', schema: OAuthTokensSchema },
        400: {
          description: 'An OAuth error (invalid_grant, invalid_request, …).',
          schema: OAuthErrorResponseSchema,
        },
        401: { description: 'invalid_client.', schema: OAuthErrorResponseSchema },
      },
      handler: async ({ headers, rawBody, requestId }) => {
        try {
          if (headers.authorization) {
            throw new OAuthFailure(
              'invalid_client',
              "r3's clients are public: send client_id in the form, no credentials.",
            );
          }
          const params = tokenParams(headers['content-type'], rawBody);
          switch (params.grant_type) {
            case 'authorization_code':
              return json(200, await grants.exchangeCode(params, requestId), OAUTH_HEADERS);
            case 'refresh_token':
              return json(200, await grants.refresh(params, requestId), OAUTH_HEADERS);
            case undefined:
              throw new OAuthFailure('invalid_request', 'grant_type is required.');
            default:
              throw new OAuthFailure(
                'unsupported_grant_type',
                'grant_type must be authorization_code or refresh_token.',
              );
          }
        } catch (error) {
          if (error instanceof OAuthFailure) return failureReply(error);
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/oauth/requests/:id',
      access: access.authenticated,
      params: z.object({ id: z.string().max(100) }),
      summary:
        'The consent page: an authorization request — the client, the scopes asked, those the caller would grant, its status.',
      responses: { 200: { description: 'The request.', schema: z.object({ request: requestViewSchema }) } },
      handler: async ({ principal, params }) => ok({ request: await grants.request(principal, params.id) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/oauth/requests/:id/decision',
      access: access.authenticated,
      params: z.object({ id: z.string().max(100) }),
      body: z.strictObject({ allow: z.boolean() }),
      summary:
        "The consent page's Allow / Deny (a browser session only): answers the client's redirect URI the browser goes to, with the code or error=access_denied.",
      responses: {
        200: {
          description: 'Where the browser goes.',
          schema: z.object({ redirectTo: z.string(), request: requestViewSchema }),
        },
      },
      errors: [403],
      handler: async ({ principal, params, body, headers, requestId }) => {
        if (headers.authorization) {
          throw forbidden('An app is authorized by a person signed in to the web UI, not with a token.', {
            reason: 'session_required',
          });
        }
        const decided = await grants.decide(principal, params.id, body.allow, requestId);
        return ok({ redirectTo: decided.redirectTo, request: decided.view });
      },
    }),
  ];
}
