/**
 * The skill manifest (`skills/<slug>/manifest.yaml`) and the skill REST bodies.
 */
import { z } from 'zod';
import {
  descriptionSchema,
  jsonSchemaSchema,
  longTextSchema,
  nameSchema,
  slugSchema,
} from './manifest-fields.js';

/** Lifecycle of a skill; only `active` skills are meant to be run. */
export const SKILL_STATUSES = ['active', 'draft', 'archived'] as const;

/**
 * The model a prompt skill runs on. `provider` names a registered provider (`echo`, `openai`, …; the
 * runtime checks it exists). `name` and `temperature` fall back to the provider's configuration.
 */
export const skillModelSchema = z.strictObject({
  provider: z.string().min(1).max(64),
  name: z.string().min(1).max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
});

const skillFields = {
  name: nameSchema,
  description: descriptionSchema,
  category: z.string().min(1).max(64),
  status: z.enum(SKILL_STATUSES),
  form: z.literal('prompt'),
  requiresApproval: z.boolean(),
  inputSchema: jsonSchemaSchema,
  outputSchema: jsonSchemaSchema,
  model: skillModelSchema,
};

/**
 * A skill manifest (`skills/<slug>/manifest.yaml`, and `manifest` of `POST /skills`). Required: `slug`,
 * `name`. Defaults: description `''`, category `'general'`, status `'active'`, form `'prompt'`,
 * requiresApproval `false`. `inputSchema`, `outputSchema` and `model` are optional and have no default
 * (no schema = any object is accepted; no model = the deployment's default provider).
 */
export const skillManifestSchema = z.strictObject({
  slug: slugSchema,
  name: skillFields.name,
  description: skillFields.description.default(''),
  category: skillFields.category.default('general'),
  status: skillFields.status.default('active'),
  form: skillFields.form.default('prompt'),
  requiresApproval: skillFields.requiresApproval.default(false),
  inputSchema: skillFields.inputSchema.optional(),
  outputSchema: skillFields.outputSchema.optional(),
  model: skillFields.model.optional(),
});
/** A validated skill manifest, defaults filled in. */
export type SkillManifest = z.output<typeof skillManifestSchema>;

/**
 * Any subset of a skill manifest's fields, no defaults. `null` removes an optional field
 * (`inputSchema`, `outputSchema`, `model`). `slug`, when present, must equal the skill's slug.
 */
export const skillManifestPatchSchema = z
  .strictObject({
    ...skillFields,
    slug: slugSchema,
    inputSchema: skillFields.inputSchema.nullable(),
    outputSchema: skillFields.outputSchema.nullable(),
    model: skillFields.model.nullable(),
  })
  .partial();

/** A skill's prompt template (`skills/<slug>/prompt.md`): Markdown with `{{input.x}}` placeholders. */
export const promptMdSchema = longTextSchema;

/** Body of `POST /skills` (and of MCP `workspace_write_skill` for a new skill). */
export const skillCreateBodySchema = z.strictObject({
  manifest: skillManifestSchema,
  promptMd: promptMdSchema,
});
/** Body of `PATCH /skills/:slug`. */
export const skillPatchBodySchema = z.strictObject({
  manifest: skillManifestPatchSchema.optional(),
  promptMd: promptMdSchema.optional(),
});
