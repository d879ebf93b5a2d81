/**
 * Workspace tools: read the authored resources (`workspace_list`, `workspace_get`, `workspace_diff`,
 * `workspace_version_history`) and author them (`workspace_write_skill`, one `workspace_write_<kind>` per
 * entry of `MANIFEST_WRITES` — agent, workflow, object type, mission, review policy —, `workspace_delete`,
 * `workspace_apply`). Writes go through the workspace's one write path (validate → write files →
 * commit → apply, in one transaction), with the per-call `autoCommit`/`autoApply` flags, and answer
 * `{written, commit, apply}`.
 */
import { z } from 'zod';
import { attributionOf } from '../../platform/auth/attribution.js';
import { access, authorize } from '../../platform/auth/guard.js';
import { ApiError, type FieldIssue, notFound, validationFailed } from '../../platform/errors.js';
import {
  defineTool,
  READ_ONLY,
  type ToolContext,
  type ToolDef,
  type ToolHints,
} from '../../platform/mcp/tool.js';
import { agentManifestSchema } from './agent-manifest.js';
import { manifestPath, promptPath } from './files.js';
import { slugSchema } from './manifest-fields.js';
import type { MANIFEST_SCHEMAS, ResourceKind, WorkspaceResource } from './manifests.js';
import { missionManifestSchema } from './mission-manifest.js';
import { objectTypeManifestSchema } from './object-type-manifest.js';
import type { SlugPage } from './resource-views.js';
import { reviewPolicyManifestSchema } from './review-policy-manifest.js';
import type { WorkspaceServices } from './services.js';
import { promptMdSchema, skillManifestSchema } from './skill-manifest.js';
import type { VersionRecord } from './store-sql.js';
import {
  agentDetailSchema,
  applyResultSchema,
  missionDetailSchema,
  objectTypeDetailSchema,
  resourceBriefSchema,
  reviewPolicyDetailSchema,
  skillDetailSchema,
  versionViewSchema,
  workflowDetailSchema,
  workspaceDiffSchema,
  writeResultSchema,
} from './view-schemas.js';
import { workflowManifestSchema } from './workflow-manifest.js';

/** The kinds `workspace_get` and `workspace_delete` name (docs/mcp.md). */
export const WORKSPACE_KINDS = [
  'agent',
  'skill',
  'workflow',
  'object_type',
  'mission',
  'review_policy',
] as const;
type WorkspaceKind = (typeof WORKSPACE_KINDS)[number];

const LABEL: Record<WorkspaceKind, string> = {
  agent: 'agent',
  skill: 'skill',
  workflow: 'workflow',
  object_type: 'object type',
  mission: 'mission',
  review_policy: 'review policy',
};

/** The per-call flags of every write (MCP rule 1). */
const writeFlags = {
  autoCommit: z
    .boolean()
    .optional()
    .describe(
      'Commit a workspace version (default true). false: files are written, nothing is committed or applied.',
    ),
  autoApply: z
    .boolean()
    .optional()
    .describe('Apply the committed version to what the API and runs use (default true).'),
  message: z.string().min(1).max(2_000).optional().describe('The version’s commit message.'),
};

const refSchema = {
  kind: z.enum(WORKSPACE_KINDS),
  slug: slugSchema,
};

/** Every page of a slug-ordered list. */
async function all<T>(page: (after: string | undefined) => Promise<SlugPage<T>>): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  do {
    const next = await page(after);
    items.push(...next.items);
    after = next.nextAfter ?? undefined;
  } while (after !== undefined);
  return items;
}

const PAGE = 200;

/** A create-or-replace: writing the same manifest again changes nothing. */
const WRITE: ToolHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** What `workspace_get` answers: the detail of one kind, tagged with it. */
const resourceDetailSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('agent'), ...agentDetailSchema.shape }),
  z.object({ kind: z.literal('skill'), ...skillDetailSchema.shape }),
  z.object({ kind: z.literal('workflow'), ...workflowDetailSchema.shape }),
  z.object({ kind: z.literal('object_type'), ...objectTypeDetailSchema.shape }),
  z.object({ kind: z.literal('mission'), ...missionDetailSchema.shape }),
  z.object({ kind: z.literal('review_policy'), ...reviewPolicyDetailSchema.shape }),
]);
const brief = <T extends { slug: string; name: string; description: string }>(items: T[]) =>
  items.map(({ slug, name, description }) => ({ slug, name, description }));

/** A version row as the tools answer it. */
function versionView(version: VersionRecord) {
  return {
    seq: version.seq,
    sha: version.sha,
    workspaceSha: version.workspaceSha,
    parentSha: version.parentSha,
    message: version.message,
    appliedBy: version.appliedBy,
    apiTokenId: version.apiTokenId,
    counts: version.counts,
    createdAt: version.createdAt.toISOString(),
  };
}

/**
 * Renames workspace issues about the written resource's own files to the arguments they came from
 * (`arguments.manifest.inputSchema.type`, `arguments.promptMd`); issues about other files keep their
 * workspace names (`agents/sales.yaml:skillSlugs.0`). `file` and `path` stay on every issue.
 */
function rebase(error: unknown, kind: ResourceKind, slug: string): unknown {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED') return error;
  const issues = error.details.issues;
  if (!Array.isArray(issues)) return error;
  const manifestFile = manifestPath(kind, slug);
  const renamed = (issues as FieldIssue[]).map((issue) => {
    const path = Array.isArray(issue.path) ? (issue.path as (string | number)[]) : [];
    if (issue.file === manifestFile) return { ...issue, field: ['arguments.manifest', ...path].join('.') };
    if (kind === 'skill' && issue.file === promptPath(slug)) return { ...issue, field: 'arguments.promptMd' };
    return issue;
  });
  return validationFailed(renamed);
}

type WriteFlags = {
  autoCommit?: boolean | undefined;
  autoApply?: boolean | undefined;
  message?: string | undefined;
};

function writeOptions(flags: WriteFlags, kind: string, slug: string | undefined, action: string) {
  return {
    ...(flags.autoCommit === undefined ? {} : { autoCommit: flags.autoCommit }),
    ...(flags.autoApply === undefined ? {} : { autoApply: flags.autoApply }),
    ...(flags.message === undefined ? {} : { message: flags.message }),
    audit: { action, targetKind: kind, ...(slug ? { targetId: slug } : {}) },
  };
}

/**
 * A resource written whole from its manifest (every kind but skills, whose prompt is a second file):
 * its write tool is one entry here. `manifest` is the schema REST's create takes.
 */
interface ManifestWrite<K extends ManifestKind> {
  kind: K;
  name: string;
  title: string;
  description: string;
  manifest: (typeof MANIFEST_SCHEMAS)[K];
}
type ManifestKind = Exclude<ResourceKind, 'skill' | 'source'>;
const manifestWrite = <K extends ManifestKind>(write: ManifestWrite<K>) =>
  write as ManifestWrite<ManifestKind>;

/** The manifest write tools (`workspace_write_<kind>`), in the order they are listed. */
const MANIFEST_WRITES: readonly ManifestWrite<ManifestKind>[] = [
  manifestWrite({
    kind: 'agent',
    name: 'workspace_write_agent',
    title: 'Create or update an agent',
    description:
      'Creates the agent, or replaces it when its slug exists: the manifest (name, description, active, ' +
      'systemPrompt, skillSlugs, workflowSlugs, sourceSlugs) is written whole; omitted fields take ' +
      'their defaults. Answers {written, commit, apply}.',
    manifest: agentManifestSchema,
  }),
  manifestWrite({
    kind: 'workflow',
    name: 'workspace_write_workflow',
    title: 'Create or update a workflow',
    description:
      'Creates the workflow, or replaces it when its slug exists: the manifest (name, description, trigger ' +
      'manual|schedule {cron}|object.created {objectType}, inputSchema, steps — skill steps {name, type: ' +
      '"skill", skill, input} with {{input.x}} and {{steps.<name>.output.<field>}} templates, approve ' +
      'gates {name, type: "approve", title?, assignTo?}) is written whole. Skills a step names and an ' +
      'object type a trigger names must exist. Answers {written, commit, apply}.',
    manifest: workflowManifestSchema,
  }),
  manifestWrite({
    kind: 'object_type',
    name: 'workspace_write_object_type',
    title: 'Create or update an object type',
    description:
      'Creates the object type, or replaces it when its slug exists: the manifest (name, description, ' +
      'schema — the JSON Schema of instance metadata —, sourceRelevance, language) is written whole. ' +
      'Answers {written, commit, apply}.',
    manifest: objectTypeManifestSchema,
  }),
  manifestWrite({
    kind: 'mission',
    name: 'workspace_write_mission',
    title: 'Create or update a mission',
    description:
      'Creates the mission, or replaces it when its slug exists: the manifest (name, description, goal — ' +
      'a template over {{input.x}} —, inputSchema, team [{agent, role}], planner (a member; default the ' +
      'first), review plan|result|both (default result), limits {maxTasks 20, maxParallel 3, ' +
      'maxToolCalls 50}) is written whole. Team agents must exist and be active. Answers {written, commit, apply}.',
    manifest: missionManifestSchema,
  }),
  manifestWrite({
    kind: 'review_policy',
    name: 'workspace_write_review_policy',
    title: 'Create or update a review policy',
    description:
      'Creates the review policy, or replaces it when its slug exists: the manifest (name, description, ' +
      'approvers {roles, users} — absent: whoever may approve —, required 1–5 distinct approvals (default ' +
      '1), selfApproval (default true), dueIn and remindBefore durations such as "4h" (remindBefore not ' +
      'longer than dueIn), escalateTo {roles, users}, onTimeout none|escalate|reject (escalate needs ' +
      'escalateTo)) is written whole. Named roles and users must exist; writing a policy needs the approve ' +
      'capability. Skills, workflow approve steps, missions and agents name it with reviewPolicy; the ' +
      'policy "default" applies where none is named. Answers {written, commit, apply}.',
    manifest: reviewPolicyManifestSchema,
  }),
];

/** Writes one resource of a kind; the write path of {@link workspaceTools}. */
type Put = (
  ctx: ToolContext,
  kind: ResourceKind,
  slug: string,
  build: (existing: WorkspaceResource | undefined) => WorkspaceResource,
  flags: WriteFlags,
) => Promise<z.input<typeof writeResultSchema>>;

/** The authoring tool of a {@link ManifestWrite}: `{manifest, autoCommit?, autoApply?, message?}`. */
function manifestWriteTool(put: Put, write: ManifestWrite<ManifestKind>): ToolDef {
  return defineTool({
    name: write.name,
    title: write.title,
    group: 'workspace',
    authoring: true,
    description: write.description,
    input: z.strictObject({ manifest: write.manifest, ...writeFlags }),
    output: writeResultSchema,
    access: access.write,
    hints: WRITE,
    run: ({ manifest, ...flags }, ctx) =>
      put(ctx, write.kind, manifest.slug, () => ({ kind: write.kind, manifest }) as WorkspaceResource, flags),
  });
}

/** The workspace tools over `s`. */
export function workspaceTools(s: Pick<WorkspaceServices, 'resources' | 'workspace'>): ToolDef[] {
  /** Creates or replaces one resource through the write path. */
  const put: Put = async (ctx, kind, slug, build, flags) => {
    try {
      const result = await s.workspace.write(
        ctx.principal.orgId,
        attributionOf(ctx.principal, ctx.requestId),
        (current) => ({ put: [build(current.get(kind, slug))] }),
        writeOptions(flags, kind, slug, `${kind}.write`),
      );
      return result;
    } catch (error) {
      throw rebase(error, kind, slug);
    }
  };

  return [
    defineTool({
      name: 'workspace_list',
      title: 'List authored resources',
      group: 'workspace',
      description:
        'Slug, name and description of every agent, skill, workflow, object type, mission and review policy of ' +
        'the organization ' +
        '(as applied). Use workspace_get for one resource in full.',
      input: z.strictObject({}),
      output: z.object({
        agents: z.array(resourceBriefSchema),
        skills: z.array(resourceBriefSchema),
        workflows: z.array(resourceBriefSchema),
        objectTypes: z.array(resourceBriefSchema),
        missions: z.array(resourceBriefSchema),
        reviewPolicies: z.array(resourceBriefSchema),
      }),
      access: access.read,
      hints: READ_ONLY,
      async run(_args, { principal }) {
        const org = principal.orgId;
        const [agents, skills, workflows, objectTypes, missions, reviewPolicies] = await Promise.all([
          all((after) => s.resources.listAgents(org, { limit: PAGE, after })),
          all((after) => s.resources.listSkills(org, {}, { limit: PAGE, after })),
          all((after) => s.resources.listWorkflows(org, { limit: PAGE, after })),
          all((after) => s.resources.listObjectTypes(org, { limit: PAGE, after })),
          all((after) => s.resources.listMissions(org, { limit: PAGE, after })),
          all((after) => s.resources.listReviewPolicies(org, { limit: PAGE, after })),
        ]);
        return {
          agents: brief(agents),
          skills: brief(skills),
          workflows: brief(workflows),
          objectTypes: brief(objectTypes),
          missions: brief(missions),
          reviewPolicies: brief(reviewPolicies),
        };
      },
    }),
    defineTool({
      name: 'workspace_get',
      title: 'Get an authored resource',
      group: 'workspace',
      description:
        'One agent, skill, workflow, object type, mission or review policy in full, as the REST detail shows ' +
        'it: an agent ' +
        'with its systemPrompt and wired skills and workflows, a skill with its prompt template (promptMd), ' +
        'a workflow with its steps and inputSchema, an object type with its schema and sourceRelevance, a ' +
        'mission with its goal, team, planner, review and limits, a review policy with its approvers, ' +
        'required, selfApproval, deadlines and isDefault.',
      input: z.strictObject(refSchema),
      output: resourceDetailSchema,
      // Agents and skills are open to read:skills as on REST; the other kinds need read:all (below).
      access: access.readSkills,
      hints: READ_ONLY,
      async run({ kind, slug }, { principal }) {
        if (kind !== 'agent' && kind !== 'skill') authorize(principal, access.read);
        const org = principal.orgId;
        const tagged = <K extends WorkspaceKind, T>(k: K, found: T | null) => found && { kind: k, ...found };
        const found =
          kind === 'agent'
            ? tagged(kind, await s.resources.agent(org, slug))
            : kind === 'skill'
              ? tagged(kind, await s.resources.skill(org, slug))
              : kind === 'workflow'
                ? tagged(kind, await s.resources.workflow(org, slug))
                : kind === 'mission'
                  ? tagged(kind, await s.resources.mission(org, slug))
                  : kind === 'review_policy'
                    ? tagged(kind, await s.resources.reviewPolicy(org, slug))
                    : tagged(kind, await s.resources.objectType(org, slug));
        if (!found) throw notFound(LABEL[kind], slug);
        return found;
      },
    }),
    defineTool({
      name: 'workspace_diff',
      title: 'Diff the workspace',
      group: 'workspace',
      description:
        'Dry run of workspace_apply: how the written files differ from the applied version, with ' +
        'created/updated/unchanged/deleted counts and the change of every resource.',
      input: z.strictObject({}),
      output: workspaceDiffSchema,
      access: access.read,
      hints: READ_ONLY,
      run: async (_args, { principal }) => await s.workspace.diff(principal.orgId),
    }),
    defineTool({
      name: 'workspace_version_history',
      title: 'Workspace version history',
      group: 'workspace',
      description:
        'The newest workspace versions, newest first: revision id (sha, workspaceSha), message, who ' +
        'applied it (appliedBy: token:<id>, mcp, user:<id> or cli), diff counts and time.',
      input: z.strictObject({
        limit: z.number().int().min(1).max(200).default(20).describe('How many versions (default 20).'),
      }),
      output: z.object({ versions: z.array(versionViewSchema) }),
      access: access.read,
      hints: READ_ONLY,
      async run({ limit }, { principal }) {
        const versions = await s.workspace.history(principal.orgId, limit);
        return { versions: versions.map(versionView) };
      },
    }),
    defineTool({
      name: 'workspace_write_skill',
      title: 'Create or update a skill',
      group: 'workspace',
      authoring: true,
      description:
        'Creates the skill, or replaces it when its slug exists: the manifest is written whole (omitted ' +
        'fields take their defaults), with promptMd, the Markdown prompt template with {{input.x}} ' +
        'placeholders (required for a new skill; omitted on an update, the current prompt stays). ' +
        'Validate → write → commit → apply; answers {written, commit, apply}.',
      input: z.strictObject({
        manifest: skillManifestSchema,
        promptMd: promptMdSchema.optional(),
        ...writeFlags,
      }),
      output: writeResultSchema,
      access: access.write,
      hints: WRITE,
      run: ({ manifest, promptMd, ...flags }, ctx) =>
        put(
          ctx,
          'skill',
          manifest.slug,
          (existing) => {
            const prompt = promptMd ?? (existing?.kind === 'skill' ? existing.promptMd : undefined);
            if (prompt === undefined) {
              throw validationFailed([
                {
                  field: 'arguments.promptMd',
                  message: 'is required when the skill is new',
                  code: 'invalid_type',
                },
              ]);
            }
            return { kind: 'skill', manifest, promptMd: prompt };
          },
          flags,
        ),
    }),
    ...MANIFEST_WRITES.map((write) => manifestWriteTool(put, write)),
    defineTool({
      name: 'workspace_delete',
      title: 'Delete an authored resource',
      group: 'workspace',
      authoring: true,
      description:
        'Removes an agent, skill, workflow, object type, mission or review policy from the workspace (refused ' +
        'with CONFLICT while another resource names it: details.referencedBy; deleting a review policy, or a ' +
        'resource under review, needs the approve capability). Answers {written, commit, apply}.',
      input: z.strictObject({ ...refSchema, ...writeFlags }),
      output: writeResultSchema,
      access: access.write,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      async run({ kind, slug, ...flags }, ctx) {
        const result = await s.workspace.delete(
          ctx.principal.orgId,
          attributionOf(ctx.principal, ctx.requestId),
          { kind, slug },
          writeOptions(flags, kind, slug, `${kind}.delete`),
        );
        return result;
      },
    }),
    defineTool({
      name: 'workspace_apply',
      title: 'Apply the workspace',
      group: 'workspace',
      authoring: true,
      description:
        'Reconciles the database to the written files: commits pending files (after writes with ' +
        'autoCommit false) as a version, then applies the newest version. Answers {commit, apply}.',
      input: z.strictObject({ message: writeFlags.message }),
      output: applyResultSchema,
      access: access.write,
      hints: WRITE,
      async run({ message }, ctx) {
        const result = await s.workspace.apply(
          ctx.principal.orgId,
          attributionOf(ctx.principal, ctx.requestId),
          message === undefined ? {} : { message },
        );
        return result;
      },
    }),
  ];
}
