/**
 * `/api/v1/missions`: list, detail (goal, team, planner, review, limits), create, update, delete
 * (docs/api.md#missions).
 */

import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { notFound } from '../../../platform/errors.js';
import { limitSchema, nextCursor, slugCursorSchema } from '../../../platform/http/pagination.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import {
  createAuthored,
  deleteAuthoredRoute,
  missionManifestPatchSchema,
  missionManifestSchema,
  patchAuthored,
  slugParams,
  type WorkspaceServices,
} from '../../workspace/index.js';

export function missionRoutes(s: Pick<WorkspaceServices, 'resources' | 'workspace'>): RouteDef[] {
  const detail = async (orgId: number, slug: string) => {
    const mission = await s.resources.mission(orgId, slug);
    if (!mission) throw notFound('mission', slug);
    return mission;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/missions',
      access: access.read,
      query: z.strictObject({ limit: limitSchema, cursor: slugCursorSchema.optional() }),
      summary: 'Missions of the org by slug (slug, name, description): `{missions, nextCursor}`.',
      handler: async ({ principal, query }) => {
        const page = await s.resources.listMissions(principal.orgId, {
          limit: query.limit,
          after: query.cursor,
        });
        return ok({ missions: page.items, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/missions/:slug',
      access: access.read,
      params: slugParams,
      summary: 'One mission’s manifest: goal, inputSchema, team, planner, review, limits.',
      handler: async ({ principal, params }) => ok(await detail(principal.orgId, params.slug)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/missions',
      access: access.write,
      body: missionManifestSchema,
      summary:
        'Creates a mission (201 with its detail; 409 when the slug exists; 400 when a team agent is unknown or inactive).',
      handler: async ({ principal, body, requestId }) => {
        await createAuthored(s, principal, requestId, { kind: 'mission', manifest: body });
        return json(201, await detail(principal.orgId, body.slug));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/missions/:slug',
      access: access.write,
      params: slugParams,
      body: missionManifestPatchSchema,
      summary: 'Updates any subset of a mission’s fields (goal, team, planner, review, limits, …).',
      handler: async ({ principal, params, body, requestId }) => {
        await patchAuthored(s, principal, requestId, 'mission', params.slug, body);
        return ok(await detail(principal.orgId, params.slug));
      },
    }),
    deleteAuthoredRoute(s, 'mission', '/api/v1/missions'),
  ];
}
