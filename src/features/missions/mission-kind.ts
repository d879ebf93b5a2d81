/**
 * The `mission-run` actor kind (rows of `mission_runs`) and its effects: mission events (a
 * `mission_run_events` row and an outbox message each; `started` only the message, for the
 * `mission.started` webhook), the child runs it starts and cancels (children.ts), and its review item
 * (kind `mission`). Also `reportChildEvent`: a child run's outcome sent to its mission run in the
 * child's own transaction.
 */
import { randomUUID } from 'node:crypto';
import {
  type CancelChildrenParams,
  type CloseReviewParams,
  type JsonObject,
  type MissionRunContext,
  type MissionRunEvent,
  type MissionTask,
  missionRunContextSchema,
  missionRunEventSchema,
  missionRunMachine,
  type OpenReviewParams,
  projectMissionRun,
  type RecordMissionEventParams,
  type StartPlannerParams,
  type StartTaskParams,
} from '../../../machines/index.js';
import { SYSTEM } from '../../platform/actors/acting-as.js';
import type { ActorHost, ActorTx } from '../../platform/actors/host.js';
import type { ActorKindDef, ColumnMap, EffectContext, EffectHandler } from '../../platform/actors/kind.js';
import type { TransitionWrites } from '../../platform/actors/writes.js';
import { missionEventSubject } from '../../platform/bus/subjects.js';
import { draftSummary, oneLineSummary, type ReviewItems } from '../reviews/index.js';
import { type ChildRunListener, SKILL_RUN_KIND } from '../runs/index.js';
import {
  APPLIED_WITH_LOCK,
  type ChildDeps,
  createTasks,
  missionRowOf,
  StartRefused,
  settleTasks,
  startPlanner,
} from './children.js';
import { plannerAttemptOf } from './definition.js';

/** The actor kind name. */
export const MISSION_RUN_KIND = 'mission-run';

/** The payload of a mission run event on the bus (outbox → `evt.<org>.mission.<id>.<event>`). */
export interface MissionEventPayload {
  eventId: string;
  orgId: number;
  missionRunId: number;
  mission: string | null;
  seq: number;
  event: string;
  status: string;
  task: string | null;
  output: unknown;
  at: string;
}

/** The columns of `mission_runs` the kind owns. */
const COLUMNS = {
  created_at: 'read',
  mission_slug: 'load',
  goal: 'load',
  input: 'load',
  definition: 'load',
  created_by: 'load',
  api_token_id: 'load',
  workspace_sha: 'create',
  trace_id: 'load',
  status: 'project',
  plan: 'project',
  error: 'project',
  review: 'project',
  completed_at: 'project',
} as const satisfies ColumnMap;

/** A mission run's effect handler, given its effect's params `P`. */
type Handler<P> = EffectHandler<P, typeof missionRunMachine>;

/** What a mission run's effect handler sees. */
type MissionEffectContext = EffectContext<typeof missionRunMachine>;

/** What an event carries as `output`: the plan, a started task's run id, a task's output. */
function eventOutput(event: string, task: string | undefined, context: MissionRunContext): unknown {
  const found = task === undefined ? undefined : context.plan?.tasks.find((t) => t.id === task);
  if (event === 'planned') return context.plan;
  if (event === 'task_started') return found ? { runId: found.runId } : null;
  if (event === 'task_completed') return found?.output ?? null;
  if (event === 'awaiting_review') return { stage: context.reviewStage };
  return null;
}

const recordMissionEvent: Handler<RecordMissionEventParams> = ({ event, task }, ctx) => {
  const { context } = ctx.after;
  const status = ctx.projection.status as string;
  const output = eventOutput(event, task, context);
  // `started` is the webhook's only: the stream's events are the eight of docs/api.md#missions.
  const seq = event === 'started' ? 0 : ctx.writes.nextSeq();
  if (event !== 'started') {
    ctx.writes.events.push({ seq, event, status, step: task ?? null, output, at: ctx.at });
  }
  const payload: MissionEventPayload = {
    eventId: randomUUID(),
    orgId: ctx.row.orgId,
    missionRunId: ctx.row.id,
    mission: (ctx.row.columns.mission_slug as string | null) ?? null,
    seq,
    event,
    status,
    task: task ?? null,
    output,
    at: ctx.at,
  };
  ctx.writes.outbox.push({
    subject: missionEventSubject(String(ctx.row.orgId), ctx.row.id, event),
    event_id: payload.eventId,
    payload,
  });
};

/** Sends `event` to the mission run of `ctx` (a follow-up's transaction). */
function sendToSelf(host: ActorHost, tx: ActorTx, ctx: MissionEffectContext, event: MissionRunEvent) {
  return host.send(tx, MISSION_RUN_KIND, { orgId: ctx.row.orgId, id: ctx.row.id }, event, {
    actingAs: SYSTEM,
  });
}

function childEffects(deps: ChildDeps): {
  startPlanner: Handler<StartPlannerParams>;
  startTask: Handler<StartTaskParams>;
  cancelChildren: Handler<CancelChildrenParams>;
} {
  const { host } = deps;
  // The tasks each transition starts (see startTask), by the transition's writes.
  const starting = new WeakMap<TransitionWrites, string[]>();
  return {
    startPlanner({ attempt, errors }, ctx) {
      const mission = missionRowOf(ctx);
      ctx.writes.followUp(async (tx) => {
        try {
          const rounds = ctx.after.context.planRounds ?? [];
          await startPlanner(tx, deps, mission, attempt, errors, ctx.actingAs, rounds);
        } catch (error) {
          if (!(error instanceof StartRefused)) throw error;
          await sendToSelf(host, tx, ctx, {
            type: 'PLANNER_FAILED',
            attempt,
            error: { code: error.code, message: error.message },
            at: ctx.at,
          });
        }
      });
    },
    startTask({ task }, ctx) {
      // The tasks one transition starts are settled together, before the mission run's write: their
      // agents and skills read in one statement and their runs' ids taken, then one TASK_STARTED
      // (all that start, with their run ids) and a TASK_FAILED of each that cannot are applied in
      // that same write (`TransitionWrites.settle`). The child runs are created right after it, in
      // one statement (in plan order).
      const batch = starting.get(ctx.writes);
      if (batch) {
        batch.push(task);
        return;
      }
      const tasks = [task];
      starting.set(ctx.writes, tasks);
      const mission = missionRowOf(ctx);
      const { context } = ctx.after;
      ctx.writes.settle(async (tx) => {
        starting.delete(ctx.writes);
        const locked = ctx.row.columns.applied;
        const settled = await settleTasks(tx, deps, mission, context, tasks, ctx.actingAs, locked);
        const runs = settled.starting;
        if (runs.length > 0) ctx.writes.followUp((tx) => createTasks(tx, deps, runs));
        const events: MissionRunEvent[] = settled.refused.map(({ task, error }) => ({
          type: 'TASK_FAILED',
          task,
          error: { code: error.code, message: error.message },
          at: ctx.at,
        }));
        if (runs.length > 0) {
          events.unshift({
            type: 'TASK_STARTED',
            tasks: runs.map((r) => ({ task: r.task, runId: r.args.id })),
            at: ctx.at,
          });
        }
        return events;
      });
    },
    cancelChildren(_params, ctx) {
      const { orgId, id } = ctx.row;
      ctx.writes.followUp(async (tx) => {
        const children = await tx.sql.query<{ id: number }>(
          `select id from runs where org_id = $1 and mission_run_id = $2 and status in ('running', 'pending')
            order by id`,
          [orgId, id],
        );
        for (const child of children) {
          await host.send(
            tx,
            SKILL_RUN_KIND,
            { orgId, id: child.id },
            { type: 'CANCEL', by: ctx.actingAs.actor, at: ctx.at },
            {
              actingAs: ctx.actingAs,
            },
          );
        }
      });
    },
  };
}

/**
 * A mission review item's summary: at plan review the plan's tasks (`2 tasks: Draft (writer); Edit
 * (editor)`), at result review the last finished task's output.
 */
function missionSummary(stage: 'plan' | 'result', tasks: readonly MissionTask[]): string | null {
  if (stage === 'plan') {
    const count = tasks.length === 1 ? '1 task' : `${tasks.length} tasks`;
    return oneLineSummary(`${count}: ${tasks.map((task) => `${task.title} (${task.agent})`).join('; ')}`);
  }
  const last = tasks.findLast((task) => task.output !== null);
  return draftSummary(last?.output ?? null);
}

function reviewEffects(items: ReviewItems): {
  openReview: Handler<OpenReviewParams>;
  closeReview: Handler<CloseReviewParams>;
} {
  return {
    openReview(_params, ctx) {
      const { context } = ctx.after;
      const name = (ctx.row.columns.definition as { name: string }).name;
      const stage = context.reviewStage === 'plan' ? 'plan' : 'result';
      const title = `${name}: ${stage} (mission run ${ctx.row.id})`;
      const summary = missionSummary(stage, context.plan?.tasks ?? []);
      ctx.writes.followUp((tx) =>
        items.open(
          tx,
          { orgId: ctx.row.orgId, kind: 'mission', id: ctx.row.id },
          { title, summary, assignTo: null, rounds: context.planRounds?.length ?? 0, actingAs: ctx.actingAs },
        ),
      );
    },
    closeReview({ reason }, ctx) {
      const { event } = ctx;
      const decided = reason === 'decided' && (event.type === 'APPROVE' || event.type === 'REJECT');
      const sentBack = reason === 'decided' && event.type === 'REQUEST_CHANGES';
      const decision = sentBack
        ? { action: 'request_changes' as const, by: event.by, reason: event.reason }
        : decided
          ? {
              action: event.type === 'APPROVE' ? ('approve' as const) : ('reject' as const),
              by: event.by,
              reason: (event.type === 'APPROVE' ? event.note : event.reason) ?? null,
              // The review.decided event says whether the reviewer's plan replaced the planner's.
              ...(event.type === 'APPROVE' && event.plan !== undefined ? { edited: true } : {}),
            }
          : null;
      ctx.writes.followUp((tx) =>
        items.close(
          tx,
          { orgId: ctx.row.orgId, kind: 'mission', id: ctx.row.id },
          { decision, at: ctx.at, actingAs: ctx.actingAs },
        ),
      );
    },
  };
}

/** The `mission-run` kind. */
export function missionRunKind(deps: {
  host: ActorHost;
  items: ReviewItems;
}): ActorKindDef<typeof missionRunMachine, typeof COLUMNS> {
  return {
    name: MISSION_RUN_KIND,
    machine: missionRunMachine,
    eventSchema: missionRunEventSchema,
    table: 'mission_runs',
    sequence: 'mission_runs_id_seq',
    contextSchema: missionRunContextSchema,
    columns: COLUMNS,
    // The plan carries every task's output and is rewritten by each task's report: it lives in its
    // column only, not in the stored snapshot too (docs/architecture.md, "Persisted actors").
    contextInColumns: { plan: 'plan' },
    project: (snapshot) => {
      const p = projectMissionRun(snapshot);
      return {
        status: p.status,
        plan: p.plan,
        error: p.error,
        review: p.review,
        completed_at: p.completedAt,
      };
    },
    runEvents: true,
    eventsTable: 'mission_run_events',
    // A report loads the row locked; the tasks it starts need their agents and skills (children.ts).
    lockedWith: { applied: APPLIED_WITH_LOCK },
    effects: {
      recordMissionEvent,
      ...childEffects({ host: deps.host }),
      ...reviewEffects(deps.items),
    },
  };
}

/**
 * A child run's event told to its mission run (see `ChildRunListener`): the planner's completion is
 * its plan (PLAN_PROPOSED), its failure or cancellation PLANNER_FAILED; a task's completion (or its
 * approval, once the draft exists) TASK_SUCCEEDED with the run's output, its failure, rejection or
 * cancellation TASK_FAILED. Artifacts the child made are the mission run's from then on.
 */
export function reportChildEvent(host: ActorHost): ChildRunListener {
  return (ctx, event) => {
    const orgId = ctx.row.orgId;
    const missionRunId = Number(ctx.row.columns.mission_run_id);
    const taskId = String(ctx.row.columns.mission_task_id);
    const status = ctx.projection.status as string;
    const output = (ctx.projection.output as JsonObject | null) ?? null;
    const error = (ctx.projection.error as { code: string; message: string } | null) ?? null;
    const at = ctx.at;
    const attempt = plannerAttemptOf(taskId);
    let message: MissionRunEvent | null = null;
    const failure = (code: string, text: string) => ({ code, message: text });
    const childFailed =
      event === 'failed'
        ? (error ?? failure('FAILED', `run ${ctx.row.id} failed`))
        : event === 'cancelled'
          ? failure('CANCELLED', `run ${ctx.row.id} was cancelled`)
          : event === 'rejected'
            ? failure('REJECTED', `run ${ctx.row.id} was rejected by its reviewer`)
            : null;
    const succeeded =
      output !== null &&
      (event === 'completed' ||
        (event === 'approved' && output !== null) ||
        (event === 'step_completed' && status === 'approved'));
    if (attempt !== null) {
      if (event === 'completed' && output) message = { type: 'PLAN_PROPOSED', attempt, output, at };
      else if (childFailed && event !== 'rejected')
        message = { type: 'PLANNER_FAILED', attempt, error: childFailed, at };
    } else if (succeeded) {
      message = { type: 'TASK_SUCCEEDED', task: taskId, output, at };
    } else if (childFailed) {
      message = {
        type: 'TASK_FAILED',
        task: taskId,
        error: { code: childFailed.code, message: childFailed.message },
        at,
      };
    }
    if (!message) return;
    const sent = message;
    // The mission run's locked load goes out now, pipelined with the child's own write: the report
    // below finds its row there instead of a round trip of its own.
    host.loadAhead(ctx.tx, MISSION_RUN_KIND, { orgId, id: missionRunId });
    // A run's artifacts are made by its tool calls only (create_artifact, generate_image): one that
    // made no call (its context counts them) has none to hand over.
    const calls = (ctx.after.context as { toolCalls?: number }).toolCalls;
    ctx.writes.followUp(async (tx) => {
      if (calls !== 0) {
        await tx.sql.query(
          'update artifacts set mission_run_id = $1 where org_id = $2 and run_id = $3 and mission_run_id is null',
          [missionRunId, orgId, ctx.row.id],
        );
      }
      // What the children of one mission run report in one transaction (siblings finishing together,
      // reported together: execute-step.ts) reaches it as one transition, at the transaction's end.
      tx.gather(`${MISSION_RUN_KIND}:${orgId}:${missionRunId}`, sent, (tx, messages) =>
        tellMissionRun(host, tx, { orgId, id: missionRunId }, messages, ctx.actingAs),
      );
    });
  };
}

/**
 * Sends `messages` (its children's reports) to mission run `ref` as one transition: the first, the
 * rest after it in the same write (`SendOptions.followedBy`). Its row is loaded locked: sibling reports
 * of other transactions wait for each other on it instead of all but one failing the version check
 * and rerunning the whole transaction. A first message it refuses (a duplicate report) is dropped and
 * the rest sent.
 */
async function tellMissionRun(
  host: ActorHost,
  tx: ActorTx,
  ref: { orgId: number; id: number },
  messages: MissionRunEvent[],
  actingAs: EffectContext['actingAs'],
): Promise<void> {
  for (let i = 0; i < messages.length; i++) {
    const [first, ...followedBy] = messages.slice(i);
    if (!first) return;
    const sent = await host.send(tx, MISSION_RUN_KIND, ref, first, { actingAs, lock: true, followedBy });
    if (sent.outcome === 'applied' || sent.outcome === 'not_found') return;
  }
}
