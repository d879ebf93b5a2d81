/**
 * `/api/v1/objects/types`: list (schemas), detail with `sourceRelevance`, create; and, as an extension,
 * `PATCH` and `DELETE /objects/types/:slug`.
 */

import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { notFound } from '../../../platform/errors.js';
import { limitSchema, nextCursor, slugCursorSchema } from '../../../platform/http/pagination.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { slugParams } from '../manifest-fields.js';
import { objectTypeManifestPatchSchema, objectTypeManifestSchema } from '../object-type-manifest.js';
import type { WorkspaceServices } from '../services.js';
import { createAuthored, deleteAuthoredRoute, patchAuthored } from './authored.js';

export function objectTypeRoutes(s: Pick<WorkspaceServices, 'resources' | 'workspace'>): RouteDef[] {
  const detail = async (orgId: number, slug: string) => {
    const type = await s.resources.objectType(orgId, slug);
    if (!type) throw notFound('object type', slug);
    return type;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/objects/types',
      access: access.read,
      query: z.strictObject({ limit: limitSchema, cursor: slugCursorSchema.optional() }),
      summary: 'Object types of the org by slug, with their metadata schema: `{types, nextCursor}`.',
      handler: async ({ principal, query }) => {
        const page = await s.resources.listObjectTypes(principal.orgId, {
          limit: query.limit,
          after: query.cursor,
        });
        return ok({ types: page.items, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/objects/types/:slug',
      access: access.read,
      params: slugParams,
      summary: 'One object type with its `sourceRelevance` weights.',
      handler: async ({ principal, params }) => ok(await detail(principal.orgId, params.slug)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/objects/types',
      access: access.write,
      body: objectTypeManifestSchema,
      summary: 'Creates an object type (201 with its detail; 409 when the slug exists).',
      handler: async ({ principal, body, requestId }) => {
        await createAuthored(s, principal, requestId, { kind: 'object_type', manifest: body });
        return json(201, await detail(principal.orgId, body.slug));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/objects/types/:slug',
      access: access.write,
      params: slugParams,
      body: objectTypeManifestPatchSchema,
      summary: 'Extension: updates any subset of an object type’s fields.',
      handler: async ({ principal, params, body, requestId }) => {
        await patchAuthored(s, principal, requestId, 'object_type', params.slug, body);
        return ok(await detail(principal.orgId, params.slug));
      },
    }),
    deleteAuthoredRoute(s, 'object_type', '/api/v1/objects/types'),
  ];
}
