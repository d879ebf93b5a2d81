/**
 * The object type manifest (`object-types/<slug>.yaml`).
 */
import { z } from 'zod';
import { descriptionSchema, jsonSchemaSchema, nameSchema, slugSchema } from './manifest-fields.js';

/** The text-search configuration instances of a type are indexed with when the manifest names none. */
export const DEFAULT_OBJECT_LANGUAGE = 'english';

/**
 * A PostgreSQL text-search configuration name (`english`, `german`, `simple`, …). The syntax is checked
 * here; that the configuration exists is checked against `pg_ts_config` when the workspace is written.
 */
export const objectLanguageSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be a text-search configuration name such as "english" or "simple"');

const objectTypeFields = {
  name: nameSchema,
  description: descriptionSchema,
  schema: jsonSchemaSchema,
  sourceRelevance: z.record(slugSchema, z.number().min(0)),
  language: objectLanguageSchema,
};

/**
 * An object type (`object-types/<slug>.yaml`, body of `POST /objects/types`). Required: `slug`, `name`.
 * Defaults: description `''` (listed by MCP `workspace_list`), schema `{type: 'object'}` (the JSON
 * Schema of instances' `metadata`), sourceRelevance `{}` (source slug → finite weight ≥ 0). `language`
 * is optional and has no default in the file (absent = {@link DEFAULT_OBJECT_LANGUAGE}): the text-search
 * configuration instances' title, content and metadata are indexed and queried with.
 */
export const objectTypeManifestSchema = z.strictObject({
  slug: slugSchema,
  name: objectTypeFields.name,
  description: objectTypeFields.description.default(''),
  schema: objectTypeFields.schema.default(() => ({ type: 'object' })),
  sourceRelevance: objectTypeFields.sourceRelevance.default(() => ({})),
  language: objectTypeFields.language.optional(),
});
/** A validated object type manifest. */
export type ObjectTypeManifest = z.output<typeof objectTypeManifestSchema>;

/** Any subset of an object type's fields; `sourceRelevance` replaces the whole map; `language: null` removes it. */
export const objectTypeManifestPatchSchema = z
  .strictObject({ ...objectTypeFields, slug: slugSchema, language: objectTypeFields.language.nullable() })
  .partial();
