/**
 * skill-run: one execution of one skill, persisted as an actor.
 *
 * Terminology:
 * - step: a skill run has exactly one, named after the skill's slug; a worker executes it
 *   (`enqueueJob execute_step`) and reports `STEP_SUCCEEDED` or `STEP_FAILED`.
 * - draft: the step's output. With `requiresApproval` the run starts `pending` (it is in the review
 *   queue at once) while the draft executes in the background; a reviewer then approves or rejects.
 * - awaited step result: a STEP_* for the skill's own step while no result has been stored yet. Only
 *   that is ever accepted, so a duplicate or late STEP_* is refused in every state.
 * - final status: approved, rejected, completed, failed, cancelled. `completed`, `failed` and
 *   `cancelled` are xstate final states. `approved` and `rejected` are not, only because a reviewer
 *   may decide before the draft exists: they still accept the awaited step result (exactly once,
 *   without changing the status) and refuse everything else. Use `projectSkillRun().status`, not
 *   `snapshot.status`, to tell whether a run is over.
 * - tool loop: while the step executes (`running`, or `pending` before the draft is ready) it is in
 *   `awaitingModel` (the worker waits for the model) or `executingTools` (the model asked for tool
 *   calls: TOOLS_REQUESTED records them, each TOOL_COMPLETED records one result and the run event
 *   `tool_completed`; the last of the turn, `remaining: 0`, goes back to `awaitingModel`). A cancelled
 *   run refuses both, which is how the worker stops between calls. A run decided before its draft
 *   (approved, rejected) still takes them, without a state change, until the step reports.
 */
import { and, assertEvent, assign, setup } from 'xstate';
import {
  effectActionsOf,
  type OpenReviewParams,
  type RecordEventParams,
  type RunEventName,
} from '../shared/effects.js';
import { MAX_REVIEW_ROUNDS, reviewFrom, roundFrom } from '../shared/run.js';
import type { SkillRunContext } from './context.js';
import type { SkillRunEvent, SkillRunInput } from './events.js';

export type { SkillRunProjection, SkillRunStatus } from './project.js';
export { projectSkillRun, SKILL_RUN_STATUSES } from './project.js';

/** The step's attempt the run waits for: one more than the rounds sent back so far. */
export function stepAttempt(context: Pick<SkillRunContext, 'rounds'>): number {
  return (context.rounds?.length ?? 0) + 1;
}

const record = (event: RunEventName) => ({ type: 'recordEvent', params: { event } }) as const;

const recordStep = (event: RunEventName) =>
  ({
    type: 'recordEvent',
    params: ({ context }: { context: SkillRunContext }): RecordEventParams => ({ event, step: context.slug }),
  }) as const;

const recordToolCompleted = recordStep('tool_completed');

/** The tool loop of the step while it executes: `awaitingModel` ⇄ `executingTools`. */
const toolLoopStates = {
  awaitingModel: {
    on: {
      TOOLS_REQUESTED: { guard: 'isOwnStepExecuting', target: 'executingTools', actions: 'countToolCalls' },
    },
  },
  executingTools: {
    on: {
      TOOL_COMPLETED: [
        { guard: 'isLastToolOfTurn', target: 'awaitingModel', actions: recordToolCompleted },
        { guard: 'isOwnStepExecuting', actions: recordToolCompleted },
      ],
    },
  },
} as const;

/** A run decided before its draft: the step's tool loop goes on (recorded), the status stays. */
const toolLoopWhileDecided = {
  TOOLS_REQUESTED: { guard: 'isOwnStepExecuting', actions: 'countToolCalls' },
  TOOL_COMPLETED: { guard: 'isOwnStepExecuting', actions: recordToolCompleted },
} as const;

const closeReview = (reason: 'decided' | 'cancelled') =>
  ({ type: 'closeReview', params: { reason } }) as const;

/** The skill-run machine (`id` `skill-run`, `version` `1`). */
export const skillRunMachine = setup({
  types: {
    context: {} as SkillRunContext,
    events: {} as SkillRunEvent,
    input: {} as SkillRunInput,
  },
  actions: {
    ...effectActionsOf('closeReview', 'enqueueJob', 'openReview', 'recordEvent', 'updateReview'),
    storeDraft: assign(({ context, event }) => {
      assertEvent(event, 'STEP_SUCCEEDED');
      return {
        draftReady: true,
        output: event.output,
        stepResults: { ...context.stepResults, [context.slug]: { output: event.output } },
      };
    }),
    storeError: assign(({ event }) => {
      assertEvent(event, 'STEP_FAILED');
      return { error: { code: event.error.code, message: event.error.message } };
    }),
    storeDecision: assign(({ context, event }) => {
      assertEvent(event, ['APPROVE', 'REJECT']);
      const review = reviewFrom(event);
      if (event.type !== 'APPROVE' || event.output === undefined)
        return { review, reviewState: review.decision };
      // An edited draft: the reviewer's output is the run's, the model's is kept beside it.
      return {
        review,
        reviewState: review.decision,
        draftOutput: context.output,
        output: event.output,
        stepResults: { ...context.stepResults, [context.slug]: { output: event.output } },
      };
    }),
    /** The draft goes back with the reviewer's reason: kept as a round, the run waits for the next. */
    storeChangeRequest: assign(({ context, event }) => {
      assertEvent(event, 'REQUEST_CHANGES');
      const { [context.slug]: _sent, ...stepResults } = context.stepResults;
      return {
        rounds: [...(context.rounds ?? []), roundFrom(event, context.output ?? {})],
        draftReady: false,
        output: null,
        stepResults,
      };
    }),
    markFinished: assign({ completedAt: ({ event }) => event.at }),
    countToolCalls: assign(({ context, event }) => {
      assertEvent(event, 'TOOLS_REQUESTED');
      return { toolCalls: (context.toolCalls ?? 0) + event.calls.length };
    }),
  },
  guards: {
    requiresApproval: ({ context }) => context.requiresApproval,
    /** An approval edits only a draft that is there, and a skill run takes no other edits. */
    isApplicableApproval: ({ context, event }) =>
      event.type === 'APPROVE' &&
      event.stepOutputs === undefined &&
      event.plan === undefined &&
      (event.output === undefined || context.draftReady),
    /** A draft that is there may go back, at most MAX_REVIEW_ROUNDS times. */
    mayRequestChanges: ({ context }) =>
      context.draftReady && (context.rounds?.length ?? 0) < MAX_REVIEW_ROUNDS,
    isAwaitedStepResult: ({ context, event }) =>
      (event.type === 'STEP_SUCCEEDED' || event.type === 'STEP_FAILED') &&
      event.step === context.slug &&
      event.attempt === stepAttempt(context) &&
      !context.draftReady &&
      context.error === null,
    isOwnStepExecuting: ({ context, event }) =>
      (event.type === 'TOOLS_REQUESTED' || event.type === 'TOOL_COMPLETED') &&
      event.step === context.slug &&
      event.attempt === stepAttempt(context) &&
      !context.draftReady &&
      context.error === null,
    isLastToolOfTurn: ({ context, event }) =>
      event.type === 'TOOL_COMPLETED' &&
      event.remaining === 0 &&
      event.step === context.slug &&
      event.attempt === stepAttempt(context) &&
      !context.draftReady &&
      context.error === null,
  },
}).createMachine({
  id: 'skill-run',
  version: '1',
  context: ({ input }) => ({
    runId: input.runId,
    slug: input.slug,
    requiresApproval: input.requiresApproval,
    ...(input.title === undefined ? {} : { title: input.title }),
    ...(input.conversation === undefined ? {} : { conversation: input.conversation }),
    createdAt: input.at,
    draftReady: false,
    output: null,
    stepResults: {},
    error: null,
    review: null,
    reviewState: input.requiresApproval ? 'pending' : 'auto',
    toolCalls: 0,
    completedAt: null,
  }),
  initial: 'starting',
  states: {
    // Transient: both lanes execute the step; only where the run waits for it differs.
    starting: {
      entry: [
        record('started'),
        recordStep('step_started'),
        {
          type: 'enqueueJob',
          params: ({ context }) => ({ job: 'execute_step', step: context.slug, attempt: 1 }),
        },
      ],
      always: [{ guard: 'requiresApproval', target: 'pending' }, { target: 'running' }],
    },
    running: {
      initial: 'awaitingModel',
      states: toolLoopStates,
      on: {
        STEP_SUCCEEDED: [
          // A round's new draft (only a run that requires approval runs again after review): back
          // to the queue, as a new item.
          {
            guard: and(['isAwaitedStepResult', 'requiresApproval']),
            target: 'pending.draftReady',
            actions: ['storeDraft', recordStep('step_completed'), record('paused_for_review')],
          },
          {
            guard: 'isAwaitedStepResult',
            target: 'completed',
            actions: ['storeDraft', recordStep('step_completed')],
          },
        ],
        STEP_FAILED: { guard: 'isAwaitedStepResult', target: 'failed', actions: 'storeError' },
        CANCEL: { target: 'cancelled' },
      },
    },
    pending: {
      entry: {
        type: 'openReview',
        params: ({ context }): OpenReviewParams =>
          context.title === undefined ? {} : { title: context.title },
      },
      initial: 'awaitingModel',
      states: { ...toolLoopStates, draftReady: {} },
      on: {
        // The draft is ready while the item waits: that is when a human is needed (and what the
        // item's reviewers see changed: its revision moves on).
        STEP_SUCCEEDED: {
          guard: 'isAwaitedStepResult',
          target: '.draftReady',
          actions: [
            'storeDraft',
            recordStep('step_completed'),
            record('paused_for_review'),
            { type: 'updateReview', params: {} },
          ],
        },
        STEP_FAILED: {
          guard: 'isAwaitedStepResult',
          target: 'failed',
          actions: ['storeError', closeReview('cancelled')],
        },
        APPROVE: { guard: 'isApplicableApproval', target: 'approved', actions: 'storeDecision' },
        REJECT: { target: 'rejected', actions: 'storeDecision' },
        REQUEST_CHANGES: {
          guard: 'mayRequestChanges',
          target: 'running',
          actions: [
            'storeChangeRequest',
            closeReview('decided'),
            recordStep('step_started'),
            {
              type: 'enqueueJob',
              params: ({ context }) => ({
                job: 'execute_step',
                step: context.slug,
                attempt: stepAttempt(context),
              }),
            },
          ],
        },
        CANCEL: { target: 'cancelled', actions: closeReview('cancelled') },
      },
    },
    // A decision taken before the draft was ready: the late step result is still stored (once), and
    // the status stays. A late failure keeps its `error` for the record but emits no `failed` event:
    // the run did not fail, the reviewer already decided.
    approved: {
      entry: ['markFinished', record('approved'), closeReview('decided')],
      on: {
        ...toolLoopWhileDecided,
        STEP_SUCCEEDED: {
          guard: 'isAwaitedStepResult',
          actions: ['storeDraft', recordStep('step_completed')],
        },
        STEP_FAILED: { guard: 'isAwaitedStepResult', actions: 'storeError' },
      },
    },
    rejected: {
      entry: ['markFinished', record('rejected'), closeReview('decided')],
      on: {
        ...toolLoopWhileDecided,
        STEP_SUCCEEDED: {
          guard: 'isAwaitedStepResult',
          actions: ['storeDraft', recordStep('step_completed')],
        },
        STEP_FAILED: { guard: 'isAwaitedStepResult', actions: 'storeError' },
      },
    },
    completed: { type: 'final', entry: ['markFinished', record('completed')] },
    failed: { type: 'final', entry: ['markFinished', record('failed')] },
    cancelled: { type: 'final', entry: ['markFinished', record('cancelled')] },
  },
});

/** The skill-run machine's type. */
export type SkillRunMachine = typeof skillRunMachine;
