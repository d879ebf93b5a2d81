/**
 * The resource kinds of r3's workspace and the registry of their manifest schemas. The schemas live one
 * kind per file (`agent-manifest.ts`, `skill-manifest.ts`, `workflow-manifest.ts`,
 * `object-type-manifest.ts`, `source-manifest.ts`); each is the one schema of its wire shape, shared by
 * the workspace files, REST bodies and MCP tool inputs.
 *
 * Terminology (src/features/workspace/):
 * - **workspace**: an org's tree of authored text files (`agents/`, `skills/`, `workflows/`,
 *   `object-types/`, `sources/`, `missions/`, `review-policies/`). It is the source of truth for authored resources; the database tables
 *   are a projection of it.
 * - **resource**: one authored thing, identified by `(kind, slug)`. Most are one YAML file; a skill is two
 *   files (`manifest.yaml` + `prompt.md`).
 * - **manifest**: the parsed, validated content of a resource's YAML file.
 * - **tree**: a whole workspace as `Map<path, content>`; **validate** checks a tree as a unit.
 * - **version**: a git commit of the tree. Its sha is the version id; `workspaceSha` is its first
 *   12 hex characters. Writing an identical tree makes no new version.
 * - **apply**: reconciling the database tables to a version (done outside this folder).
 * - **create schema** (`xManifestSchema`): the full shape; omitted optional fields get their defaults.
 *   **patch schema** (`xManifestPatchSchema`): any subset of fields, no defaults; merge it with
 *   `mergeManifestPatch` and parse the result with the create schema.
 */
import type { z } from 'zod';
import { type AgentManifest, agentManifestSchema } from './agent-manifest.js';
import { type MissionManifest, missionManifestSchema } from './mission-manifest.js';
import { type ObjectTypeManifest, objectTypeManifestSchema } from './object-type-manifest.js';
import { type ReviewPolicyManifest, reviewPolicyManifestSchema } from './review-policy-manifest.js';
import { type SkillManifest, skillManifestSchema } from './skill-manifest.js';
import { type SourceManifest, sourceManifestSchema } from './source-manifest.js';
import { type WorkflowManifest, workflowManifestSchema } from './workflow-manifest.js';

/** The kinds of authored resource, in the order listings and diffs use. */
export const RESOURCE_KINDS = [
  'agent',
  'skill',
  'workflow',
  'object_type',
  'source',
  'mission',
  'review_policy',
] as const;
/** A kind of authored resource (`object_type` as in MCP `workspace_get`). */
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** The create schema of each kind's manifest. */
export const MANIFEST_SCHEMAS = {
  agent: agentManifestSchema,
  skill: skillManifestSchema,
  workflow: workflowManifestSchema,
  object_type: objectTypeManifestSchema,
  source: sourceManifestSchema,
  mission: missionManifestSchema,
  review_policy: reviewPolicyManifestSchema,
} as const;

/** The manifest type of a kind. */
export type ManifestOf<K extends ResourceKind> = z.output<(typeof MANIFEST_SCHEMAS)[K]>;

/** One authored resource with everything its files hold. */
export type WorkspaceResource =
  | { kind: 'agent'; manifest: AgentManifest }
  | { kind: 'skill'; manifest: SkillManifest; promptMd: string }
  | { kind: 'workflow'; manifest: WorkflowManifest }
  | { kind: 'object_type'; manifest: ObjectTypeManifest }
  | { kind: 'source'; manifest: SourceManifest }
  | { kind: 'mission'; manifest: MissionManifest }
  | { kind: 'review_policy'; manifest: ReviewPolicyManifest };
