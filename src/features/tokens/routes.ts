/** `/api/v1/tokens`: list the caller's visible tokens and revoke one (decisions §3). */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { ok } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import type { TokenService } from './service.js';

/** The token routes over `tokens`. */
export function tokenRoutes(tokens: TokenService): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/tokens',
      access: access.read,
      summary: "Tokens of the caller's org (owners) or of the caller's user (everyone else); never secrets.",
      handler: async ({ principal }) => ok({ tokens: await tokens.listFor(principal) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/tokens/:id',
      access: access.authenticated,
      params: z.object({ id: z.string() }),
      summary: 'Revoke a token at once: the token itself, or any token of the org for an owner.',
      handler: async ({ principal, params, requestId }) =>
        ok(await tokens.revokeAs(principal, params.id, requestId)),
    }),
  ];
}
