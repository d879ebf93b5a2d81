/**
 * mission-run: one execution of a mission (docs/api.md "Missions"), persisted as an actor.
 *
 * Terminology:
 * - planner: a child skill run of the planner agent (`startPlanner`), whose output must be a plan
 *   (plan.ts). A plan that is not valid is sent back once, with the reasons (attempt 2); a second
 *   invalid plan fails the run `PLAN_INVALID`. A planner run that fails fails the run `PLANNER_FAILED`.
 * - task: an entry of the accepted plan. A task is *ready* when it is pending and every task it
 *   depends on completed; ready tasks start (`startTask`: a child skill run of the task's agent, whose
 *   run id comes back as TASK_STARTED) in plan order while fewer than `maxParallel` are running.
 *   A task's output is its child run's; a failed task fails the run (`TASK_FAILED`, naming it).
 * - review stage: what `awaiting_review` waits for: the plan (review `plan` or `both`, before any task
 *   starts) or the result (review `result` or `both`, after the last task completed). Approve resumes
 *   (plan → executing, result → completed); reject cancels. The decision keeps the stage it decided.
 * - transient states: `planned` (where an accepted plan goes) and `advancing` (after a task completed:
 *   the result review, completed, or start what became ready). A persisted snapshot is never in one.
 * - cancel: accepted in every non-final state; the run's child runs still going are cancelled with it
 *   (`cancelChildren`), as they are when it fails.
 *
 * - round (decisions.md §15 "Request changes"): at plan review a reviewer may send the plan back with a
 *   reason (REQUEST_CHANGES, at most `MAX_REVIEW_ROUNDS` times): the item closes, the plan and the
 *   reason are kept in `planRounds`, and the run plans again (`planning`) with a new planner attempt,
 *   whose model is asked with each earlier plan and reason as turns. An invalid plan is sent back once
 *   per round, as in the first (`planRoundStart`).
 *
 * Every task starts at most once: a task is marked running in the transition that emits its
 * `startTask`, and only a pending task is ever started.
 */
import { and, assertEvent, assign, enqueueActions, setup } from 'xstate';
import { effectActionsOf, type MissionEventName, type RecordMissionEventParams } from '../shared/effects.js';
import { MAX_REVIEW_ROUNDS, reviewFrom, roundFrom } from '../shared/run.js';
import type { MissionRunContext, MissionTask } from './context.js';
import type { MissionRunEvent, MissionRunInput } from './events.js';
import { checkPlan, type Plan } from './plan.js';

export type { MissionRunProjection, MissionRunStatus } from './project.js';
export { MISSION_RUN_STATUSES, projectMissionRun } from './project.js';

/** How many planner attempts a run makes: the first, and one more after an invalid plan. */
export const MAX_PLAN_ATTEMPTS = 2;

const record = (event: MissionEventName) => ({ type: 'recordMissionEvent', params: { event } }) as const;

const tasksOf = (context: Pick<MissionRunContext, 'plan'>): MissionTask[] => context.plan?.tasks ?? [];

/** An accepted plan's tasks, each pending (not started, no output). */
function pendingTasks(plan: Plan): { tasks: MissionTask[] } {
  return {
    tasks: plan.tasks.map((t) => ({
      id: t.id,
      title: t.title,
      agent: t.agent,
      skill: t.skill ?? null,
      instructions: t.instructions,
      dependsOn: [...new Set(t.dependsOn)],
      status: 'pending' as const,
      runId: null,
      output: null,
    })),
  };
}

/** The tasks that start now: ready ones, in plan order, up to the free slots of `maxParallel`. */
export function tasksToStart(context: MissionRunContext): string[] {
  const tasks = tasksOf(context);
  const done = new Set(tasks.filter((t) => t.status === 'completed').map((t) => t.id));
  const running = tasks.filter((t) => t.status === 'running').length;
  const free = Math.max(0, context.maxParallel - running);
  return tasks
    .filter((t) => t.status === 'pending' && t.dependsOn.every((dep) => done.has(dep)))
    .slice(0, free)
    .map((t) => t.id);
}

function withTasks(
  context: MissionRunContext,
  change: (task: MissionTask) => MissionTask,
): Pick<MissionRunContext, 'plan'> {
  return context.plan ? { plan: { tasks: context.plan.tasks.map(change) } } : { plan: null };
}

/** A plan as the planner proposed it (`{tasks}` without their state): what a round sends back. */
export function proposedPlan(context: Pick<MissionRunContext, 'plan'>) {
  return {
    tasks: tasksOf(context).map((t) => ({
      id: t.id,
      title: t.title,
      agent: t.agent,
      ...(t.skill === null ? {} : { skill: t.skill }),
      instructions: t.instructions,
      dependsOn: t.dependsOn,
    })),
  };
}

const isRunningTask = (context: MissionRunContext, id: string) =>
  tasksOf(context).some((t) => t.id === id && t.status === 'running');

/** The mission-run machine (`id` `mission-run`, `version` `1`). */
export const missionRunMachine = setup({
  types: {
    context: {} as MissionRunContext,
    events: {} as MissionRunEvent,
    input: {} as MissionRunInput,
  },
  actions: {
    ...effectActionsOf(
      'cancelChildren',
      'closeReview',
      'openReview',
      'recordMissionEvent',
      'startPlanner',
      'startTask',
    ),
    /** One `startTask` per task that starts now; before `markStarted`, so both see the same ready set. */
    startReady: enqueueActions(({ context, enqueue }) => {
      for (const task of tasksToStart(context)) enqueue({ type: 'startTask', params: { task } });
    }),
    storePlan: assign(({ context, event }) => {
      assertEvent(event, 'PLAN_PROPOSED');
      const check = checkPlan(event.output, context);
      if (!check.ok) return {};
      return { planErrors: null, plan: pendingTasks(check.plan) };
    }),
    storePlanErrors: assign(({ context, event }) => {
      assertEvent(event, 'PLAN_PROPOSED');
      const check = checkPlan(event.output, context);
      return {
        planErrors: check.ok ? null : check.errors,
        planAttempt: context.planAttempt + 1,
      };
    }),
    failPlanInvalid: assign(({ context, event }) => {
      assertEvent(event, 'PLAN_PROPOSED');
      const check = checkPlan(event.output, context);
      const errors = check.ok ? [] : check.errors;
      return {
        planErrors: errors,
        error: {
          code: 'PLAN_INVALID',
          message: `the planner's plan is not valid after ${context.planAttempt} attempts: ${errors.join('; ')}`,
        },
      };
    }),
    failPlanner: assign(({ event }) => {
      assertEvent(event, 'PLANNER_FAILED');
      return {
        error: {
          code: 'PLANNER_FAILED',
          message: `the planner run failed: ${event.error.code}: ${event.error.message}`,
        },
      };
    }),
    markStarted: assign(({ context }) => {
      const starting = new Set(tasksToStart(context));
      return withTasks(context, (t) => (starting.has(t.id) ? { ...t, status: 'running' } : t));
    }),
    storeRunIds: assign(({ context, event }) => {
      assertEvent(event, 'TASK_STARTED');
      const runIds = new Map(event.tasks.map((s) => [s.task, s.runId]));
      return withTasks(context, (t) => {
        const runId = runIds.get(t.id);
        return runId === undefined ? t : { ...t, runId };
      });
    }),
    /** A `task_started` mission event per task of TASK_STARTED, in its order. */
    recordStarted: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'TASK_STARTED');
      for (const { task } of event.tasks) {
        enqueue({ type: 'recordMissionEvent', params: { event: 'task_started', task } });
      }
    }),
    storeTaskOutput: assign(({ context, event }) => {
      assertEvent(event, 'TASK_SUCCEEDED');
      return withTasks(context, (t) =>
        t.id === event.task ? { ...t, status: 'completed', output: event.output } : t,
      );
    }),
    storeTaskError: assign(({ context, event }) => {
      assertEvent(event, 'TASK_FAILED');
      return {
        ...withTasks(context, (t) =>
          t.id === event.task
            ? { ...t, status: 'failed' }
            : t.status === 'running'
              ? { ...t, status: 'cancelled' }
              : t,
        ),
        error: {
          code: 'TASK_FAILED',
          message: `task "${event.task}" failed: ${event.error.code}: ${event.error.message}`,
          task: event.task,
        },
      };
    }),
    cancelRunningTasks: assign(({ context }) =>
      withTasks(context, (t) => (t.status === 'running' ? { ...t, status: 'cancelled' } : t)),
    ),
    awaitPlanReview: assign({ reviewStage: 'plan' as const }),
    awaitResultReview: assign({ reviewStage: 'result' as const }),
    storeDecision: assign(({ context, event }) => {
      assertEvent(event, ['APPROVE', 'REJECT']);
      const decided = { decision: { ...reviewFrom(event), stage: context.reviewStage }, reviewStage: null };
      if (event.type !== 'APPROVE' || event.plan === undefined) return decided;
      // An edited plan (checked by the guard): the reviewer's plan runs, the planner's is kept.
      const check = checkPlan(event.plan, context);
      return check.ok ? { ...decided, draftPlan: context.plan, plan: pendingTasks(check.plan) } : decided;
    }),
    /** The plan goes back with the reviewer's reason: kept as a round, the planner asked again. */
    storePlanChangeRequest: assign(({ context, event }) => {
      assertEvent(event, 'REQUEST_CHANGES');
      const attempt = context.planAttempt + 1;
      return {
        planRounds: [...(context.planRounds ?? []), roundFrom(event, proposedPlan(context))],
        planAttempt: attempt,
        planRoundStart: attempt,
        planErrors: null,
        plan: null,
        reviewStage: null,
      };
    }),
    clearStage: assign({ reviewStage: null }),
    markFinished: assign({ completedAt: ({ event }) => event.at }),
  },
  guards: {
    /**
     * An approval edits only a plan under review, with a valid plan (as a planner's would have to be),
     * and a mission run takes no other edits.
     */
    isApplicableApproval: ({ context, event }) =>
      event.type === 'APPROVE' &&
      event.output === undefined &&
      event.stepOutputs === undefined &&
      (event.plan === undefined || (context.reviewStage === 'plan' && checkPlan(event.plan, context).ok)),
    isCurrentAttempt: ({ context, event }) =>
      (event.type === 'PLAN_PROPOSED' || event.type === 'PLANNER_FAILED') &&
      event.attempt === context.planAttempt,
    planIsValid: ({ context, event }) =>
      event.type === 'PLAN_PROPOSED' && checkPlan(event.output, context).ok,
    mayTryAgain: ({ context }) => context.planAttempt - (context.planRoundStart ?? 1) + 1 < MAX_PLAN_ATTEMPTS,
    mayRequestPlanChanges: ({ context }) =>
      context.reviewStage === 'plan' && (context.planRounds?.length ?? 0) < MAX_REVIEW_ROUNDS,
    reviewsPlan: ({ context }) => context.review === 'plan' || context.review === 'both',
    reviewsResult: ({ context }) => context.review === 'result' || context.review === 'both',
    allDone: ({ context }) => tasksOf(context).every((t) => t.status === 'completed'),
    startsUnstarted: ({ context, event }) =>
      event.type === 'TASK_STARTED' &&
      new Set(event.tasks.map((s) => s.task)).size === event.tasks.length &&
      event.tasks.every((s) =>
        tasksOf(context).some((t) => t.id === s.task && t.status === 'running' && t.runId === null),
      ),
    isRunningTask: ({ context, event }) =>
      (event.type === 'TASK_SUCCEEDED' || event.type === 'TASK_FAILED') && isRunningTask(context, event.task),
    awaitsPlan: ({ context }) => context.reviewStage === 'plan',
  },
}).createMachine({
  id: 'mission-run',
  version: '1',
  context: ({ input }) => ({
    missionRunId: input.missionRunId,
    createdAt: input.at,
    review: input.review,
    team: [...input.team],
    maxTasks: input.maxTasks,
    maxParallel: input.maxParallel,
    planAttempt: 1,
    planErrors: null,
    plan: null,
    reviewStage: null,
    error: null,
    decision: null,
    completedAt: null,
  }),
  entry: [record('started'), { type: 'startPlanner', params: { attempt: 1, errors: [] } }],
  initial: 'planning',
  states: {
    planning: {
      on: {
        PLAN_PROPOSED: [
          {
            guard: and(['isCurrentAttempt', 'planIsValid']),
            target: 'planned',
            actions: ['storePlan', record('planned')],
          },
          {
            guard: and(['isCurrentAttempt', 'mayTryAgain']),
            actions: [
              'storePlanErrors',
              {
                type: 'startPlanner',
                params: ({ context }) => ({ attempt: context.planAttempt, errors: context.planErrors ?? [] }),
              },
            ],
          },
          { guard: 'isCurrentAttempt', target: 'failed', actions: 'failPlanInvalid' },
        ],
        PLANNER_FAILED: { guard: 'isCurrentAttempt', target: 'failed', actions: 'failPlanner' },
        CANCEL: { target: 'cancelled' },
      },
    },
    planned: {
      always: [
        { guard: 'reviewsPlan', target: 'awaiting_review', actions: 'awaitPlanReview' },
        { target: 'executing' },
      ],
    },
    awaiting_review: {
      entry: [record('awaiting_review'), { type: 'openReview', params: {} }],
      on: {
        APPROVE: [
          {
            guard: and(['isApplicableApproval', 'awaitsPlan']),
            target: 'executing',
            actions: [
              'storeDecision',
              record('approved'),
              { type: 'closeReview', params: { reason: 'decided' } },
            ],
          },
          {
            guard: 'isApplicableApproval',
            target: 'completed',
            actions: [
              'storeDecision',
              record('approved'),
              { type: 'closeReview', params: { reason: 'decided' } },
            ],
          },
        ],
        REJECT: {
          target: 'cancelled',
          actions: ['storeDecision', { type: 'closeReview', params: { reason: 'decided' } }],
        },
        REQUEST_CHANGES: {
          guard: 'mayRequestPlanChanges',
          target: 'planning',
          actions: [
            'storePlanChangeRequest',
            { type: 'closeReview', params: { reason: 'decided' } },
            {
              type: 'startPlanner',
              params: ({ context }) => ({ attempt: context.planAttempt, errors: [] }),
            },
          ],
        },
        CANCEL: {
          target: 'cancelled',
          actions: ['clearStage', { type: 'closeReview', params: { reason: 'cancelled' } }],
        },
      },
    },
    executing: {
      entry: ['startReady', 'markStarted'],
      on: {
        TASK_STARTED: { guard: 'startsUnstarted', actions: ['storeRunIds', 'recordStarted'] },
        TASK_SUCCEEDED: {
          guard: 'isRunningTask',
          target: 'advancing',
          actions: [
            'storeTaskOutput',
            {
              type: 'recordMissionEvent',
              params: ({ event }): RecordMissionEventParams => ({
                event: 'task_completed',
                task: (event as { task: string }).task,
              }),
            },
          ],
        },
        TASK_FAILED: { guard: 'isRunningTask', target: 'failed', actions: 'storeTaskError' },
        CANCEL: { target: 'cancelled', actions: 'cancelRunningTasks' },
      },
    },
    advancing: {
      always: [
        { guard: and(['allDone', 'reviewsResult']), target: 'awaiting_review', actions: 'awaitResultReview' },
        { guard: 'allDone', target: 'completed' },
        { target: 'executing' },
      ],
    },
    completed: { type: 'final', entry: ['markFinished', record('completed')] },
    failed: {
      type: 'final',
      entry: ['markFinished', record('failed'), { type: 'cancelChildren', params: { reason: 'failed' } }],
    },
    cancelled: {
      type: 'final',
      entry: [
        'markFinished',
        record('cancelled'),
        { type: 'cancelChildren', params: { reason: 'cancelled' } },
      ],
    },
  },
});

/** The mission-run machine's type. */
export type MissionRunMachine = typeof missionRunMachine;
