/**
 * Wire schemas of object instances, shared by REST and MCP: the ingest body, the patch body and the
 * instance views. `metadata` is free-form here (its object type's JSON Schema checks it).
 */
import { z } from 'zod';
import { slugSchema } from '../workspace/index.js';

/** Instance statuses: archived instances stay listed but leave search. */
export const OBJECT_STATUSES = ['active', 'archived'] as const;
export type ObjectStatus = (typeof OBJECT_STATUSES)[number];

const titleSchema = z.string().min(1).max(1_000).regex(/\S/, 'must not be blank');
const contentSchema = z.string().max(1_000_000);
const metadataSchema = z.record(z.string(), z.unknown());
const relationSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'must be 1-64 lowercase letters, digits, "_", "." or "-"');

/** A link from a new instance to an existing one (its linked document). */
export const objectLinkSchema = z.strictObject({
  id: z.number().int().positive(),
  relation: relationSchema.default('related'),
});

/**
 * Body of `POST /objects/:slug/instances`: `title`, `metadata`, `content`
 * (docs/api.md#object-instances-and-search), plus the optional
 * `source` (slug of the source it came from, which selects the retrieval overrides) and `links`.
 */
export const ingestBodySchema = z.strictObject({
  title: titleSchema,
  content: contentSchema.default(''),
  metadata: metadataSchema.default(() => ({})),
  source: slugSchema.optional(),
  links: z.array(objectLinkSchema).max(100).optional(),
});
export type IngestBody = z.output<typeof ingestBodySchema>;

/** Body of `PATCH /objects/:id`: metadata (replaced whole) or status; title and content also re-index. */
export const objectPatchBodySchema = z
  .strictObject({
    metadata: metadataSchema.optional(),
    status: z.enum(OBJECT_STATUSES).optional(),
    title: titleSchema.optional(),
    content: contentSchema.optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    message: 'name at least one of metadata, status, title, content',
  });
export type ObjectPatch = z.output<typeof objectPatchBodySchema>;
