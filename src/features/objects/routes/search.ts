/**
 * `GET /api/v1/search?q=&types=&limit=` (an extension; the REST twin of MCP `search_query`): hybrid
 * full-text and vector retrieval over object instances, see src/features/objects/search/search-service.ts.
 */
import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { slugSchema } from '../../workspace/index.js';
import { MAX_SEARCH_LIMIT } from '../search/search-service.js';
import type { ObjectServices } from '../services.js';

/** `types=a,b` or `types=a&types=b`. */
const typesSchema = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).filter(Boolean))
  .pipe(z.array(slugSchema).max(50));

export function searchRoutes(s: ObjectServices): RouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/search',
      access: access.read,
      query: z.strictObject({
        q: z.string().max(1_000).regex(/\S/, 'must not be blank'),
        types: typesSchema.optional(),
        limit: z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT).optional(),
      }),
      summary: 'Hybrid search over object instances: `{results: [{id, type, title, snippet, score, url}]}`.',
      handler: async ({ principal, query }) =>
        ok(await s.search.search(principal.orgId, query.q, { types: query.types, limit: query.limit })),
    }),
  ];
}
