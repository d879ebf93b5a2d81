import { describe, expect, it } from 'vitest';
import type {
  RunRequestChangesEvent,
  StepFailedEvent,
  StepSucceededEvent,
  ToolCompletedEvent,
  ToolsRequestedEvent,
} from '../../machines/shared/run.js';
import {
  type SkillRunEvent,
  type SkillRunInput,
  skillRunEventSchema,
  skillRunInputSchema,
} from '../../machines/skill-run/events.js';
import { projectSkillRun, skillRunMachine } from '../../machines/skill-run/machine.js';
import {
  create,
  type InitialRow,
  type RefusedRow,
  reach,
  roundTrip,
  send,
  specTable,
  type TransitionRow,
  toolCompletedEvent,
  toolsRequestedEvent,
} from './helpers.js';

type M = typeof skillRunMachine;

const T0 = '2025-03-01T10:00:00.000Z';
const T1 = '2025-03-01T10:00:05.000Z';
const T2 = '2025-03-01T10:30:00.000Z';
const T3 = '2025-03-01T10:31:00.000Z';

const auto: SkillRunInput = { runId: 7, slug: 'summarize', requiresApproval: false, at: T0 };
const gated: SkillRunInput = { ...auto, requiresApproval: true };

const succeeded: SkillRunEvent = {
  type: 'STEP_SUCCEEDED',
  step: 'summarize',
  attempt: 1,
  output: { text: 'draft' },
  at: T1,
};
const lateSucceeded: SkillRunEvent = { ...succeeded, at: T3 };
const failed: SkillRunEvent = {
  type: 'STEP_FAILED',
  step: 'summarize',
  attempt: 1,
  error: { code: 'MODEL_ERROR', message: 'upstream timeout' },
  at: T1,
};
const lateFailed: SkillRunEvent = { ...failed, at: T3 };
const approve: SkillRunEvent = {
  type: 'APPROVE',
  by: 'token:abc',
  onBehalfOf: 'user:ann',
  note: 'ship it',
  at: T2,
};
const reject: SkillRunEvent = { type: 'REJECT', by: 'token:abc', reason: 'off-brand', at: T2 };
const editedApprove: SkillRunEvent = { ...approve, output: { text: 'edited' } } as SkillRunEvent;
/** Edits a skill run never takes: a workflow's step outputs, a mission's plan. */
const foreignEdits = [
  { ...approve, stepOutputs: { summarize: { text: 'x' } } },
  { ...approve, plan: { tasks: [] } },
] as SkillRunEvent[];
const cancel: SkillRunEvent = { type: 'CANCEL', by: 'token:abc', at: T2 };
const toolsRequested: SkillRunEvent = toolsRequestedEvent('summarize', T1);
const toolDone = (callId: string, remaining: number): SkillRunEvent =>
  toolCompletedEvent('summarize', callId, remaining, T1);
const firstToolDone = toolDone('call_a', 1);
const lastToolDone = toolDone('call_b', 0);
const otherStepTools: SkillRunEvent = { ...(toolsRequested as ToolsRequestedEvent), step: 'translate' };
const otherStepToolDone: SkillRunEvent = { ...(lastToolDone as ToolCompletedEvent), step: 'translate' };
const toolCompleted = { type: 'recordEvent', params: { event: 'tool_completed', step: 'summarize' } };
const otherStepSucceeded: SkillRunEvent = { ...succeeded, step: 'translate' };
const otherStepFailed: SkillRunEvent = { ...failed, step: 'translate' };

const started = [
  { type: 'recordEvent', params: { event: 'started' } },
  { type: 'recordEvent', params: { event: 'step_started', step: 'summarize' } },
  { type: 'enqueueJob', params: { job: 'execute_step', step: 'summarize', attempt: 1 } },
];
const stepCompleted = { type: 'recordEvent', params: { event: 'step_completed', step: 'summarize' } };
const updateReview = { type: 'updateReview', params: {} };
const approvedReview = {
  decision: 'approved',
  by: 'token:abc',
  onBehalfOf: 'user:ann',
  note: 'ship it',
  reason: null,
  at: T2,
};
const rejectedReview = {
  decision: 'rejected',
  by: 'token:abc',
  onBehalfOf: null,
  note: null,
  reason: 'off-brand',
  at: T2,
};

const requestChanges: SkillRunEvent = {
  type: 'REQUEST_CHANGES',
  by: 'token:abc',
  onBehalfOf: 'user:ann',
  reason: 'mention the refund',
  at: T2,
};
/** The step's result for round `round` (attempt `round`). */
const roundSucceeded = (round: number): SkillRunEvent => ({
  ...(succeeded as StepSucceededEvent),
  attempt: round,
  output: { text: `draft ${round}` },
  at: T3,
});
const succeeded2 = roundSucceeded(2);
const failed2: SkillRunEvent = { ...(failed as StepFailedEvent), attempt: 2, at: T3 };
const toolsRequested2: SkillRunEvent = { ...(toolsRequested as ToolsRequestedEvent), attempt: 2 };
const round1 = {
  draft: { text: 'draft' },
  reason: 'mention the refund',
  by: 'token:abc',
  onBehalfOf: 'user:ann',
  at: T2,
};
/** From creation to the draft of round `rounds + 1` ready (`rounds` change requests before it). */
const throughRounds = (rounds: number): SkillRunEvent[] => [
  succeeded,
  ...Array.from({ length: rounds }, (_, i) => [requestChanges, roundSucceeded(i + 2)]).flat(),
];
const roundStarted = (attempt: number) => [
  { type: 'closeReview', params: { reason: 'decided' } },
  { type: 'recordEvent', params: { event: 'step_started', step: 'summarize' } },
  { type: 'enqueueJob', params: { job: 'execute_step', step: 'summarize', attempt } },
];

const initialRows: InitialRow<M>[] = [
  {
    name: 'POST skill run without approval: running, executes the step (awaiting the model)',
    input: auto,
    to: { running: 'awaitingModel' },
    actions: started,
    context: { reviewState: 'auto', draftReady: false, output: null, completedAt: null, createdAt: T0 },
  },
  {
    name: 'POST skill run with requiresApproval: pending, executes the draft and opens a review item',
    input: gated,
    to: { pending: 'awaitingModel' },
    actions: [...started, { type: 'openReview', params: {} }],
    context: { reviewState: 'pending', draftReady: false, output: null, completedAt: null },
  },
];

const transitionRows: TransitionRow<M>[] = [
  {
    name: 'running: the model asks for tools, so the run executes them (recorded by the worker)',
    input: auto,
    from: [],
    event: toolsRequested,
    to: { running: 'executingTools' },
    actions: [],
    context: { draftReady: false, output: null, error: null, toolCalls: 2 },
  },
  {
    name: 'running: one call of the turn finishes, others still execute: tool_completed',
    input: auto,
    from: [toolsRequested],
    event: firstToolDone,
    to: { running: 'executingTools' },
    actions: [toolCompleted],
  },
  {
    name: 'running: the last call of the turn finishes, so the model is asked again',
    input: auto,
    from: [toolsRequested, firstToolDone],
    event: lastToolDone,
    to: { running: 'awaitingModel' },
    actions: [toolCompleted],
  },
  {
    name: 'running: a second turn of tools after the first',
    input: auto,
    from: [toolsRequested, firstToolDone, lastToolDone],
    event: { ...(toolsRequested as ToolsRequestedEvent), turn: 2 },
    to: { running: 'executingTools' },
    actions: [],
    context: { toolCalls: 4 },
  },
  {
    name: 'running: the final answer after tool calls completes the run',
    input: auto,
    from: [toolsRequested, lastToolDone],
    event: succeeded,
    to: 'completed',
    actions: [stepCompleted, { type: 'recordEvent', params: { event: 'completed' } }],
    context: { output: { text: 'draft' }, completedAt: T1 },
  },
  {
    name: 'running: the step fails while executing tools (budget spent, deadline)',
    input: auto,
    from: [toolsRequested],
    event: failed,
    to: 'failed',
    actions: [{ type: 'recordEvent', params: { event: 'failed' } }],
    context: { error: { code: 'MODEL_ERROR', message: 'upstream timeout' } },
  },
  {
    name: 'running: cancel between tool calls is a hard stop',
    input: auto,
    from: [toolsRequested, firstToolDone],
    event: cancel,
    to: 'cancelled',
    actions: [{ type: 'recordEvent', params: { event: 'cancelled' } }],
    context: { completedAt: T2 },
  },
  {
    name: 'pending: the draft asks for tools',
    input: gated,
    from: [],
    event: toolsRequested,
    to: { pending: 'executingTools' },
    actions: [],
    context: { reviewState: 'pending' },
  },
  {
    name: 'pending: the last call of the draft turn finishes, so the model is asked again',
    input: gated,
    from: [toolsRequested],
    event: lastToolDone,
    to: { pending: 'awaitingModel' },
    actions: [toolCompleted],
  },
  {
    name: 'pending: the draft is ready after tool calls',
    input: gated,
    from: [toolsRequested, lastToolDone],
    event: succeeded,
    to: { pending: 'draftReady' },
    actions: [stepCompleted, { type: 'recordEvent', params: { event: 'paused_for_review' } }, updateReview],
    context: { draftReady: true, output: { text: 'draft' } },
  },
  {
    name: 'pending: cancel while executing tools cancels the run and its review item',
    input: gated,
    from: [toolsRequested],
    event: cancel,
    to: 'cancelled',
    actions: [
      { type: 'closeReview', params: { reason: 'cancelled' } },
      { type: 'recordEvent', params: { event: 'cancelled' } },
    ],
  },
  {
    name: 'approved before the draft: the draft’s tool calls are still taken, the status stays',
    input: gated,
    from: [approve],
    event: toolsRequested,
    to: 'approved',
    actions: [],
    context: { reviewState: 'approved', draftReady: false, toolCalls: 2 },
  },
  {
    name: 'approved before the draft: a finished call is recorded, the status stays',
    input: gated,
    from: [approve, toolsRequested],
    event: lastToolDone,
    to: 'approved',
    actions: [toolCompleted],
  },
  {
    name: 'rejected before the draft: a finished call is recorded, the status stays',
    input: gated,
    from: [reject],
    event: firstToolDone,
    to: 'rejected',
    actions: [toolCompleted],
  },
  {
    name: 'running: the step succeeds, so the run completes with its output',
    input: auto,
    from: [],
    event: succeeded,
    to: 'completed',
    actions: [stepCompleted, { type: 'recordEvent', params: { event: 'completed' } }],
    context: {
      output: { text: 'draft' },
      stepResults: { summarize: { output: { text: 'draft' } } },
      draftReady: true,
      completedAt: T1,
      reviewState: 'auto',
      error: null,
    },
  },
  {
    name: 'running: the step fails, so the run fails with the error',
    input: auto,
    from: [],
    event: failed,
    to: 'failed',
    actions: [{ type: 'recordEvent', params: { event: 'failed' } }],
    context: { error: { code: 'MODEL_ERROR', message: 'upstream timeout' }, completedAt: T1, output: null },
  },
  {
    name: 'running: cancel is a hard stop',
    input: auto,
    from: [],
    event: cancel,
    to: 'cancelled',
    actions: [{ type: 'recordEvent', params: { event: 'cancelled' } }],
    context: { completedAt: T2, reviewState: 'auto' },
  },
  {
    name: 'pending: the draft is ready, so the run stays pending, asks for a human and tells its item (a new revision)',
    input: gated,
    from: [],
    event: succeeded,
    to: { pending: 'draftReady' },
    actions: [stepCompleted, { type: 'recordEvent', params: { event: 'paused_for_review' } }, updateReview],
    context: {
      draftReady: true,
      output: { text: 'draft' },
      stepResults: { summarize: { output: { text: 'draft' } } },
      completedAt: null,
    },
  },
  {
    name: 'pending: the draft fails, so the run fails and its review item is cancelled',
    input: gated,
    from: [],
    event: failed,
    to: 'failed',
    actions: [
      { type: 'closeReview', params: { reason: 'cancelled' } },
      { type: 'recordEvent', params: { event: 'failed' } },
    ],
    context: { error: { code: 'MODEL_ERROR', message: 'upstream timeout' }, completedAt: T1 },
  },
  {
    name: 'pending: approve moves it to approved and records the reviewer',
    input: gated,
    from: [succeeded],
    event: approve,
    to: 'approved',
    actions: [
      { type: 'recordEvent', params: { event: 'approved' } },
      { type: 'closeReview', params: { reason: 'decided' } },
    ],
    context: { review: approvedReview, reviewState: 'approved', completedAt: T2, output: { text: 'draft' } },
  },
  {
    name: 'pending: reject moves it to rejected and records the reason',
    input: gated,
    from: [succeeded],
    event: reject,
    to: 'rejected',
    actions: [
      { type: 'recordEvent', params: { event: 'rejected' } },
      { type: 'closeReview', params: { reason: 'decided' } },
    ],
    context: { review: rejectedReview, reviewState: 'rejected', completedAt: T2 },
  },
  {
    name: 'pending (draft ready): an edited approval replaces the draft and keeps the model’s beside it',
    input: gated,
    from: [succeeded],
    event: editedApprove,
    to: 'approved',
    actions: [
      { type: 'recordEvent', params: { event: 'approved' } },
      { type: 'closeReview', params: { reason: 'decided' } },
    ],
    context: {
      review: { ...approvedReview, edited: true },
      reviewState: 'approved',
      output: { text: 'edited' },
      draftOutput: { text: 'draft' },
      stepResults: { summarize: { output: { text: 'edited' } } },
    },
  },
  {
    name: 'pending: approve before the draft is ready is taken',
    input: gated,
    from: [],
    event: approve,
    to: 'approved',
    actions: [
      { type: 'recordEvent', params: { event: 'approved' } },
      { type: 'closeReview', params: { reason: 'decided' } },
    ],
    context: { review: approvedReview, draftReady: false, output: null },
  },
  {
    name: 'pending: reject before the draft is ready is taken',
    input: gated,
    from: [],
    event: reject,
    to: 'rejected',
    actions: [
      { type: 'recordEvent', params: { event: 'rejected' } },
      { type: 'closeReview', params: { reason: 'decided' } },
    ],
    context: { review: rejectedReview, draftReady: false },
  },
  {
    name: 'pending: cancel while the draft executes cancels the run and its review item',
    input: gated,
    from: [],
    event: cancel,
    to: 'cancelled',
    actions: [
      { type: 'closeReview', params: { reason: 'cancelled' } },
      { type: 'recordEvent', params: { event: 'cancelled' } },
    ],
    context: { completedAt: T2, review: null, reviewState: 'pending' },
  },
  {
    name: 'pending: cancel with the draft ready cancels the run and its review item',
    input: gated,
    from: [succeeded],
    event: cancel,
    to: 'cancelled',
    actions: [
      { type: 'closeReview', params: { reason: 'cancelled' } },
      { type: 'recordEvent', params: { event: 'cancelled' } },
    ],
  },
  {
    name: 'approved before the draft: the late draft is stored once, the status stays',
    input: gated,
    from: [approve],
    event: lateSucceeded,
    to: 'approved',
    actions: [stepCompleted],
    context: {
      output: { text: 'draft' },
      stepResults: { summarize: { output: { text: 'draft' } } },
      draftReady: true,
      completedAt: T2,
      reviewState: 'approved',
    },
  },
  {
    name: 'rejected before the draft: the late draft is stored once, the status stays',
    input: gated,
    from: [reject],
    event: lateSucceeded,
    to: 'rejected',
    actions: [stepCompleted],
    context: { output: { text: 'draft' }, draftReady: true, completedAt: T2, reviewState: 'rejected' },
  },
  {
    name: 'approved before the draft: a late failure is kept as the error, without a failed event',
    input: gated,
    from: [approve],
    event: lateFailed,
    to: 'approved',
    actions: [],
    context: {
      error: { code: 'MODEL_ERROR', message: 'upstream timeout' },
      draftReady: false,
      completedAt: T2,
    },
  },
  {
    name: 'rejected before the draft: a late failure is kept as the error, without a failed event',
    input: gated,
    from: [reject],
    event: lateFailed,
    to: 'rejected',
    actions: [],
    context: { error: { code: 'MODEL_ERROR', message: 'upstream timeout' } },
  },
  {
    name: 'pending (draft ready): request changes sends the draft back — the item closes, the run runs again (attempt 2)',
    input: gated,
    from: [succeeded],
    event: requestChanges,
    to: { running: 'awaitingModel' },
    actions: roundStarted(2),
    context: {
      rounds: [round1],
      draftReady: false,
      output: null,
      stepResults: {},
      review: null,
      reviewState: 'pending',
      completedAt: null,
    },
  },
  {
    name: 'running (round 2): the new draft brings the run back to the queue as a new item',
    input: gated,
    from: [succeeded, requestChanges],
    event: succeeded2,
    to: { pending: 'draftReady' },
    actions: [
      stepCompleted,
      { type: 'recordEvent', params: { event: 'paused_for_review' } },
      { type: 'openReview', params: {} },
    ],
    context: {
      draftReady: true,
      output: { text: 'draft 2' },
      stepResults: { summarize: { output: { text: 'draft 2' } } },
      rounds: [round1],
    },
  },
  {
    name: 'running (round 2): the model asks for tools (attempt 2)',
    input: gated,
    from: [succeeded, requestChanges],
    event: toolsRequested2,
    to: { running: 'executingTools' },
    actions: [],
  },
  {
    name: 'running (round 2): the new draft fails, so the run fails (its item is already closed)',
    input: gated,
    from: [succeeded, requestChanges],
    event: failed2,
    to: 'failed',
    actions: [{ type: 'recordEvent', params: { event: 'failed' } }],
    context: { error: { code: 'MODEL_ERROR', message: 'upstream timeout' }, completedAt: T3 },
  },
  {
    name: 'running (round 2): cancel is a hard stop',
    input: gated,
    from: [succeeded, requestChanges],
    event: cancel,
    to: 'cancelled',
    actions: [{ type: 'recordEvent', params: { event: 'cancelled' } }],
  },
  {
    name: 'pending (round 2 draft ready): approve approves the new draft',
    input: gated,
    from: throughRounds(1),
    event: approve,
    to: 'approved',
    actions: [
      { type: 'recordEvent', params: { event: 'approved' } },
      { type: 'closeReview', params: { reason: 'decided' } },
    ],
    context: { output: { text: 'draft 2' }, review: approvedReview, rounds: [round1] },
  },
  {
    name: 'pending (round 2 draft ready): changes again — attempt 3, both rounds kept',
    input: gated,
    from: throughRounds(1),
    event: { ...(requestChanges as RunRequestChangesEvent), reason: 'shorter' },
    to: { running: 'awaitingModel' },
    actions: roundStarted(3),
    context: {
      rounds: [round1, { ...round1, draft: { text: 'draft 2' }, reason: 'shorter' }],
    },
  },
  {
    name: 'pending (draft ready after 4 rounds): the fifth change request is still taken',
    input: gated,
    from: throughRounds(4),
    event: requestChanges,
    to: { running: 'awaitingModel' },
    actions: roundStarted(6),
  },
];

/** How to reach each state (or state variant) from creation. */
const paths = {
  running: { input: auto, from: [] },
  'pending (awaiting the draft)': { input: gated, from: [] },
  'running (executing tools)': { input: auto, from: [toolsRequested] },
  'pending (executing tools)': { input: gated, from: [toolsRequested] },
  completed: { input: auto, from: [succeeded] },
  failed: { input: auto, from: [failed] },
  cancelled: { input: auto, from: [cancel] },
  'pending (draft executing)': { input: gated, from: [] },
  'pending (draft ready)': { input: gated, from: [succeeded] },
  'failed (draft failed while pending)': { input: gated, from: [failed] },
  'cancelled (while pending)': { input: gated, from: [cancel] },
  'approved (draft ready)': { input: gated, from: [succeeded, approve] },
  'rejected (draft ready)': { input: gated, from: [succeeded, reject] },
  'approved (before the draft)': { input: gated, from: [approve] },
  'rejected (before the draft)': { input: gated, from: [reject] },
  'approved (late draft stored)': { input: gated, from: [approve, lateSucceeded] },
  'rejected (late draft stored)': { input: gated, from: [reject, lateSucceeded] },
  'approved (late draft failed)': { input: gated, from: [approve, lateFailed] },
  'running (round 2)': { input: gated, from: [succeeded, requestChanges] },
  'running (round 2, executing tools)': { input: gated, from: [succeeded, requestChanges, toolsRequested2] },
  'pending (round 2 draft ready)': { input: gated, from: throughRounds(1) },
  'pending (draft ready after 5 rounds)': { input: gated, from: throughRounds(5) },
  'running (without approval)': { input: auto, from: [] },
} satisfies Record<string, { input: SkillRunInput; from: SkillRunEvent[] }>;

type PathName = keyof typeof paths;

function refused(state: PathName, events: SkillRunEvent[], why: string): RefusedRow<M>[] {
  return events.map((event) => ({
    name: `${event.type}${'step' in event ? ` (${event.step})` : ''} in ${state}: ${why}`,
    ...paths[state],
    event,
  }));
}

const decisions = [approve, reject];
const stepResults = [succeeded, failed];
const toolEvents = [toolsRequested, firstToolDone, lastToolDone];

const refusedRows: RefusedRow<M>[] = [
  ...refused('pending (awaiting the draft)', [editedApprove], 'an edit needs a draft to replace'),
  ...refused('pending (draft ready)', foreignEdits, 'a skill run takes only an output edit'),
  ...refused('running', decisions, 'only a pending run is decided'),
  ...refused('completed', decisions, 'only a pending run is decided'),
  ...refused('failed', decisions, 'only a pending run is decided'),
  ...refused('cancelled', decisions, 'only a pending run is decided'),
  ...refused('approved (draft ready)', decisions, 'already decided'),
  ...refused('rejected (draft ready)', decisions, 'already decided'),
  ...refused('approved (before the draft)', decisions, 'already decided'),
  ...refused('rejected (before the draft)', decisions, 'already decided'),
  ...refused('completed', [cancel], 'cancel is accepted from running and pending only'),
  ...refused('failed', [cancel], 'cancel is accepted from running and pending only'),
  ...refused('cancelled', [cancel], 'cancel is accepted from running and pending only'),
  ...refused('approved (draft ready)', [cancel], 'cancel is accepted from running and pending only'),
  ...refused('rejected (draft ready)', [cancel], 'cancel is accepted from running and pending only'),
  ...refused('approved (before the draft)', [cancel], 'cancel is accepted from running and pending only'),
  ...refused('completed', stepResults, 'the step already reported'),
  ...refused('failed', stepResults, 'the step already reported'),
  ...refused('cancelled', stepResults, 'a cancelled run ignores its worker'),
  ...refused('failed (draft failed while pending)', stepResults, 'the step already reported'),
  ...refused('cancelled (while pending)', stepResults, 'a cancelled run ignores its worker'),
  ...refused('pending (draft ready)', stepResults, 'a duplicate step result'),
  ...refused('approved (draft ready)', stepResults, 'a duplicate step result'),
  ...refused('rejected (draft ready)', stepResults, 'a duplicate step result'),
  ...refused('approved (late draft stored)', stepResults, 'a duplicate late step result'),
  ...refused('rejected (late draft stored)', stepResults, 'a duplicate late step result'),
  ...refused('approved (late draft failed)', stepResults, 'a duplicate late step result'),
  ...refused('running', [otherStepSucceeded, otherStepFailed], 'not the skill’s step'),
  ...refused('pending (draft executing)', [otherStepSucceeded, otherStepFailed], 'not the skill’s step'),
  ...refused('approved (before the draft)', [otherStepSucceeded, otherStepFailed], 'not the skill’s step'),
  ...refused('running', [firstToolDone, lastToolDone], 'no call was requested: awaiting the model'),
  ...refused('pending (draft executing)', [firstToolDone, lastToolDone], 'no call was requested'),
  ...refused('running (executing tools)', [toolsRequested], 'a turn is still executing'),
  ...refused('pending (executing tools)', [toolsRequested], 'a turn is still executing'),
  ...refused('running (executing tools)', [otherStepToolDone], 'not the skill’s step'),
  ...refused('running', [otherStepTools], 'not the skill’s step'),
  ...refused('approved (before the draft)', [otherStepTools, otherStepToolDone], 'not the skill’s step'),
  ...refused('completed', toolEvents, 'the step already reported: the loop is over'),
  ...refused('failed', toolEvents, 'the step already reported: the loop is over'),
  ...refused('cancelled', toolEvents, 'cancelled: the worker stops between calls'),
  ...refused('cancelled (while pending)', toolEvents, 'cancelled: the worker stops between calls'),
  ...refused('pending (draft ready)', toolEvents, 'the draft is ready: the loop is over'),
  ...refused('approved (draft ready)', toolEvents, 'the draft is ready: the loop is over'),
  ...refused('approved (late draft stored)', toolEvents, 'the draft is ready: the loop is over'),
  ...refused('approved (late draft failed)', toolEvents, 'the step already reported: the loop is over'),
  ...refused('pending (awaiting the draft)', [requestChanges], 'no draft to send back yet'),
  ...refused('pending (executing tools)', [requestChanges], 'no draft to send back yet'),
  ...refused('pending (draft ready after 5 rounds)', [requestChanges], 'at most 5 rounds'),
  ...refused('running (round 2)', [requestChanges], 'only a pending run is sent back'),
  ...refused('running (without approval)', [requestChanges], 'only a pending run is sent back'),
  ...refused('completed', [requestChanges], 'only a pending run is sent back'),
  ...refused('failed', [requestChanges], 'only a pending run is sent back'),
  ...refused('cancelled', [requestChanges], 'only a pending run is sent back'),
  ...refused('approved (draft ready)', [requestChanges], 'already decided'),
  ...refused('rejected (draft ready)', [requestChanges], 'already decided'),
  ...refused('running (round 2)', decisions, 'only a pending run is decided'),
  ...refused('running (round 2)', [succeeded, failed], 'a late report of round 1 (attempt 1)'),
  ...refused('running (round 2)', [toolsRequested], 'a tool turn of round 1 (attempt 1)'),
  ...refused('running (round 2, executing tools)', [lastToolDone], 'a tool call of round 1 (attempt 1)'),
  ...refused('pending (round 2 draft ready)', [succeeded2, failed2], 'a duplicate step result'),
];

describe('skill-run machine', () => {
  specTable(skillRunMachine, 'skill-run', {
    initial: initialRows,
    transitions: transitionRows,
    refused: refusedRows,
  });

  it('never accepts the same step result twice on any path', () => {
    for (const path of Object.values(paths)) {
      let snapshot = reach(skillRunMachine, path.input, path.from);
      let accepted = 0;
      for (const event of [succeeded, succeeded, lateSucceeded]) {
        if (snapshot.can(event)) {
          accepted += 1;
          [snapshot] = send(skillRunMachine, snapshot, event);
        }
      }
      const alreadyReported = path.from.some((e) => e.type === 'STEP_SUCCEEDED' || e.type === 'STEP_FAILED');
      expect(accepted).toBeLessThanOrEqual(alreadyReported ? 0 : 1);
    }
  });

  it('continues identically after a persistence round trip', () => {
    const pending = reach(skillRunMachine, gated, [succeeded]);
    const restored = roundTrip(skillRunMachine, pending);
    expect(restored.value).toEqual({ pending: 'draftReady' });
    expect(restored.context).toEqual(pending.context);
    expect(restored.can(succeeded)).toBe(false);

    const [direct, directActions] = send(skillRunMachine, pending, approve);
    const [resumed, resumedActions] = send(skillRunMachine, restored, approve);
    expect(resumed.value).toBe('approved');
    expect(resumed.context).toEqual(direct.context);
    expect(resumedActions).toEqual(directActions);

    const completed = roundTrip(skillRunMachine, reach(skillRunMachine, auto, [succeeded]));
    expect(completed.status).toBe('done');
    expect(completed.can(cancel)).toBe(false);
  });

  it('projects the row columns, status being the state name', () => {
    const [created] = create(skillRunMachine, gated);
    expect(projectSkillRun(created)).toEqual({
      status: 'pending',
      pausedAt: null,
      output: null,
      draftOutput: null,
      error: null,
      review: null,
      reviewState: 'pending',
      completedAt: null,
      stepResults: {},
      rounds: null,
    });
    const approved = reach(skillRunMachine, gated, [succeeded, approve]);
    expect(projectSkillRun(approved)).toEqual({
      status: 'approved',
      pausedAt: null,
      output: { text: 'draft' },
      draftOutput: null,
      error: null,
      review: approvedReview,
      reviewState: 'approved',
      completedAt: T2,
      stepResults: { summarize: { output: { text: 'draft' } } },
      rounds: null,
    });
    expect(projectSkillRun(reach(skillRunMachine, gated, throughRounds(1)))).toMatchObject({
      status: 'pending',
      output: { text: 'draft 2' },
      rounds: [round1],
    });
    expect(projectSkillRun(reach(skillRunMachine, gated, [succeeded, requestChanges]))).toMatchObject({
      status: 'running',
      output: null,
      reviewState: 'pending',
    });
    expect(projectSkillRun(reach(skillRunMachine, gated, [succeeded, editedApprove]))).toMatchObject({
      output: { text: 'edited' },
      draftOutput: { text: 'draft' },
      review: { ...approvedReview, edited: true },
    });
    expect(projectSkillRun(reach(skillRunMachine, auto, [failed]))).toMatchObject({
      status: 'failed',
      reviewState: 'auto',
      error: { code: 'MODEL_ERROR', message: 'upstream timeout' },
    });
  });
});

describe('skill-run schemas', () => {
  it('accept the input and every event used above', () => {
    expect(skillRunInputSchema.parse(gated)).toEqual(gated);
    for (const event of [succeeded, failed, approve, reject, cancel]) {
      expect(skillRunEventSchema.parse(event)).toEqual(event);
    }
  });

  it.each([
    ['a non-integer runId', { ...auto, runId: 1.5 }],
    ['a missing slug', { runId: 7, requiresApproval: false, at: T0 }],
    ['a string requiresApproval', { ...auto, requiresApproval: 'yes' }],
    ['a local time', { ...auto, at: '2025-03-01 10:00' }],
    ['an unknown field', { ...auto, priority: 'high' }],
  ])('reject an input with %s', (_why, input) => {
    expect(skillRunInputSchema.safeParse(input).success).toBe(false);
  });

  it.each([
    ['an unknown type', { type: 'RESUME', at: T1 }],
    ['an output that is not an object', { ...succeeded, output: ['a'] }],
    ['attempt 0', { ...succeeded, attempt: 0 }],
    ['an error without a code', { ...failed, error: { message: 'x' } }],
    ['an approval without a reviewer', { type: 'APPROVE', at: T2 }],
    ['a cancel without at', { type: 'CANCEL', by: 'token:abc' }],
    ['an offset timestamp', { ...cancel, at: '2025-03-01T11:00:00+01:00' }],
  ])('reject an event with %s', (_why, event) => {
    expect(skillRunEventSchema.safeParse(event).success).toBe(false);
  });
});
