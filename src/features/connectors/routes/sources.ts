/**
 * `/api/v1/sources`: list with connection state, detail with retrieval overrides, and
 * `POST /sources/:slug/reindex` (202, background). Extensions: `POST /sources`, `PATCH /sources/:slug`,
 * and `GET /sources/:slug/reindex/:id` to follow a reindex. Every view carries the connection fields
 * (source-views.ts); credentials, checks and syncs are in connections.ts.
 */
import { z } from 'zod';
import { attributionOf } from '../../../platform/auth/attribution.js';
import { access } from '../../../platform/auth/guard.js';
import { notFound } from '../../../platform/errors.js';
import { limitSchema, nextCursor, slugCursorSchema } from '../../../platform/http/pagination.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import {
  createAuthored,
  patchAuthored,
  reindexFilterSchema,
  slugParams,
  sourceManifestPatchSchema,
  sourceManifestSchema,
} from '../../workspace/index.js';
import type { ConnectorServices } from '../services.js';
import { withConnections } from '../source-views.js';

/** The body docs/api.md gives: `{filter?: {types?, updatedSince?, ids?}}`. */
const reindexBodySchema = z.strictObject({ filter: reindexFilterSchema.optional() });

export function sourceRoutes(s: ConnectorServices): RouteDef[] {
  const detail = async (orgId: number, slug: string) => {
    const source = await s.resources.source(orgId, slug);
    if (!source) throw notFound('source', slug);
    const [withConnection] = await withConnections(s.connections, orgId, [source]);
    return withConnection;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/sources',
      access: access.read,
      query: z.strictObject({ limit: limitSchema, cursor: slugCursorSchema.optional() }),
      summary: 'Configured sources with their `connectionState`: `{sources, nextCursor}`.',
      handler: async ({ principal, query }) => {
        const page = await s.resources.listSources(principal.orgId, {
          limit: query.limit,
          after: query.cursor,
        });
        const sources = await withConnections(s.connections, principal.orgId, page.items);
        return ok({ sources, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/sources/:slug',
      access: access.read,
      params: slugParams,
      summary: 'One source: connection, retrieval overrides and the effective retrieval settings.',
      handler: async ({ principal, params }) => ok(await detail(principal.orgId, params.slug)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/sources',
      access: access.write,
      body: sourceManifestSchema,
      summary: 'Extension: creates a source (201 with its detail; 409 when the slug exists).',
      handler: async ({ principal, body, requestId }) => {
        await createAuthored(s, principal, requestId, { kind: 'source', manifest: body });
        return json(201, await detail(principal.orgId, body.slug));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/sources/:slug',
      access: access.write,
      params: slugParams,
      body: sourceManifestPatchSchema,
      summary: 'Extension: updates any subset of a source’s fields (connection, retrieval, …).',
      handler: async ({ principal, params, body, requestId }) => {
        await patchAuthored(s, principal, requestId, 'source', params.slug, body);
        return ok(await detail(principal.orgId, params.slug));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/sources/:slug/reindex',
      access: access.write,
      params: slugParams,
      body: reindexBodySchema,
      summary: 'Queues a reindex of the source’s documents, optionally filtered: 202 with `reindexId`.',
      handler: async ({ principal, params, body, requestId }) => {
        const run = await s.reindex.request(
          principal.orgId,
          attributionOf(principal, requestId),
          params.slug,
          body.filter ?? {},
        );
        return json(202, run, run.statusUrl ? { Location: run.statusUrl } : undefined);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/sources/:slug/reindex/:id',
      access: access.read,
      params: slugParams.extend({ id: z.string() }),
      summary: 'Extension: progress of one reindex of the source.',
      handler: async ({ principal, params }) => {
        const id = /^[1-9]\d{0,15}$/.test(params.id) ? Number(params.id) : 0;
        const run = id ? await s.reindex.get(principal.orgId, id) : null;
        if (!run || run.source !== params.slug) throw notFound('reindex', params.id);
        return ok(run);
      },
    }),
  ];
}
