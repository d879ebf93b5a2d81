/**
 * The skill manifest (`skills/<slug>/manifest.yaml`) and the skill REST bodies.
 */
import { z } from 'zod';
import { compileTemplate } from '../../platform/util/template.js';
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

/** A tool's name as manifests list it (the registry decides which names exist, checked at write). */
export const toolNameSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a tool name (a-z, 0-9, _)');

/** A list of tool names without duplicates. */
export const toolNameListSchema = z
  .array(toolNameSchema)
  .max(100)
  .refine((names) => new Set(names).size === names.length, 'must not repeat a tool');

/** Most tool calls a skill may allow per run (docs/api.md#authored-resources-the-workspace). */
export const MAX_TOOL_CALLS = 50;
/** A skill's tool-call budget when its manifest sets none. */
export const DEFAULT_MAX_TOOL_CALLS = 8;

/**
 * What a skill's review items are called (`titleTemplate`, decisions §15): one line of at most 200
 * characters whose placeholders are `{{input.<path>}}` only (rendered over the run's input, like the
 * prompt), e.g. `Reply to {{input.customer}}`.
 */
export const titleTemplateSchema = z
  .string()
  .min(1)
  .max(200)
  .superRefine((text, ctx) => {
    if (/[\r\n]/.test(text)) ctx.addIssue({ code: 'custom', message: 'must be one line' });
    const template = compileTemplate(text);
    for (const tag of template.unsupported) {
      ctx.addIssue({ code: 'custom', message: `"${tag}" is not a placeholder: use {{input.<field>}}` });
    }
    for (const path of template.references) {
      if (!/^input\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(path)) {
        ctx.addIssue({
          code: 'custom',
          message: `"{{${path}}}" must name a field of the input: {{input.<field>}}`,
        });
      }
    }
  });

/**
 * A skill run's title from its skill's `titleTemplate` and its input: one line, at most 200
 * characters; undefined without a template, when the input lacks a field it names (a title with a
 * hole names nothing: the skill's name is better), or when it renders blank.
 */
export function renderRunTitle(titleTemplate: string | undefined, input: unknown): string | undefined {
  if (titleTemplate === undefined) return undefined;
  const rendered = compileTemplate(titleTemplate).render({ input });
  if (rendered.missing.length > 0) return undefined;
  const line = rendered.text.replace(/\s+/gu, ' ').trim();
  return line === '' ? undefined : Array.from(line).slice(0, 200).join('');
}

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
  tools: toolNameListSchema,
  maxToolCalls: z.number().int().min(1).max(MAX_TOOL_CALLS),
  titleTemplate: titleTemplateSchema,
  reviewPolicy: slugSchema,
};

/**
 * A skill manifest (`skills/<slug>/manifest.yaml`, and `manifest` of `POST /skills`). Required: `slug`,
 * `name`. Defaults: description `''`, category `'general'`, status `'active'`, form `'prompt'`,
 * requiresApproval `false`. `inputSchema`, `outputSchema`, `model`, `tools` and `maxToolCalls` are
 * optional and stored only when given (no schema = any object is accepted; no model = the deployment's
 * default provider; no tools = `[]`; no maxToolCalls = 8, at most 50), and so is `titleTemplate` (no
 * template = review items are called by the skill's name). `tools` names agent tools the
 * model may call (docs/api.md#authored-resources-the-workspace); each must be a registered tool usable in
 * runs (checked when the workspace is written).
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
  tools: skillFields.tools.optional(),
  maxToolCalls: skillFields.maxToolCalls.optional(),
  titleTemplate: skillFields.titleTemplate.optional(),
  /** The review policy of its runs' items (`review-policies/<slug>.yaml`); absent: the org's `default`. */
  reviewPolicy: skillFields.reviewPolicy.optional(),
});

/** The tools a skill lists (absent: none). */
export function skillTools(manifest: Pick<SkillManifest, 'tools'>): readonly string[] {
  return manifest.tools ?? [];
}

/** A skill's budget of tool calls per run (absent: 8). */
export function skillMaxToolCalls(manifest: Pick<SkillManifest, 'maxToolCalls'>): number {
  return manifest.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
}
/** A validated skill manifest, defaults filled in. */
export type SkillManifest = z.output<typeof skillManifestSchema>;

/**
 * Any subset of a skill manifest's fields, no defaults. `null` removes an optional field
 * (`inputSchema`, `outputSchema`, `model`, `tools`, `maxToolCalls`, `titleTemplate`, `reviewPolicy`). `slug`, when present, must equal the
 * skill's slug.
 */
export const skillManifestPatchSchema = z
  .strictObject({
    ...skillFields,
    slug: slugSchema,
    inputSchema: skillFields.inputSchema.nullable(),
    outputSchema: skillFields.outputSchema.nullable(),
    model: skillFields.model.nullable(),
    tools: skillFields.tools.nullable(),
    maxToolCalls: skillFields.maxToolCalls.nullable(),
    titleTemplate: skillFields.titleTemplate.nullable(),
    reviewPolicy: skillFields.reviewPolicy.nullable(),
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
