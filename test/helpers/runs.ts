/**
 * Runs for tests that are about the actor machinery rather than the workspace: a skill or workflow run
 * created straight through the actor host, with its manifest given inline (what a trigger would have
 * resolved from the workspace).
 */

import { createRunCancellations } from '../../src/features/runs/cancellations.js';
import { createStepExecutor, EXECUTE_STEP_JOB } from '../../src/features/runs/execute-step.js';
import { SKILL_RUN_KIND, WORKFLOW_RUN_KIND } from '../../src/features/runs/run-kinds.js';
import { createSchemaCache } from '../../src/features/runs/schema-cache.js';
import type { RunManifest } from '../../src/features/runs/targets.js';
import type { CreatedToken } from '../../src/features/tokens/service.js';
import type { SkillManifest } from '../../src/features/workspace/skill-manifest.js';
import type { App } from '../../src/main.js';
import { SYSTEM } from '../../src/platform/actors/acting-as.js';
import type { ActorHost, Transitioned } from '../../src/platform/actors/host.js';
import type { ActorTx } from '../../src/platform/actors/tx.js';
import type { CreateArgs } from '../../src/platform/actors/types.js';
import { createJobQueue, type JobQueue } from '../../src/platform/jobs/queue.js';
import { createLogger } from '../../src/platform/log.js';
import type { ModelProviderRegistry } from '../../src/platform/models/providers/index.js';
import { ALL_SCOPES, type TestApp } from './app.js';

/** The org id of `slug` (created by `t.token({org})`). */
export async function orgIdOf(app: App, slug = 'acme'): Promise<number> {
  const row = await app.db.sql.one<{ id: number }>('select id from orgs where slug = $1', [slug]);
  return row.id;
}

/** Run `id`'s events, oldest first, as `event` or `event:step`. */
export async function runEventNames(app: App, id: number): Promise<string[]> {
  const rows = await app.db.sql.query<{ event: string; step: string | null }>(
    'select event, step from run_events where run_id = $1 order by seq',
    [id],
  );
  return rows.map((e) => (e.step ? `${e.event}:${e.step}` : e.event));
}

/** A skill manifest with defaults. */
export function skillManifest(slug: string, overrides: Partial<SkillManifest> = {}): SkillManifest {
  return {
    slug,
    name: `Skill ${slug}`,
    description: '',
    category: 'general',
    status: 'active',
    form: 'prompt',
    requiresApproval: false,
    ...overrides,
  };
}

/** What a test skill run is made of (`createSkillRun`). */
export interface SkillRunOptions {
  slug?: string;
  requiresApproval?: boolean;
  promptMd?: string;
  input?: Record<string, unknown>;
  manifest?: Partial<SkillManifest>;
  jobsQueuedAt?: string;
  jobsPriority?: number;
}

/** The creation of a skill run of `slug` (`ActorHost.create`). */
export function skillRunArgs(
  orgId: number,
  options: SkillRunOptions = {},
): CreateArgs<typeof SKILL_RUN_KIND> {
  const slug = options.slug ?? 'summarize';
  const requiresApproval = options.requiresApproval ?? false;
  const manifest: RunManifest = {
    kind: 'skill',
    skill: {
      manifest: skillManifest(slug, { requiresApproval, ...options.manifest }),
      promptMd: options.promptMd ?? 'Summarize: {{input.text}}',
    },
    agent: null,
  };
  return {
    orgId,
    input: (runId, at) => ({ runId, slug, requiresApproval, at }),
    columns: {
      slug,
      name: `Skill ${slug}`,
      agent_slug: null,
      created_by: 'system',
      api_token_id: null,
      workspace_sha: 'abc1234',
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      input: options.input ?? { text: 'hello' },
      manifest,
    },
    actingAs: SYSTEM,
    ...(options.jobsQueuedAt ? { jobsQueuedAt: options.jobsQueuedAt } : {}),
    ...(options.jobsPriority ? { jobsPriority: options.jobsPriority } : {}),
  };
}

/** Creates a skill run of `slug` in `tx` (default: its own transaction), on `host` (default: the app's). */
export async function createSkillRun(
  app: App,
  orgId: number,
  options: SkillRunOptions & { tx?: ActorTx; host?: ActorHost } = {},
): Promise<Transitioned> {
  const host = options.host ?? app.actors;
  const create = (tx: ActorTx) => host.create(tx, SKILL_RUN_KIND, skillRunArgs(orgId, options));
  return options.tx ? create(options.tx) : host.transact(create);
}

/** Creates a workflow run from `manifest` (a workflow run manifest). */
export async function createWorkflowRun(
  app: App,
  orgId: number,
  manifest: Extract<RunManifest, { kind: 'workflow' }>,
  input: Record<string, unknown> = {},
): Promise<Transitioned> {
  const slug = manifest.workflow.slug;
  const steps = manifest.workflow.steps.map((step) =>
    step.type === 'approve'
      ? {
          name: step.name,
          type: 'approve' as const,
          ...(step.title ? { title: step.title } : {}),
          assignTo: step.assignTo ?? null,
        }
      : { name: step.name, type: 'skill' as const },
  );
  return app.actors.transact((tx) =>
    app.actors.create(tx, WORKFLOW_RUN_KIND, {
      orgId,
      input: (runId, at) => ({ runId, slug, steps, at }),
      columns: {
        slug,
        name: manifest.workflow.name,
        agent_slug: null,
        created_by: 'system',
        api_token_id: null,
        workspace_sha: 'abc1234',
        trace_id: '0af7651916cd43dd8448eb211c80319c',
        input,
        manifest,
      },
      actingAs: SYSTEM,
    }),
  );
}

/** Counts of the rows transitions write. */
export interface RowCounts {
  runs: number;
  review_items: number;
  transitions: number;
  events: number;
  outbox: number;
  jobs: number;
  timers: number;
  audit: number;
}

/** Counts of the rows a transition writes, for "nothing half-written" checks. */
export async function rowCounts(app: App): Promise<RowCounts> {
  const row = await app.db.sql.one<RowCounts>(
    `select (select count(*)::int from runs) as runs,
            (select count(*)::int from review_items) as review_items,
            (select count(*)::int from actor_transitions) as transitions,
            (select count(*)::int from run_events) as events,
            (select count(*)::int from outbox_messages) as outbox,
            (select count(*)::int from jobs) as jobs,
            (select count(*)::int from timers) as timers,
            (select count(*)::int from audit_log) as audit`,
  );
  return row;
}

/** The event types of actor `id` of `kind`'s transition log, in order. */
export async function loggedEvents(app: App, kind: string, id: number): Promise<string[]> {
  const rows = await app.db.sql.query<{ event_type: string }>(
    'select event_type from actor_transitions where actor_kind = $1 and actor_id = $2 order by id',
    [kind, id],
  );
  return rows.map((r) => r.event_type);
}

/** Orgs `red` and `blue`, each with a token of every scope and one skill run. */
export interface TwoOrgs {
  red: CreatedToken;
  blue: CreatedToken;
  redRun: number;
  blueRun: number;
}

/** Creates `TwoOrgs` on `t`: for tests of tenant isolation. */
export async function twoOrgsWithRuns(t: TestApp): Promise<TwoOrgs> {
  const red = await t.token({ org: 'red', scopes: ALL_SCOPES });
  const blue = await t.token({ org: 'blue', scopes: ALL_SCOPES });
  const redRun = (await createSkillRun(t.app, await orgIdOf(t.app, 'red'))).actor.row.id;
  const blueRun = (await createSkillRun(t.app, await orgIdOf(t.app, 'blue'))).actor.row.id;
  return { red, blue, redRun, blueRun };
}

/**
 * A job queue of its own over `t`'s app (no workers: its jobs run when a test says) with a step
 * executor registered for `execute_step`: the app's providers unless `providers`.
 */
export function stepExecutorQueue(
  t: TestApp,
  options: { providers?: ModelProviderRegistry; leaseMs?: number } = {},
): JobQueue {
  const log = createLogger('silent');
  const queue = createJobQueue({
    db: t.app.db.sql,
    bus: t.app.bus,
    clock: t.clock,
    log,
    concurrency: 0,
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  });
  const executor = createStepExecutor({
    db: t.app.db.sql,
    host: t.app.actors,
    clock: t.clock,
    log,
    providers: options.providers ?? t.app.models,
    schemas: createSchemaCache(),
    tracing: t.app.tracing,
    tools: t.app.agentTools,
    runDeadlineMs: 600_000,
    cancellations: createRunCancellations(t.app.bus, log),
  });
  queue.register(EXECUTE_STEP_JOB, executor.handler, executor.options);
  return queue;
}
