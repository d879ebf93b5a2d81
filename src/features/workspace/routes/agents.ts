/** `/api/v1/agents`: list, detail (with the wired skills and workflows), create, update, delete (docs/api.md "Authored resources"). */

import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { notFound } from '../../../platform/errors.js';
import { limitSchema, nextCursor, slugCursorSchema } from '../../../platform/http/pagination.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { agentManifestPatchSchema, agentManifestSchema } from '../agent-manifest.js';
import { slugParams } from '../manifest-fields.js';
import type { WorkspaceServices } from '../services.js';
import { createAuthored, deleteAuthoredRoute, patchAuthored } from './authored.js';

export function agentRoutes(s: Pick<WorkspaceServices, 'resources' | 'workspace'>): RouteDef[] {
  const detail = async (orgId: number, slug: string) => {
    const agent = await s.resources.agent(orgId, slug);
    if (!agent) throw notFound('agent', slug);
    return agent;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/agents',
      access: access.readSkills,
      query: z.strictObject({ limit: limitSchema, cursor: slugCursorSchema.optional() }),
      summary: 'Agents of the org by slug: `{agents, nextCursor}`.',
      handler: async ({ principal, query }) => {
        const page = await s.resources.listAgents(principal.orgId, {
          limit: query.limit,
          after: query.cursor,
        });
        return ok({ agents: page.items, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/agents/:slug',
      access: access.readSkills,
      params: slugParams,
      summary: 'One agent with its system prompt and its wired `skills` and `workflows`.',
      handler: async ({ principal, params }) => ok(await detail(principal.orgId, params.slug)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/agents',
      access: access.write,
      body: agentManifestSchema,
      summary: 'Creates an agent (201 with its detail; 409 when the slug exists).',
      handler: async ({ principal, body, requestId }) => {
        await createAuthored(s, principal, requestId, { kind: 'agent', manifest: body });
        return json(201, await detail(principal.orgId, body.slug));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/agents/:slug',
      access: access.write,
      params: slugParams,
      body: agentManifestPatchSchema,
      summary: 'Updates any subset of an agent’s fields, the system prompt included.',
      handler: async ({ principal, params, body, requestId }) => {
        await patchAuthored(s, principal, requestId, 'agent', params.slug, body);
        return ok(await detail(principal.orgId, params.slug));
      },
    }),
    deleteAuthoredRoute(s, 'agent', '/api/v1/agents'),
  ];
}
