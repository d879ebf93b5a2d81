/**
 * The workspace: authored resources (agents, skills, workflows, object types, sources) as versioned
 * files, their apply into the resource tables, the REST routes and MCP tools that author them, and
 * `r3 workspace`. Other features read applied manifests (`applied`) and wire views (`resources`).
 */
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import { AppliedResources, fusedAppliedRead } from './applied.js';
import { workspaceCommand } from './cli.js';
import { resourceEntities } from './entities.js';
import { authoredResources, skillPrompts } from './mcp-resources.js';
import { workspaceTools } from './mcp-tools.js';
import { Migration0002Resources } from './migrations/0002-resources.js';
import { ResourceViews } from './resource-views.js';
import { agentRoutes } from './routes/agents.js';
import { objectTypeRoutes } from './routes/object-types.js';
import { skillRoutes } from './routes/skills.js';
import { workflowRoutes } from './routes/workflows.js';
import type { WorkspaceServices } from './services.js';
import { WorkspaceStore } from './store.js';

export type { AgentManifest } from './agent-manifest.js';
export type { Applied, AppliedResources, AppliedSkill } from './applied.js';
export { shortSha } from './git-objects.js';
export { createJsonSchemaCompiler, type JsonSchemaCompiler } from './json-schema.js';
export { slugParams, slugSchema } from './manifest-fields.js';
export type { WorkspaceResource } from './manifests.js';
export {
  type MissionLimits,
  type MissionManifest,
  missionManifestPatchSchema,
  missionManifestSchema,
  plannerOf,
  teamSchema,
} from './mission-manifest.js';
export {
  type ReindexFilter,
  type ReindexQueue,
  type ReindexRequest,
  reindexFilterSchema,
} from './reindex-queue.js';
export type { MissionDetail, ObjectTypeView, ResourceViews } from './resource-views.js';
export { DEFAULT_RETRIEVAL, fusedScore, type ResolvedRetrieval, resolveRetrieval } from './retrieval.js';
export {
  BUILT_IN_POLICY,
  DEFAULT_POLICY_SLUG,
  MAX_REQUIRED,
  ON_TIMEOUT,
  type OnTimeout,
  type PolicyPeople,
  policyRules,
  type ReviewPolicyManifest,
  type ReviewPolicyRules,
  reviewPolicyManifestPatchSchema,
  reviewPolicyManifestSchema,
} from './review-policy-manifest.js';
export { createAuthored, deleteAuthoredRoute, patchAuthored } from './routes/authored.js';
export type { WorkspaceServices } from './services.js';
export {
  renderRunTitle,
  type SkillManifest,
  skillManifestSchema,
  skillMaxToolCalls,
  skillTools,
} from './skill-manifest.js';
export { type SourceRetrieval, sourceManifestPatchSchema, sourceManifestSchema } from './source-manifest.js';
export type { ApplyListener, WorkspaceStore, WriteGuard } from './store.js';
export { missionDetailSchema, objectTypeViewSchema, writeResultSchema } from './view-schemas.js';
export { type WorkflowManifest, workflowManifestSchema } from './workflow-manifest.js';

/** What the workspace feature offers. */
export type WorkspaceApi = WorkspaceServices;

export const workspaceFeature = defineFeature({
  name: 'workspace',
  migrations: [{ name: '0002-resources', class: Migration0002Resources }],
  entities: resourceEntities,
  register(platform: Platform): WorkspaceApi {
    const services: WorkspaceServices = {
      workspace: new WorkspaceStore({
        db: platform.db,
        clock: platform.clock,
        toolNames: () =>
          new Set(platform.agentTools.all.filter((tool) => tool.uses.includes('run')).map((t) => t.name)),
      }),
      resources: new ResourceViews(platform.db.orm.em),
      applied: new AppliedResources(platform.db.sql),
    };
    // The trigger routes read the org's applied version with the caller's authentication.
    platform.auth.addFusedRead('applied', fusedAppliedRead());
    platform.routes.add(
      ...agentRoutes(services),
      ...skillRoutes(services),
      ...workflowRoutes(services),
      ...objectTypeRoutes(services),
    );
    platform.mcp.add(...workspaceTools(services));
    platform.mcp.addResources(...authoredResources(services));
    platform.mcp.addPrompts(skillPrompts(services));
    return services;
  },
  commands: [workspaceCommand],
});
