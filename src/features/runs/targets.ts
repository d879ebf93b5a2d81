/**
 * What a run executes, resolved once at creation from the org's applied workspace and stored on the
 * run (`runs.manifest`), so the run keeps executing that version however the workspace changes:
 * the skill (manifest + prompt), or the workflow and every skill its steps run, plus the agent.
 *
 * Refusals (docs/api.md "Runs"): unknown skill/workflow 404; a skill that is not `active` (the skill run's,
 * or one a workflow step runs) 409 CONFLICT; an agent that is unknown, inactive or not wired to the
 * skill/workflow 400 VALIDATION_FAILED on `body.agentSlug`.
 */
import { conflict, notFound, validationFailed } from '../../platform/errors.js';
import {
  type AgentManifest,
  type Applied,
  type AppliedResources,
  type AppliedSkill,
  type SkillManifest,
  shortSha,
  type WorkflowManifest,
  type WorkspaceStore,
} from '../workspace/index.js';

/** A skill as a run executes it. */
export interface SkillSnapshot {
  manifest: SkillManifest;
  promptMd: string;
}

/** The agent a run acts for. */
export interface AgentSnapshot {
  slug: string;
  name: string;
  systemPrompt: string;
  /** Which of the skill's tools the agent may call (absent: all of them). */
  tools?: { allow?: string[]; deny: string[] };
}

/** What a skill run executes. */
export interface SkillRunManifest {
  kind: 'skill';
  skill: SkillSnapshot;
  agent: AgentSnapshot | null;
}

/** What a workflow run executes: the workflow and each skill its steps run. */
export interface WorkflowRunManifest {
  kind: 'workflow';
  workflow: WorkflowManifest;
  skills: Record<string, SkillSnapshot>;
  agent: AgentSnapshot | null;
}

/** The manifests a run executes (`runs.manifest`). */
export type RunManifest = SkillRunManifest | WorkflowRunManifest;

/** A resolved target: what to store on the run. */
export interface RunTarget<M extends RunManifest = RunManifest> {
  manifest: M;
  /** Short id of the workspace version everything was read from (null: a run that recorded none). */
  workspaceSha: string | null;
  /** The skill's or workflow's display name. */
  name: string;
  /** The schema the run's input must match (absent: any object). */
  inputSchema: Record<string, unknown> | undefined;
}

/** Where a target's resources are read: the applied version, or one version (`resourcesAt`). */
export type TargetResources = Pick<AppliedResources, 'getSkill' | 'getWorkflow' | 'getAgent'>;

/**
 * The resources of the org's version `sha` (a full sha, as `WorkspaceStore.resolveVersion` answers):
 * what a fork on that version executes (docs/api.md "Fork a run").
 */
export function resourcesAt(store: WorkspaceStore, orgId: number, sha: string): TargetResources {
  const at = <M>(manifest: M): Applied<M> => ({ manifest, versionSha: sha, workspaceSha: shortSha(sha) });
  return {
    async getSkill(org, slug) {
      const found = org === orgId ? await store.readResourceAt(org, 'skill', slug, sha) : null;
      return found?.kind === 'skill' ? { ...at(found.manifest), promptMd: found.promptMd } : null;
    },
    async getWorkflow(org, slug) {
      const found = org === orgId ? await store.readResourceAt(org, 'workflow', slug, sha) : null;
      return found?.kind === 'workflow' ? at(found.manifest) : null;
    },
    async getAgent(org, slug) {
      const found = org === orgId ? await store.readResourceAt(org, 'agent', slug, sha) : null;
      return found?.kind === 'agent' ? at(found.manifest) : null;
    },
  };
}

/** Read attempts when the workspace changes between the reads of one resolution. */
const ATTEMPTS = 3;

class VersionMoved extends Error {}

function requireActive(skill: AppliedSkill, role: string): void {
  if (skill.manifest.status !== 'active') {
    throw conflict(
      `Skill "${skill.manifest.slug}"${role} is ${skill.manifest.status}; only active skills run.`,
      { slug: skill.manifest.slug, status: skill.manifest.status },
    );
  }
}

function agentIssue(message: string, agentSlug: string) {
  return validationFailed([{ field: 'body.agentSlug', message, agentSlug }]);
}

function checkAgent(
  agent: Applied<AgentManifest> | null,
  agentSlug: string,
  wired: (manifest: AgentManifest) => boolean,
  what: string,
): AgentSnapshot {
  if (!agent) throw agentIssue(`No agent "${agentSlug}" in this organization.`, agentSlug);
  if (!agent.manifest.active) throw agentIssue(`Agent "${agentSlug}" is not active.`, agentSlug);
  if (!wired(agent.manifest))
    throw agentIssue(`Agent "${agentSlug}" does not have ${what} wired.`, agentSlug);
  const snapshot: AgentSnapshot = {
    slug: agent.manifest.slug,
    name: agent.manifest.name,
    systemPrompt: agent.manifest.systemPrompt,
  };
  if (agent.manifest.tools) snapshot.tools = agent.manifest.tools;
  return snapshot;
}

/**
 * Runs `read` again when the workspace moved between its reads. `at` (the applied version the
 * request's authentication read, if known) is passed to the first attempt only: a version that
 * moved during the resolution is read anew.
 */
async function retrying<T>(
  at: string | null | undefined,
  read: (at: string | null | undefined) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read(attempt === 1 ? at : undefined);
    } catch (error) {
      if (!(error instanceof VersionMoved) || attempt >= ATTEMPTS) {
        if (error instanceof VersionMoved)
          throw new Error('the workspace kept changing while a run was resolved');
        throw error;
      }
    }
  }
}

function sameVersion(expected: string, other: Applied<unknown> | null): void {
  if (other && other.versionSha !== expected) throw new VersionMoved();
}

/**
 * Resolves a skill run's target; `agentSlug` must name an active agent with the skill wired. `at`:
 * the org's applied version as the request's authentication read it, when known.
 */
export function resolveSkillTarget(
  applied: TargetResources,
  orgId: number,
  slug: string,
  agentSlug: string | undefined,
  at?: string | null,
): Promise<RunTarget<SkillRunManifest>> {
  return retrying(at, async (version) => {
    const skill = await applied.getSkill(orgId, slug, version);
    if (!skill) throw notFound('skill', slug);
    requireActive(skill, '');
    let agent: AgentSnapshot | null = null;
    if (agentSlug !== undefined) {
      const found = await applied.getAgent(orgId, agentSlug, version);
      sameVersion(skill.versionSha, found);
      agent = checkAgent(found, agentSlug, (m) => m.skillSlugs.includes(slug), `skill "${slug}"`);
    }
    return {
      manifest: { kind: 'skill', skill: { manifest: skill.manifest, promptMd: skill.promptMd }, agent },
      workspaceSha: skill.workspaceSha,
      name: skill.manifest.name,
      inputSchema: skill.manifest.inputSchema,
    };
  });
}

/** Resolves a workflow run's target: the workflow and every skill its steps run, from one version. */
export function resolveWorkflowTarget(
  applied: TargetResources,
  orgId: number,
  slug: string,
  agentSlug: string | undefined,
  at?: string | null,
): Promise<RunTarget<WorkflowRunManifest>> {
  return retrying(at, async (version) => {
    const workflow = await applied.getWorkflow(orgId, slug, version);
    if (!workflow) throw notFound('workflow', slug);
    const skills: Record<string, SkillSnapshot> = {};
    const skillSlugs = [
      ...new Set(workflow.manifest.steps.flatMap((s) => (s.type === 'skill' ? [s.skill] : []))),
    ];
    const found = await Promise.all(
      skillSlugs.map((skillSlug) => applied.getSkill(orgId, skillSlug, version)),
    );
    skillSlugs.forEach((skillSlug, i) => {
      const skill = found[i] ?? null;
      sameVersion(workflow.versionSha, skill);
      if (!skill) {
        throw conflict(`Workflow "${slug}" runs skill "${skillSlug}", which does not exist.`, {
          slug,
          skill: skillSlug,
        });
      }
      requireActive(skill, ` (run by workflow "${slug}")`);
      skills[skillSlug] = { manifest: skill.manifest, promptMd: skill.promptMd };
    });
    let agent: AgentSnapshot | null = null;
    if (agentSlug !== undefined) {
      const agentFound = await applied.getAgent(orgId, agentSlug, version);
      sameVersion(workflow.versionSha, agentFound);
      agent = checkAgent(agentFound, agentSlug, (m) => m.workflowSlugs.includes(slug), `workflow "${slug}"`);
    }
    return {
      manifest: { kind: 'workflow', workflow: workflow.manifest, skills, agent },
      workspaceSha: workflow.workspaceSha,
      name: workflow.manifest.name,
      inputSchema: workflow.manifest.inputSchema,
    };
  });
}
