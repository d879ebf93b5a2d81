/**
 * The source manifest (`sources/<slug>.yaml`): connector kind, connection, retrieval overrides.
 */
import { z } from 'zod';
import { descriptionSchema, nameSchema, slugSchema } from './manifest-fields.js';

/** Kinds of connector a source can use. Adding a connector adds its kind here. */
export const SOURCE_KINDS = ['http', 'crm', 'meetings', 'mail', 'files'] as const;
/** A source's connector kind. */
export type SourceKind = (typeof SOURCE_KINDS)[number];
/** Connection states a source reports. */
export const CONNECTION_STATES = ['connected', 'disconnected', 'error'] as const;

/**
 * Connection of a source: `state` plus free-form connector settings (base URL, account id, …).
 * Files are committed and exportable, so settings must not hold secrets in plain text.
 */
export const sourceConnectionSchema = z.looseObject({
  state: z.enum(CONNECTION_STATES).default('disconnected'),
});

/**
 * Per-source retrieval overrides for hybrid search; an absent field means "use the search service's
 * default" (see retrieval.ts for how they combine).
 * - `weight`: multiplier on the fused score of this source's documents (0 hides them from results).
 * - `ftsWeight`, `vectorWeight`: weights of the full-text and the vector ranking in the fusion for this
 *   source's documents.
 * - `maxAgeDays`: documents older than this are not returned.
 * - `recencyHalfLifeDays`: the score halves for every this many days of document age.
 */
export const sourceRetrievalSchema = z.strictObject({
  weight: z.number().min(0).optional(),
  ftsWeight: z.number().min(0).optional(),
  vectorWeight: z.number().min(0).optional(),
  maxAgeDays: z.number().int().positive().optional(),
  recencyHalfLifeDays: z.number().positive().optional(),
});
/** Retrieval overrides of a source. */
export type SourceRetrieval = z.output<typeof sourceRetrievalSchema>;

const sourceFields = {
  name: nameSchema,
  description: descriptionSchema,
  kind: z.enum(SOURCE_KINDS),
  connection: sourceConnectionSchema,
  retrieval: sourceRetrievalSchema,
};

/**
 * A source (`sources/<slug>.yaml`). Required: `slug`, `name`, `kind`. Defaults: description `''`,
 * connection `{state: 'disconnected'}`, retrieval `{}` (no overrides).
 */
export const sourceManifestSchema = z.strictObject({
  slug: slugSchema,
  name: sourceFields.name,
  description: sourceFields.description.default(''),
  kind: sourceFields.kind,
  connection: sourceFields.connection.default(() => ({ state: 'disconnected' as const })),
  retrieval: sourceFields.retrieval.default(() => ({})),
});
/** A validated source manifest. */
export type SourceManifest = z.output<typeof sourceManifestSchema>;

/** Any subset of a source's fields; `connection` and `retrieval` replace the whole object. */
export const sourceManifestPatchSchema = z.strictObject({ ...sourceFields, slug: slugSchema }).partial();
/** A source manifest patch. */
export type SourceManifestPatch = z.output<typeof sourceManifestPatchSchema>;
