/**
 * The wire shapes of authored resources and workspace writes as zod schemas, built from the manifest
 * schemas themselves: what the workspace MCP tools declare as their `outputSchema` (and must answer,
 * see src/platform/mcp/tool.ts). A field added to a manifest appears here without a second edit.
 */
import { z } from 'zod';
import { agentManifestSchema } from './agent-manifest.js';
import { missionManifestSchema } from './mission-manifest.js';
import { objectTypeManifestSchema } from './object-type-manifest.js';
import { reviewPolicyManifestSchema } from './review-policy-manifest.js';
import { skillManifestSchema } from './skill-manifest.js';
import { workflowManifestSchema } from './workflow-manifest.js';

const stamps = { createdAt: z.iso.datetime(), updatedAt: z.iso.datetime() };

const skill = skillManifestSchema.shape;
const workflow = workflowManifestSchema.shape;
const {
  sourceRelevance: _relevance,
  language: _language,
  ...objectTypeListed
} = objectTypeManifestSchema.shape;
const mission = missionManifestSchema.shape;

/** A skill in lists (`SkillView`). */
export const skillViewSchema = z.object({ ...skill, ...stamps });
/** A workflow in lists (`WorkflowView`). */
export const workflowViewSchema = z.object({
  slug: workflow.slug,
  name: workflow.name,
  description: workflow.description,
  trigger: workflow.trigger,
  ...stamps,
});

/** An agent in full (`AgentDetail`): its manifest and its wired skills and workflows. */
export const agentDetailSchema = z.object({
  ...agentManifestSchema.shape,
  ...stamps,
  skills: z.array(skillViewSchema),
  workflows: z.array(workflowViewSchema),
});
/** A skill in full (`SkillDetail`), with its prompt template. */
export const skillDetailSchema = z.object({ ...skill, ...stamps, promptMd: z.string() });
/** A workflow in full (`WorkflowDetail`). */
export const workflowDetailSchema = z.object({ ...workflow, ...stamps });
/** An object type in full (`ObjectTypeDetail`). */
export const objectTypeDetailSchema = z.object({
  ...objectTypeListed,
  language: z.string(),
  ...stamps,
  sourceRelevance: objectTypeManifestSchema.shape.sourceRelevance,
});
/** A mission in full (`MissionDetail`), its planner filled in. */
export const missionDetailSchema = z.object({ ...mission, planner: z.string(), ...stamps });
/** A review policy in full (`ReviewPolicyDetail`): its manifest, whether it is the org's `default`. */
export const reviewPolicyDetailSchema = z.object({
  ...reviewPolicyManifestSchema.shape,
  isDefault: z.boolean(),
  ...stamps,
});
/** An object type in lists (`ObjectTypeView`). */
export const objectTypeViewSchema = objectTypeDetailSchema.omit({ sourceRelevance: true });

/** Slug, name and description: a resource as `workspace_list` names it. */
export const resourceBriefSchema = z.object({ slug: z.string(), name: z.string(), description: z.string() });

/** Resource-level change counts between two trees (`DiffCounts`). */
export const diffCountsSchema = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  deleted: z.number().int(),
});

/** A version a write made (`CommitResult`). */
export const commitResultSchema = z.object({
  sha: z.string(),
  workspaceSha: z.string(),
  parentSha: z.string().nullable(),
  counts: diffCountsSchema,
});

/** What a write answers (`WriteResult`, MCP rule 1). */
export const writeResultSchema = z.object({
  written: z.array(z.string()),
  commit: commitResultSchema.nullable(),
  apply: diffCountsSchema.nullable(),
});

/** What `workspace_apply` answers. */
export const applyResultSchema = z.object({ commit: commitResultSchema.nullable(), apply: diffCountsSchema });

/** The written files against the applied version (`WorkspaceDiff`). */
export const workspaceDiffSchema = diffCountsSchema.extend({
  resources: z.array(
    z.object({
      kind: z.string(),
      slug: z.string(),
      change: z.enum(['created', 'updated', 'unchanged', 'deleted']),
    }),
  ),
});

/** A version row as the tools answer it. */
export const versionViewSchema = z.object({
  seq: z.number().int(),
  sha: z.string(),
  workspaceSha: z.string(),
  parentSha: z.string().nullable(),
  message: z.string(),
  appliedBy: z.string(),
  apiTokenId: z.string().nullable(),
  counts: diffCountsSchema,
  createdAt: z.iso.datetime(),
});
