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
 * The record kinds each kind's connector syncs (what `sync.objectTypes` may map). Adding a connector
 * adds its record kinds here.
 */
export const SOURCE_RECORD_KINDS: Readonly<Record<SourceKind, readonly string[]>> = {
  http: [],
  files: [],
  crm: ['deal', 'contact', 'company'],
  mail: ['thread'],
  meetings: ['meeting'],
};

/** Longest sync interval: a week. */
const MAX_SYNC_MINUTES = 7 * 24 * 60;

/**
 * What a connector syncs: `objectTypes` maps record kinds (see {@link SOURCE_RECORD_KINDS}) to object
 * types, each type at most once; `everyMinutes` schedules the sync (absent: only on request).
 */
export const sourceSyncSchema = z.strictObject({
  objectTypes: z.record(z.string(), slugSchema).default({}),
  everyMinutes: z.number().int().min(1).max(MAX_SYNC_MINUTES).optional(),
});
/** The sync settings of a source. */
export type SourceSync = z.output<typeof sourceSyncSchema>;

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
  sync: sourceSyncSchema,
};

/** Issues of `sync` for a source of `kind`: record kinds it cannot sync, a type mapped twice. */
function checkSync(
  manifest: { kind?: SourceKind | undefined; sync?: SourceSync | undefined },
  ctx: z.RefinementCtx,
): void {
  if (!manifest.sync || !manifest.kind) return;
  const allowed = SOURCE_RECORD_KINDS[manifest.kind];
  const seen = new Map<string, string>();
  for (const [record, type] of Object.entries(manifest.sync.objectTypes)) {
    if (!allowed.includes(record)) {
      ctx.addIssue({
        code: 'custom',
        path: ['sync', 'objectTypes', record],
        message:
          allowed.length === 0
            ? `sources of kind "${manifest.kind}" sync nothing`
            : `a ${manifest.kind} source syncs ${allowed.join(', ')}, not "${record}"`,
      });
    }
    const other = seen.get(type);
    if (other !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['sync', 'objectTypes', record],
        message: `object type "${type}" is already mapped from "${other}": map each record kind to its own type`,
      });
    }
    seen.set(type, record);
  }
}

/**
 * A source (`sources/<slug>.yaml`). Required: `slug`, `name`, `kind`. Defaults: description `''`,
 * connection `{state: 'disconnected'}`, retrieval `{}` (no overrides), sync absent (nothing synced).
 */
export const sourceManifestSchema = z
  .strictObject({
    slug: slugSchema,
    name: sourceFields.name,
    description: sourceFields.description.default(''),
    kind: sourceFields.kind,
    connection: sourceFields.connection.default(() => ({ state: 'disconnected' as const })),
    retrieval: sourceFields.retrieval.default(() => ({})),
    sync: sourceFields.sync.optional(),
  })
  .superRefine(checkSync);
/** A validated source manifest. */
export type SourceManifest = z.output<typeof sourceManifestSchema>;

/**
 * Any subset of a source's fields; `connection`, `retrieval` and `sync` replace the whole object
 * (`sync` is checked against the kind once the patch is applied).
 */
export const sourceManifestPatchSchema = z.strictObject({ ...sourceFields, slug: slugSchema }).partial();
