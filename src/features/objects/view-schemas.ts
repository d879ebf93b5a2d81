/**
 * Object instances and search results as zod schemas (`ObjectView`, `ObjectDetail`, `SearchResult`):
 * what the data MCP tools declare as their `outputSchema` and must answer.
 */
import { z } from 'zod';
import { OBJECT_STATUSES } from './object-schemas.js';

/** An instance in lists (`ObjectView`). */
export const objectViewSchema = z.object({
  id: z.number().int(),
  type: z.string(),
  title: z.string(),
  status: z.enum(OBJECT_STATUSES),
  source: z.string().nullable(),
  externalId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  createdBy: z.string(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/** An instance with its content and linked documents (`ObjectDetail`). */
export const objectDetailSchema = objectViewSchema.extend({
  content: z.string(),
  url: z.string(),
  documents: z.array(
    z.object({
      id: z.number().int(),
      type: z.string(),
      title: z.string(),
      status: z.enum(OBJECT_STATUSES),
      relation: z.string(),
      direction: z.enum(['outgoing', 'incoming']),
      url: z.string(),
    }),
  ),
  runs: z.array(
    z.object({
      runId: z.number().int(),
      kind: z.enum(['skill', 'workflow']),
      slug: z.string(),
      status: z.string(),
      via: z.enum(['input', 'tool']),
    }),
  ),
});

/** One search result (`SearchResult`). */
export const searchResultSchema = z.object({
  id: z.number().int(),
  type: z.string(),
  title: z.string(),
  snippet: z.string(),
  score: z.number(),
  url: z.string(),
});
