/** `/api/v1/tokens`: list the caller's visible tokens and revoke one (docs/api.md "Scopes"). */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { DEFAULT_SCOPES, SCOPES } from '../../platform/auth/principal.js';
import { forbidden } from '../../platform/errors.js';
import { json, ok } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import type { TokenService } from './service.js';

const iso = z.iso.datetime();

/** `TokenView` as a schema. */
const tokenViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  userId: z.string(),
  role: z.string(),
  scope: z.string(),
  createdAt: iso,
  expiresAt: iso.nullable(),
  revokedAt: iso.nullable(),
  lastUsedAt: iso.nullable(),
});

const createBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scope: z
    .array(z.enum(SCOPES))
    .min(1)
    .max(SCOPES.length)
    .default(() => [...DEFAULT_SCOPES]),
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
  userId: z.string().min(1).max(128).optional(),
});

const createdSchema = z.object({
  id: z.string(),
  token: z.string(),
  org: z.string(),
  userId: z.string(),
  role: z.string(),
  scope: z.string(),
  expiresAt: iso.nullable(),
});

/** The token routes over `tokens`. */
export function tokenRoutes(tokens: TokenService): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/tokens',
      access: access.authenticated,
      body: createBodySchema,
      summary:
        'Issue a token from the web UI (a browser session only: a Bearer token cannot issue tokens). For the caller, or for a user of the org (owners signed in by link); scopes the caller holds; from a pasted token’s session no later expiry than that token’s, revoked with it; the plaintext is in this answer only.',
      responses: {
        201: { description: 'The token, with its plaintext (shown once).', schema: createdSchema },
      },
      errors: [403],
      handler: async ({ principal, body, headers, requestId }) => {
        if (headers.authorization) {
          throw forbidden('Tokens are issued from the web UI or with `r3 token create`, not with a token.', {
            reason: 'session_required',
          });
        }
        const scopes = [...new Set(body.scope)];
        const created = await tokens.createAs(
          principal,
          {
            name: body.name,
            scopes,
            expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
            userId: body.userId,
          },
          requestId,
        );
        return json(201, created);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/tokens',
      access: access.read,
      summary: "Tokens of the caller's org (owners) or of the caller's user (everyone else); never secrets.",
      responses: {
        200: { description: 'The tokens.', schema: z.object({ tokens: z.array(tokenViewSchema) }) },
      },
      handler: async ({ principal }) => ok({ tokens: await tokens.listFor(principal) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/tokens/:id',
      access: access.authenticated,
      params: z.object({ id: z.string() }),
      summary: 'Revoke a token at once: the token itself, or any token of the org for an owner.',
      responses: { 200: { description: 'The revoked token.', schema: tokenViewSchema } },
      errors: [403],
      handler: async ({ principal, params, requestId }) =>
        ok(await tokens.revokeAs(principal, params.id, requestId)),
    }),
  ];
}
