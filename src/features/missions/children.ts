/**
 * A mission run's child runs: the planner's and each task's skill run, created in the mission run's
 * transaction (a follow-up of its `startPlanner`/`startTask` effect) with `mission_run_id` and
 * `mission_task_id`, so a task is started exactly when the mission run marked it started, and never
 * twice (a unique index backs that). Their outcomes come back to the mission run from the child's
 * own transition (`reportChildEvent`).
 *
 * - planner: a prompt whose text is a JSON document — the goal, the input, the team, the limits, the
 *   reasons a previous plan was refused, and a draft plan (one task per member, in order, each after
 *   the previous) to improve. A model answers a plan; the `echo` provider answers the document itself,
 *   whose draft is a valid plan, so a mission runs with no configuration.
 * - task: the task's skill when the plan names one (it must be active and wired to the agent), else a
 *   generic task prompt: the goal, the task's instructions and the outputs of the tasks it depends on.
 *   The agent must still be active when the task starts; otherwise the task fails (`AGENT_INACTIVE`).
 */
import type { MissionRunContext, MissionTask, SkillRunInput } from '../../../machines/index.js';
import type { ActorHost, ActorTx } from '../../platform/actors/host.js';
import type { EffectContext } from '../../platform/actors/kind.js';
import type { CreateArgs } from '../../platform/actors/types.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { AgentSnapshot, SkillRunManifest, SkillSnapshot } from '../runs/index.js';
import { SKILL_RUN_KIND } from '../runs/index.js';
import { type AgentManifest, type SkillManifest, skillManifestSchema } from '../workspace/index.js';
import { type MissionDefinition, plannerTaskId } from './definition.js';

/** What a child run is made from. */
interface ChildSpec {
  taskId: string;
  agent: AgentSnapshot;
  skill: SkillSnapshot;
  name: string;
  input: Record<string, unknown>;
  workspaceSha: string;
  /** A task after others (its dependencies just finished, its mission waits on it): its job goes first. */
  handOver: boolean;
  /** Turns to ask the model with after the prompt (a planner asked again after plan review). */
  conversation?: Array<{ draft: Record<string, unknown>; reason: string }>;
}

/**
 * A synthetic prompt skill (the planner's, a generic task's): its whole prompt is `input.prompt`. It
 * lists the tools the agent allows by name (`tools.allow`, less `deny`; none without an allow list),
 * and its budget is the mission's `limits.maxToolCalls`: past it the run fails TOOL_BUDGET_EXCEEDED
 * as any skill run does (docs/api.md#missions), and a planner run that fails fails the mission run.
 */
function promptSkill(slug: string, name: string, agent: AgentManifest, maxToolCalls: number): SkillSnapshot {
  const deny = new Set(agent.tools?.deny ?? []);
  const tools = (agent.tools?.allow ?? []).filter((tool) => !deny.has(tool));
  const manifest = skillManifestSchema.parse({
    slug,
    name,
    description: `Mission ${name.toLowerCase()}`,
    tools,
    maxToolCalls,
  });
  return { manifest, promptMd: '{{input.prompt}}' };
}

/** The mission run's row columns an effect reads. */
export interface MissionRow {
  orgId: number;
  id: number;
  goal: string;
  input: Record<string, unknown>;
  definition: MissionDefinition;
  traceId: string;
  createdBy: string;
  apiTokenId: string | null;
  /** When the mission run was created (ISO): where its children's jobs stand in the queue. */
  createdAt: string;
}

/** The mission run's columns from an effect's context. */
export function missionRowOf(ctx: EffectContext): MissionRow {
  const c = ctx.row.columns;
  return {
    orgId: ctx.row.orgId,
    id: ctx.row.id,
    goal: c.goal as string,
    input: c.input as Record<string, unknown>,
    definition: c.definition as MissionDefinition,
    traceId: c.trace_id as string,
    createdBy: c.created_by as string,
    apiTokenId: (c.api_token_id as string | null) ?? null,
    // Unset in the creation's own transition (it starts the planner): the creation is now.
    createdAt: c.created_at ? new Date(c.created_at as string | Date).toISOString() : ctx.at,
  };
}

/** One task per member, in order, each after the previous: the planner's starting point. */
export function draftPlan(mission: Pick<MissionRow, 'goal' | 'definition'>) {
  const { team, limits } = mission.definition;
  return team.slice(0, limits.maxTasks).map((member, index) => {
    const role = member.role.trim();
    return {
      id: `task-${index + 1}`,
      title: role ? `${role} (${member.agent})` : `Work of ${member.agent}`,
      agent: member.agent,
      instructions: role
        ? `As ${role}, contribute to the goal: ${mission.goal}`
        : `Contribute to the goal: ${mission.goal}`,
      dependsOn: index === 0 ? [] : [`task-${index}`],
    };
  });
}

/** The planner's prompt: a JSON document (see the file comment). */
export function plannerPrompt(
  mission: MissionRow,
  members: Array<{ agent: string; role: string; name: string; skills: string[] }>,
  errors: readonly string[],
): string {
  const { limits } = mission.definition;
  const document = {
    instructions:
      'You are the planner of a mission: split the goal into tasks for the team. Answer with JSON only, ' +
      'of the form {"tasks": [{"id", "title", "agent", "skill"?, "instructions", "dependsOn": [ids]}]}: ' +
      'ids unique (letters, digits, "_" or "-"), dependsOn naming other tasks without cycles, agents ' +
      `from the team only (a skill, if named, one of the agent's skills), at most ${limits.maxTasks} ` +
      'tasks. Tasks run as soon as what they depend on is done, and get those tasks\' results. "tasks" ' +
      'below is a draft, one task per member in order: improve it.',
    goal: mission.goal,
    input: mission.input,
    team: members,
    maxTasks: limits.maxTasks,
    ...(errors.length > 0 ? { previousPlanWasRefused: errors } : {}),
    tasks: draftPlan(mission),
  };
  return JSON.stringify(document, null, 2);
}

/**
 * What the planner is told after a plan it proposed went back (decisions.md §15): a JSON document, as
 * its prompt is — the reviewer's reason, and the plan to revise as `tasks` (so the `echo` provider,
 * which answers it, proposes that plan again).
 */
export function plannerRevision(reason: string, plan: Record<string, unknown>): string {
  const document = {
    instructions:
      'A reviewer sent your plan back. Answer with the whole revised plan, JSON only, of the same form ' +
      'as before. "tasks" below is the plan you proposed: change what the reviewer asks for.',
    reviewerAsks: reason,
    tasks: plan.tasks ?? [],
  };
  return JSON.stringify(document, null, 2);
}

/** A generic task's prompt: goal, the task, and its dependencies' results. */
export function taskPrompt(mission: MissionRow, task: MissionTask, deps: MissionTask[]): string {
  const lines = [
    `Mission: ${mission.definition.name}`,
    `Goal: ${mission.goal}`,
    '',
    `Your task (${task.id}): ${task.title}`,
    task.instructions,
  ];
  if (deps.length > 0) {
    lines.push('', 'Results of the tasks this one builds on:');
    for (const dep of deps)
      lines.push('', `## ${dep.id}: ${dep.title}`, JSON.stringify(dep.output ?? {}, null, 2));
  }
  return lines.join('\n');
}

export interface ChildDeps {
  host: ActorHost;
}

/** An applied agent or skill as read in the mission run's transaction, with the applied version. */
interface AppliedRow<M> {
  manifest: M;
  workspaceSha: string;
}

/** The applied agents and skills a transition's child runs start from, read once for all of them. */
export interface StartResources {
  agents: Map<string, AppliedRow<AgentManifest>>;
  skills: Map<string, AppliedRow<SkillManifest> & { promptMd: string }>;
}

/** An applied agent or skill as read for a start: kind, manifest, prompt (skills) and the applied version. */
interface AppliedResourceRow {
  kind: 'agent' | 'skill';
  manifest: AgentManifest | SkillManifest;
  prompt_md: string | null;
  sha: string;
}

/** The applied agents and skills of `$2` and `$3` (slug arrays) of org `$1`, as rows. */
const APPLIED_SQL = (org: string, agents: string, skills: string) => `
  select 'agent' as kind, a.manifest, null as prompt_md, left(h.applied_sha, 12) as sha
    from agents a join workspace_heads h on h.org_id = a.org_id
   where a.org_id = ${org} and a.slug in (select ${agents})
  union all
  select 'skill', s.manifest, s.prompt_md, left(h.applied_sha, 12)
    from skills s join workspace_heads h on h.org_id = s.org_id
   where s.org_id = ${org} and s.slug in (select ${skills})`;

/** The team's agents of the mission run `t` (the row of a locked load). */
const TEAM = "select m ->> 'agent' from json_array_elements(t.definition -> 'team') m";

/**
 * What a mission run's locked load reads with its row (the kind's `lockedWith`): its team's agents
 * and their skills, as applied — what the tasks a report starts need (a task's skill must be one of
 * its agent's, so any plan's, also one just proposed), in the report's lock round trip instead of
 * one of their own (see `settleTasks`).
 */
export const APPLIED_WITH_LOCK = `select coalesce(json_agg(x), '[]'::json) from (${APPLIED_SQL(
  't.org_id',
  `* from (${TEAM}) team`,
  `json_array_elements_text(w.manifest -> 'skillSlugs') from agents w where w.org_id = t.org_id and w.slug in (${TEAM})`,
)}) x`;

/**
 * Reads agents `agentSlugs` and skills `skillSlugs` of `orgId` as applied, in one statement. Reads go
 * through the transaction's own connection (not the workspace's `AppliedResources`, which reads from
 * the pool): a follow-up runs while its transaction holds a pooled connection, and reads from the pool
 * would wait for connections that busy transactions hold.
 */
async function readApplied(
  tx: ActorTx,
  orgId: number,
  agentSlugs: readonly string[],
  skillSlugs: readonly string[],
): Promise<StartResources> {
  const rows = await tx.sql.query<AppliedResourceRow>(
    APPLIED_SQL('$1', 'unnest($2::text[])', 'unnest($3::text[])'),
    [orgId, [...new Set(agentSlugs)], [...new Set(skillSlugs)]],
  );
  return appliedFrom(rows);
}

/** `rows` by kind and slug. */
function appliedFrom(rows: readonly AppliedResourceRow[]): StartResources {
  const applied: StartResources = { agents: new Map(), skills: new Map() };
  for (const row of rows) {
    if (row.kind === 'agent') {
      const manifest = row.manifest as AgentManifest;
      applied.agents.set(manifest.slug, { manifest, workspaceSha: row.sha });
    } else {
      const manifest = row.manifest as SkillManifest;
      applied.skills.set(manifest.slug, { manifest, promptMd: row.prompt_md ?? '', workspaceSha: row.sha });
    }
  }
  return applied;
}

/**
 * What starting `taskIds` of the plan needs: their agents and the skills they name — from `locked`
 * (read with the mission run's locked load, `APPLIED_WITH_LOCK`) when it has every one of them, else
 * read (a load without lock has none; a slug missing — an agent left the team's, a skill not wired —
 * is read to be sure).
 */
async function appliedForTasks(
  tx: ActorTx,
  orgId: number,
  context: MissionRunContext,
  taskIds: readonly string[],
  locked: unknown,
): Promise<StartResources> {
  const tasks = (context.plan?.tasks ?? []).filter((t) => taskIds.includes(t.id));
  const agents = tasks.map((t) => t.agent);
  const skills = tasks.flatMap((t) => (t.skill ? [t.skill] : []));
  if (Array.isArray(locked)) {
    const applied = appliedFrom(locked as AppliedResourceRow[]);
    if (agents.every((a) => applied.agents.has(a)) && skills.every((s) => applied.skills.has(s))) {
      return applied;
    }
  }
  return readApplied(tx, orgId, agents, skills);
}

/** An error a task or planner cannot start with. */
export class StartRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function activeAgent(applied: StartResources, slug: string) {
  const agent = applied.agents.get(slug);
  if (!agent) throw new StartRefused('AGENT_UNKNOWN', `agent "${slug}" no longer exists`);
  if (!agent.manifest.active) {
    throw new StartRefused(
      'AGENT_INACTIVE',
      `agent "${slug}" is not active (it was deactivated during the mission run)`,
    );
  }
  return agent;
}

/** What creates a child skill run of the mission run (`ActorHost.create`). */
function childArgs(mission: MissionRow, spec: ChildSpec, by: Attribution): CreateArgs<typeof SKILL_RUN_KIND> {
  const manifest: SkillRunManifest = { kind: 'skill', skill: spec.skill, agent: spec.agent };
  return {
    orgId: mission.orgId,
    input: (runId, at) => ({
      runId,
      slug: spec.skill.manifest.slug,
      requiresApproval: spec.skill.manifest.requiresApproval,
      ...(spec.conversation?.length
        ? { conversation: spec.conversation as SkillRunInput['conversation'] }
        : {}),
      at,
    }),
    columns: {
      slug: spec.skill.manifest.slug,
      name: spec.name,
      agent_slug: spec.agent.slug,
      created_by: mission.createdBy,
      api_token_id: mission.apiTokenId,
      workspace_sha: spec.workspaceSha,
      trace_id: mission.traceId,
      input: spec.input,
      manifest,
      mission_run_id: mission.id,
      mission_task_id: spec.taskId,
    },
    actingAs: by,
    // Earlier missions' tasks before later missions' planners and tasks: under load the queue is
    // served mission by mission, so a task whose dependencies finished starts without waiting behind
    // the work of every mission started after its own.
    jobsQueuedAt: mission.createdAt,
    // A task whose dependencies just finished goes before new work (planners, first tasks): its
    // mission is under way and waits on it. The queue claims it first and its statements go first for
    // a connection (platform/db/lanes.ts).
    ...(spec.handOver ? { jobsPriority: 1 } : {}),
  };
}

/** The agent as its child run keeps it: with its tool policy, which the run's tool loop applies. */
function agentSnapshot(manifest: AgentManifest): AgentSnapshot {
  const snapshot: AgentSnapshot = {
    slug: manifest.slug,
    name: manifest.name,
    systemPrompt: manifest.systemPrompt,
  };
  if (manifest.tools) snapshot.tools = manifest.tools;
  return snapshot;
}

/** Starts the planner's child run for `attempt`. */
export async function startPlanner(
  tx: ActorTx,
  deps: ChildDeps,
  mission: MissionRow,
  attempt: number,
  errors: readonly string[],
  by: Attribution,
  rounds: ReadonlyArray<{ draft: Record<string, unknown>; reason: string }> = [],
): Promise<number> {
  const { definition } = mission;
  const team = definition.team.map((m) => m.agent);
  const applied = await readApplied(tx, mission.orgId, [definition.planner, ...team], []);
  const planner = activeAgent(applied, definition.planner);
  const members = definition.team.map((member) => {
    const agent = applied.agents.get(member.agent);
    return {
      agent: member.agent,
      role: member.role,
      name: agent?.manifest.name ?? member.agent,
      skills: agent?.manifest.skillSlugs ?? [],
    };
  });
  const args = childArgs(
    mission,
    {
      taskId: plannerTaskId(attempt),
      agent: agentSnapshot(planner.manifest),
      skill: promptSkill('mission-planner', 'Planner', planner.manifest, definition.limits.maxToolCalls),
      name: `${definition.name}: plan${attempt > 1 ? ` (attempt ${attempt})` : ''}`,
      input: { prompt: plannerPrompt(mission, members, errors) },
      workspaceSha: planner.workspaceSha,
      handOver: false,
      conversation: rounds.map((r) => ({ draft: r.draft, reason: plannerRevision(r.reason, r.draft) })),
    },
    by,
  );
  return (await deps.host.create(tx, SKILL_RUN_KIND, args)).actor.row.id;
}

/** A task's child run about to be created: its id is taken (`args.id`), the mission run records it first. */
export interface TaskStart {
  task: string;
  args: CreateArgs<typeof SKILL_RUN_KIND> & { id: number };
}

/**
 * Settles the start of `taskIds` (in that order) in the mission run's transition, before its write:
 * their agents and skills read in one statement (or taken from `locked`, what the mission run's
 * locked load read: `appliedForTasks`), each child run's arguments built and its id taken.
 * The tasks that start, and those that cannot (`StartRefused`), with why; `createTasks` creates the
 * runs once the mission run has recorded them.
 */
export async function settleTasks(
  tx: ActorTx,
  deps: ChildDeps,
  mission: MissionRow,
  context: MissionRunContext,
  taskIds: readonly string[],
  by: Attribution,
  locked: unknown,
): Promise<{ starting: TaskStart[]; refused: Array<{ task: string; error: StartRefused }> }> {
  const applied = await appliedForTasks(tx, mission.orgId, context, taskIds, locked);
  const starting: TaskStart[] = [];
  const refused: Array<{ task: string; error: StartRefused }> = [];
  for (const task of taskIds) {
    let args: CreateArgs<typeof SKILL_RUN_KIND>;
    try {
      args = taskChild(mission, context, task, by, applied);
    } catch (error) {
      if (!(error instanceof StartRefused)) throw error;
      refused.push({ task, error });
      continue;
    }
    starting.push({ task, args: { ...args, id: await deps.host.allocateId(tx, SKILL_RUN_KIND) } });
  }
  return { starting, refused };
}

/** Creates the child runs of `starting` (settled by `settleTasks`) in one statement. */
export async function createTasks(
  tx: ActorTx,
  deps: ChildDeps,
  starting: readonly TaskStart[],
): Promise<void> {
  await deps.host.createMany(
    tx,
    SKILL_RUN_KIND,
    starting.map((s) => s.args),
  );
}

/** What creates task `taskId`'s child run, from `applied` (read in the same transaction). */
function taskChild(
  mission: MissionRow,
  context: MissionRunContext,
  taskId: string,
  by: Attribution,
  applied: StartResources,
): CreateArgs<typeof SKILL_RUN_KIND> {
  const tasks = context.plan?.tasks ?? [];
  const task = tasks.find((t) => t.id === taskId);
  if (!task) throw new Error(`mission run ${mission.id} has no task ${taskId}`);
  const agent = activeAgent(applied, task.agent);
  const dependencies = tasks.filter((t) => task.dependsOn.includes(t.id));
  const input = {
    goal: mission.goal,
    title: task.title,
    instructions: task.instructions,
    dependencies: Object.fromEntries(dependencies.map((d) => [d.id, d.output ?? {}])),
    prompt: taskPrompt(mission, task, dependencies),
  };
  let skill: SkillSnapshot;
  let workspaceSha = agent.workspaceSha;
  if (task.skill) {
    const found = applied.skills.get(task.skill);
    if (found?.manifest.status !== 'active') {
      throw new StartRefused('SKILL_UNAVAILABLE', `skill "${task.skill}" does not exist or is not active`);
    }
    if (!agent.manifest.skillSlugs.includes(task.skill)) {
      throw new StartRefused(
        'SKILL_UNAVAILABLE',
        `agent "${task.agent}" does not have skill "${task.skill}" wired`,
      );
    }
    skill = { manifest: found.manifest, promptMd: found.promptMd };
    workspaceSha = found.workspaceSha;
  } else {
    skill = promptSkill('mission-task', 'Task', agent.manifest, mission.definition.limits.maxToolCalls);
  }
  return childArgs(
    mission,
    {
      taskId,
      agent: agentSnapshot(agent.manifest),
      skill,
      name: `${mission.definition.name}: ${task.title}`,
      input,
      workspaceSha,
      handOver: task.dependsOn.length > 0,
    },
    by,
  );
}
