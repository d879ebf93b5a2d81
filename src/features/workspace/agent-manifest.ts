/**
 * The agent manifest (`agents/<slug>.yaml`).
 */
import { z } from 'zod';
import {
  descriptionSchema,
  longTextSchema,
  nameSchema,
  slugListSchema,
  slugSchema,
} from './manifest-fields.js';
import { toolNameListSchema } from './skill-manifest.js';

/**
 * Which of its skills' tools an agent may call (docs/api.md#authored-resources-the-workspace): `allow`
 * absent = every tool the skill lists; `deny` always wins.
 */
export const agentToolsSchema = z.strictObject({
  allow: toolNameListSchema.optional(),
  deny: toolNameListSchema.default(() => []),
});

const agentFields = {
  name: nameSchema,
  description: descriptionSchema,
  active: z.boolean(),
  systemPrompt: longTextSchema,
  skillSlugs: slugListSchema,
  workflowSlugs: slugListSchema,
  sourceSlugs: slugListSchema,
  tools: agentToolsSchema,
  reviewPolicy: slugSchema,
};

/**
 * An agent (`agents/<slug>.yaml`, body of `POST /agents`). Required: `slug`, `name`. Defaults:
 * description `''`, active `true`, systemPrompt `''`, and empty `skillSlugs`, `workflowSlugs`,
 * `sourceSlugs` (each without duplicates). `tools` is optional (absent: every tool a skill lists;
 * `deny` defaults to `[]`).
 */
export const agentManifestSchema = z.strictObject({
  slug: slugSchema,
  name: agentFields.name,
  description: agentFields.description.default(''),
  active: agentFields.active.default(true),
  systemPrompt: agentFields.systemPrompt.default(''),
  skillSlugs: agentFields.skillSlugs.default(() => []),
  workflowSlugs: agentFields.workflowSlugs.default(() => []),
  sourceSlugs: agentFields.sourceSlugs.default(() => []),
  tools: agentFields.tools.optional(),
  /** The review policy of the actions it proposes (`review-policies/<slug>.yaml`); absent: the org's `default`. */
  reviewPolicy: agentFields.reviewPolicy.optional(),
});
/** A validated agent manifest. */
export type AgentManifest = z.output<typeof agentManifestSchema>;

/**
 * Any subset of an agent's fields (body of `PATCH /agents/:slug`); a list replaces the whole list;
 * `reviewPolicy: null` removes it.
 */
export const agentManifestPatchSchema = z
  .strictObject({ ...agentFields, slug: slugSchema, reviewPolicy: agentFields.reviewPolicy.nullable() })
  .partial();
