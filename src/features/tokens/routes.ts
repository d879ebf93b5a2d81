/** `/api/v1/tokens`: list the caller's visible tokens and revoke one (decisions §3). */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { ok } from '../../platform/http/reply.js';
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

/** The token routes over `tokens`. */
export function tokenRoutes(tokens: TokenService): RouteDef[] {
  return [
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
