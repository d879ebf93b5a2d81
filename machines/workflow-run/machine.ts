/**
 * workflow-run: one execution of a multi-step workflow, persisted as an actor.
 *
 * Terminology:
 * - step: an entry of `steps`; `index` points at the current one. A `skill` step is executed by a
 *   worker (`enqueueJob execute_step`), which reports `STEP_SUCCEEDED`/`STEP_FAILED` for it; an
 *   `approve` step (a gate) pauses the run until a reviewer approves (advance) or rejects (cancel).
 * - starting: the transient initial state. A run starts `running` (docs/api.md "Runs"), so a run whose
 *   first step is a gate does not pause at creation: it enqueues an `execute_step` job for the gate,
 *   whose worker answers `GATE_REACHED`, and pauses then. Any other first step goes to `advancing`.
 * - advancing: a transient state holding the one place that decides where the run goes at `index`:
 *   `completed` past the last step, `paused` at a gate, else `running` (executing a skill step). The
 *   run enters it from `starting`, after a skill step succeeds and after a gate is approved, each
 *   time with `index` already moved on. A persisted snapshot is never in a transient state.
 * - current step: the only step whose STEP_* (or GATE_REACHED, for a gate) is accepted, and only
 *   while `running`; anything else (a stale step, a duplicate) is refused. A skill step takes
 *   STEP_SUCCEEDED, a gate GATE_REACHED; either takes STEP_FAILED (a gate's job that died fails it).
 * - tool loop: a skill step whose skill lists tools runs the skill run's tool loop. While `running`
 *   the current skill step takes TOOLS_REQUESTED (the worker records the turn's calls with it) and
 *   TOOL_COMPLETED (one call's outcome, recorded with the run event `tool_completed`), without a
 *   state change: unlike a skill run, the statechart has no substates for it (a persisted `running`
 *   stays valid); the transitions show where the loop is. A cancelled run refuses both, which is how
 *   the worker stops between calls.
 */
import { assertEvent, assign, setup } from 'xstate';
import { effectActionsOf, type OpenReviewParams, type RunEventName } from '../shared/effects.js';
import { reviewFrom } from '../shared/run.js';
import type { JsonObject } from '../shared/schemas.js';
import type { WorkflowRunContext } from './context.js';
import type { WorkflowRunEvent, WorkflowRunInput, WorkflowStep } from './events.js';

export type { WorkflowRunProjection, WorkflowRunStatus } from './project.js';
export { projectWorkflowRun, WORKFLOW_RUN_STATUSES } from './project.js';

/** The current step; only called in states where there is one. */
function currentStep(context: WorkflowRunContext): WorkflowStep {
  const step = context.steps[context.index];
  if (step === undefined) {
    throw new Error(`workflow-run ${context.runId}: no step at index ${context.index}`);
  }
  return step;
}

/** A step without absent optional fields, so the context stays plain JSON. */
function copyStep(step: WorkflowStep): WorkflowStep {
  return {
    name: step.name,
    type: step.type,
    ...(step.title === undefined ? {} : { title: step.title }),
    ...(step.assignTo === undefined ? {} : { assignTo: step.assignTo }),
  };
}

/** A fork's `output` at its start: the output of the last skill step before `from.index` (copied). */
function lastSkillOutput(
  steps: readonly WorkflowStep[],
  from: NonNullable<WorkflowRunInput['from']>,
): WorkflowRunContext['output'] {
  for (let i = Math.min(from.index, steps.length) - 1; i >= 0; i--) {
    const step = steps[i];
    if (step?.type === 'skill') return from.stepResults[step.name]?.output ?? null;
  }
  return null;
}

const record = (event: RunEventName) => ({ type: 'recordEvent', params: { event } }) as const;

/** Records `event` for the current step; before `advanceIndex` in an action list. */
const recordCurrentStep = (event: RunEventName) =>
  ({
    type: 'recordEvent',
    params: ({ context }: { context: WorkflowRunContext }) => ({ event, step: currentStep(context).name }),
  }) as const;

/** The current step's `execute_step` job (a skill step runs; a gate is reached). */
const executeCurrentStep = {
  type: 'enqueueJob',
  params: ({ context }: { context: WorkflowRunContext }) => ({
    job: 'execute_step' as const,
    step: currentStep(context).name,
    attempt: 1,
  }),
} as const;

const closeReview = (reason: 'decided' | 'cancelled') =>
  ({ type: 'closeReview', params: { reason } }) as const;

/** The workflow-run machine (`id` `workflow-run`, `version` `1`). */
export const workflowRunMachine = setup({
  types: {
    context: {} as WorkflowRunContext,
    events: {} as WorkflowRunEvent,
    input: {} as WorkflowRunInput,
  },
  actions: {
    ...effectActionsOf('closeReview', 'enqueueJob', 'openReview', 'recordEvent'),
    storeStepOutput: assign(({ context, event }) => {
      assertEvent(event, 'STEP_SUCCEEDED');
      return {
        output: event.output,
        stepResults: { ...context.stepResults, [event.step]: { output: event.output } },
      };
    }),
    storeStepError: assign(({ event }) => {
      assertEvent(event, 'STEP_FAILED');
      return { error: { code: event.error.code, message: event.error.message, step: event.step } };
    }),
    markPaused: assign({ pausedAt: ({ context }) => currentStep(context).name }),
    // The gate's result is the approval itself; `output` stays the last skill step's output.
    // Edited step outputs replace what later steps read; what they were is kept (`draftOutput`).
    storeGateApproval: assign(({ context, event }) => {
      assertEvent(event, 'APPROVE');
      const gate = currentStep(context).name;
      const edits = event.stepOutputs ?? {};
      const stepResults = { ...context.stepResults };
      const draftOutput: Record<string, JsonObject> = { ...context.draftOutput };
      for (const [step, output] of Object.entries(edits)) {
        draftOutput[step] ??= stepResults[step]?.output ?? {};
        stepResults[step] = { output };
      }
      // The run's output is the last skill step's: edited when that step is.
      const last = context.steps.slice(0, context.index).findLast((step) => step.type === 'skill')?.name;
      const lastEdit = last === undefined ? undefined : edits[last];
      return {
        pausedAt: null,
        review: reviewFrom(event),
        ...(Object.keys(edits).length > 0 ? { draftOutput } : {}),
        ...(lastEdit === undefined ? {} : { output: lastEdit }),
        stepResults: {
          ...stepResults,
          [gate]: { output: { approved: true, by: event.by, note: event.note ?? null } },
        },
      };
    }),
    storeRejection: assign(({ event }) => {
      assertEvent(event, 'REJECT');
      return { review: reviewFrom(event) };
    }),
    advanceIndex: assign({ index: ({ context }) => context.index + 1 }),
    countToolCalls: assign(({ context, event }) => {
      assertEvent(event, 'TOOLS_REQUESTED');
      return { toolCalls: (context.toolCalls ?? 0) + event.calls.length };
    }),
    markFinished: assign({ completedAt: ({ event }) => event.at }),
  },
  guards: {
    /** A gate's approval edits only completed skill steps, and a workflow takes no other edits. */
    isApplicableApproval: ({ context, event }) =>
      event.type === 'APPROVE' &&
      event.output === undefined &&
      event.plan === undefined &&
      Object.keys(event.stepOutputs ?? {}).every((name) =>
        context.steps.slice(0, context.index).some((step) => step.name === name && step.type === 'skill'),
      ),
    isCurrentStep: ({ context, event }) =>
      (event.type === 'STEP_SUCCEEDED' || event.type === 'STEP_FAILED') &&
      context.steps[context.index]?.name === event.step,
    isCurrentSkillStep: ({ context, event }) =>
      event.type === 'STEP_SUCCEEDED' &&
      context.steps[context.index]?.type === 'skill' &&
      context.steps[context.index]?.name === event.step,
    isCurrentGate: ({ context, event }) =>
      event.type === 'GATE_REACHED' &&
      context.steps[context.index]?.type === 'approve' &&
      context.steps[context.index]?.name === event.step,
    isCurrentSkillStepTools: ({ context, event }) =>
      (event.type === 'TOOLS_REQUESTED' || event.type === 'TOOL_COMPLETED') &&
      context.steps[context.index]?.type === 'skill' &&
      context.steps[context.index]?.name === event.step,
    isApproveStep: ({ context }) => context.steps[context.index]?.type === 'approve',
    noMoreSteps: ({ context }) => context.index >= context.steps.length,
  },
}).createMachine({
  id: 'workflow-run',
  version: '1',
  context: ({ input }) => ({
    runId: input.runId,
    slug: input.slug,
    steps: input.steps.map(copyStep),
    createdAt: input.at,
    index: input.from?.index ?? 0,
    stepResults: input.from?.stepResults ?? {},
    pausedAt: null,
    output: input.from ? lastSkillOutput(input.steps, input.from) : null,
    error: null,
    review: null,
    completedAt: null,
  }),
  entry: record('started'),
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: 'isApproveStep', target: 'running', actions: executeCurrentStep },
        { target: 'advancing' },
      ],
    },
    advancing: {
      always: [
        { guard: 'noMoreSteps', target: 'completed' },
        { guard: 'isApproveStep', target: 'paused' },
        { target: 'running', actions: [recordCurrentStep('step_started'), executeCurrentStep] },
      ],
    },
    running: {
      on: {
        STEP_SUCCEEDED: {
          guard: 'isCurrentSkillStep',
          target: 'advancing',
          actions: ['storeStepOutput', recordCurrentStep('step_completed'), 'advanceIndex'],
        },
        STEP_FAILED: { guard: 'isCurrentStep', target: 'failed', actions: 'storeStepError' },
        GATE_REACHED: { guard: 'isCurrentGate', target: 'paused' },
        TOOLS_REQUESTED: { guard: 'isCurrentSkillStepTools', actions: 'countToolCalls' },
        TOOL_COMPLETED: {
          guard: 'isCurrentSkillStepTools',
          actions: recordCurrentStep('tool_completed'),
        },
        CANCEL: { target: 'cancelled' },
      },
    },
    paused: {
      entry: [
        'markPaused',
        recordCurrentStep('paused_for_review'),
        {
          type: 'openReview',
          params: ({ context }): OpenReviewParams => {
            const gate = currentStep(context);
            return {
              ...(gate.title === undefined ? {} : { title: gate.title }),
              assignTo: gate.assignTo ?? null,
            };
          },
        },
      ],
      on: {
        APPROVE: {
          guard: 'isApplicableApproval',
          target: 'advancing',
          actions: [
            'storeGateApproval',
            recordCurrentStep('approved'),
            closeReview('decided'),
            'advanceIndex',
          ],
        },
        // Rejecting a gate cancels the run (docs/api.md#review-queue: a rejected workflow is cancelled).
        REJECT: {
          target: 'cancelled',
          actions: ['storeRejection', recordCurrentStep('rejected'), closeReview('decided')],
        },
        CANCEL: { target: 'cancelled', actions: closeReview('cancelled') },
      },
    },
    completed: { type: 'final', entry: ['markFinished', record('completed')] },
    failed: { type: 'final', entry: ['markFinished', record('failed')] },
    cancelled: { type: 'final', entry: ['markFinished', record('cancelled')] },
  },
});

/** The workflow-run machine's type. */
export type WorkflowRunMachine = typeof workflowRunMachine;
