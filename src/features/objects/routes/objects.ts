/**
 * `/api/v1/objects`: instances — list (type, status), detail with linked `documents`, ingest
 * (`POST /objects/:slug/instances`, scope run:invoke), update (metadata, status; title and content too).
 */

import { z } from 'zod';
import { attributionOf } from '../../../platform/auth/attribution.js';
import { access } from '../../../platform/auth/guard.js';
import { notFound } from '../../../platform/errors.js';
import { idCursorSchema, limitSchema, nextCursor } from '../../../platform/http/pagination.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { slugParams } from '../../workspace/index.js';
import { ingestBodySchema, OBJECT_STATUSES, objectPatchBodySchema } from '../object-schemas.js';
import type { ObjectServices } from '../services.js';
import { objectDetailSchema } from '../view-schemas.js';

const idParams = z.object({ id: z.string() });

/** An instance id from the path; anything that is not one is an unknown id (404). */
function objectId(raw: string): number {
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw notFound('object', raw);
  return id;
}

export function objectRoutes(s: ObjectServices): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/objects',
      access: access.read,
      query: z.strictObject({
        type: z.string().min(1).max(63).optional(),
        status: z.enum(OBJECT_STATUSES).optional(),
        limit: limitSchema,
        cursor: idCursorSchema.optional(),
      }),
      summary:
        'Instances of the org, newest first, optionally of one type and/or status: `{objects, nextCursor}`.',
      handler: async ({ principal, query }) => {
        const page = await s.objects.list(
          principal.orgId,
          { type: query.type, status: query.status },
          { limit: query.limit, afterId: query.cursor },
        );
        return ok({ objects: page.items, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/objects/:id',
      access: access.read,
      params: idParams,
      summary: 'One instance with its content, its linked `documents` and the `runs` that used it.',
      responses: { 200: { description: 'The instance.', schema: objectDetailSchema } },
      handler: async ({ principal, params }) => {
        const id = objectId(params.id);
        const detail = await s.objects.get(principal.orgId, id);
        if (!detail) throw notFound('object', id);
        return ok(detail);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/objects/:slug/instances',
      access: access.invoke,
      params: slugParams,
      body: ingestBodySchema,
      summary:
        'Ingests an instance of type `slug`: 201 `{id, slug, title, createdAt}`; indexed for search at once.',
      handler: async ({ principal, params, body, requestId }) =>
        json(
          201,
          await s.objects.ingestObject(
            principal.orgId,
            attributionOf(principal, requestId),
            params.slug,
            body,
          ),
        ),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/objects/:id',
      access: access.write,
      params: idParams,
      body: objectPatchBodySchema,
      summary: 'Updates metadata (replaced whole) or status; title and content too. Answers the detail.',
      handler: async ({ principal, params, body, requestId }) =>
        ok(
          await s.objects.update(
            principal.orgId,
            attributionOf(principal, requestId),
            objectId(params.id),
            body,
          ),
        ),
    }),
  ];
}
