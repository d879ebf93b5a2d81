/**
 * What queues a reindex pass, as the workspace write path sees it: a pass is queued inside the caller's
 * transaction (so it exists exactly when the write that needs it commits), and the workers are told
 * after the commit. ReindexService implements it on the job queue (src/platform/jobs).
 */
import { z } from 'zod';
import type { Sql } from '../../platform/db/sql.js';
import { slugSchema } from './manifest-fields.js';

/**
 * Which documents a pass covers (all given conditions hold): `types` = object type slugs,
 * `updatedSince` = instances updated at or after this time, `ids` = instance ids.
 */
export const reindexFilterSchema = z.strictObject({
  types: z.array(slugSchema).min(1).max(100).optional(),
  updatedSince: z.iso.datetime({ offset: true }).optional(),
  ids: z.array(z.number().int().positive()).min(1).max(10_000).optional(),
});
/** A reindex filter. */
export type ReindexFilter = z.output<typeof reindexFilterSchema>;

/** What a queued pass needs. */
export interface ReindexRequest {
  orgId: number;
  /** The source whose documents are reindexed; null = every document of the org that matches. */
  sourceSlug: string | null;
  filter: ReindexFilter;
  requestedBy: string;
  apiTokenId: string | null;
  at: Date;
}

export interface ReindexQueue {
  /** Queues a pass in the caller's transaction; resolves with its id. */
  enqueueIn(sql: Sql, request: ReindexRequest): Promise<number>;
  /** Wakes the workers; call after the transaction that queued passes committed. */
  notify(): void;
}
