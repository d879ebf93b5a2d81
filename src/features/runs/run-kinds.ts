/**
 * The two run kinds of the actor host (`skill-run`, `workflow-run`, both rows of `runs`, told apart
 * by `kind`) and their effects: run events (a `run_events` row plus an outbox row each), and opening
 * and closing the run's review item (a transition of a `review-item` actor in the same transaction).
 */
import { randomUUID } from 'node:crypto';
import {
  type CloseReviewParams,
  isEdit,
  type OpenReviewParams,
  projectSkillRun,
  projectWorkflowRun,
  type RecordEventParams,
  type RunApproveEvent,
  type RunRejectEvent,
  type RunRequestChangesEvent,
  type RunReview,
  type SkillRunContext,
  skillRunContextSchema,
  skillRunEventSchema,
  skillRunMachine,
  type UpdateReviewParams,
  workflowRunContextSchema,
  workflowRunEventSchema,
  workflowRunMachine,
} from '../../../machines/index.js';
import type {
  ActorKindDef,
  ActorRow,
  ColumnMap,
  EffectContext,
  EffectHandler,
  Projected,
} from '../../platform/actors/kind.js';
import { runEventSubject } from '../../platform/bus/subjects.js';
import type { Metrics } from '../../platform/metrics/metrics.js';
import { draftSummary, type ReviewDecision, type ReviewItems } from '../reviews/index.js';

/** Actor kind names of runs. */
export const SKILL_RUN_KIND = 'skill-run';
export const WORKFLOW_RUN_KIND = 'workflow-run';
/** Both run kinds: send to a run without knowing which it is. */
export const RUN_KINDS = [SKILL_RUN_KIND, WORKFLOW_RUN_KIND] as const;

/** Either run kind's machine: the run kinds share their effect handlers. */
type RunMachine = typeof skillRunMachine | typeof workflowRunMachine;

/** The payload of a run event on the bus (outbox → `evt.<org>.run.<runId>.<event>`). */
export interface RunEventPayload {
  eventId: string;
  orgId: number;
  runId: number;
  kind: 'skill' | 'workflow';
  slug: string;
  seq: number;
  event: string;
  status: string;
  step: string | null;
  output: unknown;
  workspaceSha: string | null;
  /** On `approved`: the reviewer edited the output (decisions.md §15); absent otherwise. */
  edited?: true;
  /** A shadow run's (an evaluation's replay): never delivered to webhooks; absent otherwise. */
  shadow?: true;
  at: string;
}

/** The columns of `runs` the run kinds own (the same for both). */
const COLUMNS = {
  kind: 'load',
  slug: 'load',
  name: 'load',
  agent_slug: 'create',
  created_by: 'create',
  api_token_id: 'create',
  workspace_sha: 'load',
  trace_id: 'create',
  input: 'create',
  manifest: 'create',
  mission_run_id: 'load',
  mission_task_id: 'load',
  fork_of_run_id: 'create',
  fork_from_step: 'create',
  replay_of_run_id: 'create',
  shadow: 'load',
  status: 'project',
  paused_at: 'project',
  review_state: 'project',
  output: 'project',
  draft_output: 'project',
  error: 'project',
  review: 'project',
  step_results: 'project',
  completed_at: 'project',
  review_rounds: 'project',
} as const satisfies ColumnMap;

function columns(
  p: ReturnType<typeof projectSkillRun> | ReturnType<typeof projectWorkflowRun>,
): Projected<typeof COLUMNS> {
  return {
    status: p.status,
    paused_at: p.pausedAt,
    review_state: p.reviewState,
    output: p.output,
    draft_output: p.draftOutput,
    error: p.error,
    review: p.review,
    step_results: p.stepResults,
    completed_at: p.completedAt,
    review_rounds: 'rounds' in p ? p.rounds : null,
  };
}

/**
 * What a run event carries as `output`: the step's output, the run's at a decision or the end, or
 * for `tool_completed` the call (`{id, tool, status, errorCode}`; its result is on `GET /runs/:id`).
 */
function eventOutput(
  event: string,
  step: string | undefined,
  projection: Record<string, unknown>,
  cause: EffectContext<RunMachine>['event'],
): unknown {
  if (event === 'tool_completed' && cause.type === 'TOOL_COMPLETED') {
    return { id: cause.callId, tool: cause.tool, status: cause.status, errorCode: cause.errorCode };
  }
  if (event === 'step_completed' && step !== undefined) {
    const results = projection.step_results as Record<string, { output: unknown }>;
    return results[step]?.output ?? null;
  }
  if (event === 'completed' || event === 'approved' || event === 'paused_for_review') {
    return projection.output ?? null;
  }
  return null;
}

/** Run events that are not a change of the run's status (every other one is: `r3_runs_total`). */
const STEP_EVENTS = new Set(['step_started', 'step_completed', 'tool_completed']);

/**
 * Told each event of a run that belongs to a mission run (`mission_run_id` set: a planner's or a
 * task's child run), inside the run's transition: the mission feature reports outcomes to the mission
 * run from here, as follow-ups in the same transaction.
 */
export type ChildRunListener = (ctx: EffectContext, event: RecordEventParams['event']) => void;

/** The `recordEvent` effect; once committed, a status change counts in `runs` (`r3_runs_total`). */
const recordEvent =
  (
    runs: Metrics['runs'],
    children: readonly ChildRunListener[],
  ): EffectHandler<RecordEventParams, RunMachine> =>
  (params, ctx) => {
    const { event, step } = params;
    const seq = ctx.writes.nextSeq();
    const status = ctx.projection.status as string;
    if (!STEP_EVENTS.has(event)) {
      const kind = ctx.row.columns.kind as string;
      ctx.tx.afterCommit(() => runs.inc({ kind, status }));
    }
    const output = eventOutput(event, step, ctx.projection, ctx.event);
    ctx.writes.events.push({ seq, event, status, step: step ?? null, output, at: ctx.at });
    const payload: RunEventPayload = {
      eventId: randomUUID(),
      orgId: ctx.row.orgId,
      runId: ctx.row.id,
      kind: ctx.row.columns.kind as 'skill' | 'workflow',
      slug: ctx.row.columns.slug as string,
      seq,
      event,
      status,
      step: step ?? null,
      output,
      workspaceSha: (ctx.row.columns.workspace_sha as string | null) ?? null,
      ...(event === 'approved' && (ctx.projection.review as RunReview | null)?.edited
        ? { edited: true }
        : {}),
      ...(ctx.row.columns.shadow === true ? { shadow: true } : {}),
      at: ctx.at,
    };
    ctx.writes.outbox.push({
      subject: runEventSubject(String(ctx.row.orgId), ctx.row.id, event),
      event_id: payload.eventId,
      payload,
    });
    if (ctx.row.columns.mission_run_id != null) {
      for (const listener of children) listener(ctx, event);
    }
  };

/**
 * The runs kinds' extra write (`extraRows.step_executions`): a step's result, recorded by the same
 * statement as the transition that takes it (see execute-step.ts).
 */
const stepExecutionWrite = (rows: string): string => `
  insert into step_executions (run_id, step, attempt, org_id, output, error, meta, started_at, finished_at)
  select x.run_id, x.step, x.attempt, x.org_id, x.output, x.error, coalesce(x.meta, '{}'::json), x.started_at,
         x.finished_at
    from json_to_recordset(${rows})
      as x(run_id bigint, step text, attempt integer, org_id bigint, output json, error json, meta json,
           started_at timestamptz, finished_at timestamptz)
    join a on a.id = x.run_id
  on conflict (run_id, step, attempt) do nothing`;

/**
 * The runs kinds' extra write (`extraRows.tool_calls`): a tool call recorded `running` with the run's
 * TOOLS_REQUESTED, and its outcome with its TOOL_COMPLETED (only over a row still `running`), each by
 * the same statement as the transition (see tool-loop.ts).
 */
const toolCallWrite = (rows: string): string => `
  insert into tool_calls (run_id, call_id, org_id, step, turn, position, tool, arguments, raw_arguments,
                          assistant_content, status, result, error, started_at, completed_at, replayed)
  select x.run_id, x.call_id, x.org_id, x.step, x.turn, x.position, x.tool, x.arguments, x.raw_arguments,
         x.assistant_content, x.status, x.result, x.error, x.started_at, x.completed_at, x.replayed
    from json_to_recordset(${rows})
      as x(run_id bigint, call_id text, org_id bigint, step text, turn integer, position integer, tool text,
           arguments json, raw_arguments text, assistant_content text, status text, result json, error json,
           started_at timestamptz, completed_at timestamptz, replayed boolean)
    join a on a.id = x.run_id
  on conflict (run_id, call_id) do update
     set status = excluded.status, result = excluded.result, error = excluded.error,
         completed_at = excluded.completed_at, replayed = excluded.replayed
   where tool_calls.status = 'running'`;

/**
 * The runs kinds' extra write (`extraRows.run_objects`): the object instances a run used (docs/api.md
 * "Runs": named in its body, or returned by `lookup_objects`/`search_knowledge`), each only when it is
 * an instance of the run's org; a link that exists stays as it was.
 */
const runObjectWrite = (rows: string): string => `
  insert into run_objects (run_id, object_id, org_id, via)
  select x.run_id, x.object_id, x.org_id, x.via
    from json_to_recordset(${rows}) as x(run_id bigint, object_id bigint, org_id bigint, via text)
    join a on a.id = x.run_id
    join object_instances o on o.id = x.object_id and o.org_id = x.org_id
  on conflict (run_id, object_id) do nothing`;

/**
 * The review item's title, with the run id: a skill run's own title (its skill's `titleTemplate` over
 * the input) or the skill's name; a gate's title or `<workflow name>: <step>`.
 */
export function reviewTitle(
  name: string,
  runId: number,
  named: { title?: string | undefined; gate?: string | undefined } = {},
): string {
  if (named.title) return `${named.title} (run ${runId})`;
  if (named.gate !== undefined) return `${name}: ${named.gate} (run ${runId})`;
  return `${name} (run ${runId})`;
}

function reviewEffects(items: ReviewItems): {
  openReview: EffectHandler<OpenReviewParams, RunMachine>;
  updateReview: EffectHandler<UpdateReviewParams, RunMachine>;
  closeReview: EffectHandler<CloseReviewParams, RunMachine>;
} {
  return {
    openReview(params, ctx) {
      const { title, assignTo } = params;
      const kind = ctx.row.columns.kind as 'skill' | 'workflow';
      const runId = ctx.row.id;
      const name = ctx.row.columns.name as string;
      const gate = kind === 'workflow' ? String(ctx.projection.paused_at) : undefined;
      const rounds = kind === 'skill' ? ((ctx.after.context as SkillRunContext).rounds?.length ?? 0) : 0;
      const item = {
        title: reviewTitle(name, runId, { title, gate }),
        summary: draftSummary(ctx.after.context.output),
        assignTo: assignTo ?? null,
        rounds,
        actingAs: ctx.actingAs,
      };
      ctx.writes.followUp((tx) => items.open(tx, { orgId: ctx.row.orgId, kind, id: runId }, item));
    },
    updateReview(_params, ctx) {
      const kind = ctx.row.columns.kind as 'skill' | 'workflow';
      const subject = { orgId: ctx.row.orgId, kind, id: ctx.row.id };
      const change = { at: ctx.at, summary: draftSummary(ctx.after.context.output), actingAs: ctx.actingAs };
      ctx.writes.followUp((tx) => items.update(tx, subject, change));
    },
    closeReview({ reason }, ctx) {
      const kind = ctx.row.columns.kind as 'skill' | 'workflow';
      const { event } = ctx;
      const decided =
        reason === 'decided' &&
        (event.type === 'APPROVE' || event.type === 'REJECT' || event.type === 'REQUEST_CHANGES');
      const decision = decided ? reviewDecision(event) : null;
      ctx.writes.followUp((tx) =>
        items.close(
          tx,
          { orgId: ctx.row.orgId, kind, id: ctx.row.id },
          { decision, at: ctx.at, actingAs: ctx.actingAs },
        ),
      );
    },
  };
}

/** The review item's decision for a run's APPROVE, REJECT or REQUEST_CHANGES. */
function reviewDecision(event: RunApproveEvent | RunRejectEvent | RunRequestChangesEvent): ReviewDecision {
  if (event.type === 'REQUEST_CHANGES')
    return { action: 'request_changes', by: event.by, reason: event.reason };
  const approve = event.type === 'APPROVE';
  return {
    action: approve ? 'approve' : 'reject',
    by: event.by,
    reason: (approve ? event.note : event.reason) ?? null,
    ...(approve && isEdit(event) ? { edited: true } : {}),
  };
}

/**
 * The priority of a shadow run's jobs, all of them (its first step's, and any a later transition
 * enqueues): below every other (src/platform/jobs/interfaces.ts `Job.priority`), so an evaluation
 * never crowds out real work.
 */
export const SHADOW_JOB_PRIORITY = -1;

/**
 * The `skill-run` and `workflow-run` kinds, whose review items open and close through `items`; their
 * status changes count in `metrics.runs`.
 */
export function runKinds(
  items: ReviewItems,
  metrics: Pick<Metrics, 'runs'>,
  children: readonly ChildRunListener[] = [],
): ActorKindDef[] {
  const effects = { recordEvent: recordEvent(metrics.runs, children), ...reviewEffects(items) };
  const shared = {
    table: 'runs',
    sequence: 'runs_id_seq',
    columns: COLUMNS,
    // The output and the steps' results, a run's largest values, live in their columns only: the
    // stored snapshot leaves them out (docs/architecture.md, "Persisted actors").
    contextInColumns: { output: 'output', stepResults: 'step_results' } as const,
    // Only an evaluation's replays are shadow runs; every other creator leaves the column out.
    createDefaults: { shadow: false },
    runEvents: true,
    effects,
    extraWrites: {
      step_executions: stepExecutionWrite,
      tool_calls: toolCallWrite,
      run_objects: runObjectWrite,
    },
    // Run updates batch best one statement at a time: with three in flight, batches of a few rows
    // each paid a whole statement's set-up and commit (docs/performance.md, "Choices in the code").
    updatesInFlight: 1,
    // A shadow run's jobs stay in the background for its whole life, not only its creation's.
    jobsPriority: (row: ActorRow) => (row.columns.shadow === true ? SHADOW_JOB_PRIORITY : undefined),
    // A mission's child run's jobs name their mission run: their step reads its run alone
    // (execute-step.ts, `readRun`).
    jobsPayload: (row: ActorRow) =>
      row.columns.mission_run_id == null ? undefined : { missionRunId: Number(row.columns.mission_run_id) },
  };
  return [
    {
      ...shared,
      name: SKILL_RUN_KIND,
      machine: skillRunMachine,
      discriminator: { column: 'kind', value: 'skill' },
      eventSchema: skillRunEventSchema,
      contextSchema: skillRunContextSchema,
      project: (snapshot) => columns(projectSkillRun(snapshot)),
    } satisfies ActorKindDef<typeof skillRunMachine, typeof COLUMNS>,
    {
      ...shared,
      name: WORKFLOW_RUN_KIND,
      machine: workflowRunMachine,
      discriminator: { column: 'kind', value: 'workflow' },
      eventSchema: workflowRunEventSchema,
      contextSchema: workflowRunContextSchema,
      project: (snapshot) => columns(projectWorkflowRun(snapshot)),
    } satisfies ActorKindDef<typeof workflowRunMachine, typeof COLUMNS>,
  ];
}
