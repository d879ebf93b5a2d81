/** `/api/v1/workflows`: list, detail (trigger, steps, inputSchema), create, update, delete. */

import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { notFound } from '../../../platform/errors.js';
import { limitSchema, nextCursor, slugCursorSchema } from '../../../platform/http/pagination.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { slugParams } from '../manifest-fields.js';
import type { WorkspaceServices } from '../services.js';
import { workflowManifestPatchSchema, workflowManifestSchema } from '../workflow-manifest.js';
import { createAuthored, deleteAuthoredRoute, patchAuthored } from './authored.js';

export function workflowRoutes(s: Pick<WorkspaceServices, 'resources' | 'workspace'>): RouteDef[] {
  const detail = async (orgId: number, slug: string) => {
    const workflow = await s.resources.workflow(orgId, slug);
    if (!workflow) throw notFound('workflow', slug);
    return workflow;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/workflows',
      access: access.read,
      query: z.strictObject({ limit: limitSchema, cursor: slugCursorSchema.optional() }),
      summary: 'Workflows of the org by slug (slug, name, description, trigger): `{workflows, nextCursor}`.',
      handler: async ({ principal, query }) => {
        const page = await s.resources.listWorkflows(principal.orgId, {
          limit: query.limit,
          after: query.cursor,
        });
        return ok({ workflows: page.items, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/workflows/:slug',
      access: access.read,
      params: slugParams,
      summary: 'One workflow’s full manifest: trigger, inputSchema, steps.',
      handler: async ({ principal, params }) => ok(await detail(principal.orgId, params.slug)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/workflows',
      access: access.write,
      body: workflowManifestSchema,
      summary: 'Creates a workflow (201 with its detail; 409 when the slug exists).',
      handler: async ({ principal, body, requestId }) => {
        await createAuthored(s, principal, requestId, { kind: 'workflow', manifest: body });
        return json(201, await detail(principal.orgId, body.slug));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/workflows/:slug',
      access: access.write,
      params: slugParams,
      body: workflowManifestPatchSchema,
      summary: 'Updates any subset of a workflow’s fields (trigger, steps, inputSchema, name, description).',
      handler: async ({ principal, params, body, requestId }) => {
        await patchAuthored(s, principal, requestId, 'workflow', params.slug, body);
        return ok(await detail(principal.orgId, params.slug));
      },
    }),
    deleteAuthoredRoute(s, 'workflow', '/api/v1/workflows'),
  ];
}
