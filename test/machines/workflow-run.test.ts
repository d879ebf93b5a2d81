import { describe, expect, it } from 'vitest';
import {
  type WorkflowRunEvent,
  type WorkflowRunInput,
  workflowRunEventSchema,
  workflowRunInputSchema,
} from '../../machines/workflow-run/events.js';
import { projectWorkflowRun, workflowRunMachine } from '../../machines/workflow-run/machine.js';
import {
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

type M = typeof workflowRunMachine;

const T0 = '2025-03-01T10:00:00.000Z';
const T1 = '2025-03-01T10:01:00.000Z';
const T2 = '2025-03-01T11:00:00.000Z';
const T3 = '2025-03-01T11:02:00.000Z';

/** draft (skill) → legal (gate) → publish (skill). */
const gated: WorkflowRunInput = {
  runId: 41,
  slug: 'press-release',
  steps: [
    { name: 'draft', type: 'skill' },
    { name: 'legal', type: 'approve', title: 'Legal review', assignTo: 'user:lee' },
    { name: 'publish', type: 'skill' },
  ],
  at: T0,
};
/** extract (skill) → summarize (skill). */
const twoSkills: WorkflowRunInput = {
  runId: 42,
  slug: 'digest',
  steps: [
    { name: 'extract', type: 'skill' },
    { name: 'summarize', type: 'skill' },
  ],
  at: T0,
};
/** first (gate) → second (gate). */
const twoGates: WorkflowRunInput = {
  runId: 43,
  slug: 'double-check',
  steps: [
    { name: 'first', type: 'approve', title: 'First look' },
    { name: 'second', type: 'approve' },
  ],
  at: T0,
};
/** write (skill) → signoff (gate). */
const endsAtGate: WorkflowRunInput = {
  runId: 44,
  slug: 'memo',
  steps: [
    { name: 'write', type: 'skill' },
    { name: 'signoff', type: 'approve', assignTo: null },
  ],
  at: T0,
};

function succeeded(step: string, at = T1): WorkflowRunEvent {
  return { type: 'STEP_SUCCEEDED', step, attempt: 1, output: { text: `${step} done` }, at };
}
function failed(step: string): WorkflowRunEvent {
  return {
    type: 'STEP_FAILED',
    step,
    attempt: 2,
    error: { code: 'OUTPUT_INVALID', message: 'no title' },
    at: T1,
  };
}
function gateReached(step: string, at = T1): WorkflowRunEvent {
  return { type: 'GATE_REACHED', step, at };
}
const toolsRequested = (step: string): WorkflowRunEvent => toolsRequestedEvent(step, T1);
const toolDone = (step: string, remaining: number): WorkflowRunEvent =>
  toolCompletedEvent(step, remaining === 0 ? 'call_b' : 'call_a', remaining, T1);
const approve: WorkflowRunEvent = { type: 'APPROVE', by: 'token:abc', note: 'fine', at: T2 };
const editedApprove = { ...approve, stepOutputs: { draft: { text: 'edited' } } } as WorkflowRunEvent;
/** Edits a gate never takes: a step not completed, a gate, a skill run's output, a mission's plan. */
const badEdits = [
  { ...approve, stepOutputs: { publish: { text: 'x' } } },
  { ...approve, stepOutputs: { legal: { text: 'x' } } },
  { ...approve, output: { text: 'x' } },
  { ...approve, plan: { tasks: [] } },
] as WorkflowRunEvent[];
const reject: WorkflowRunEvent = { type: 'REJECT', by: 'token:abc', reason: 'too bold', at: T2 };
const cancel: WorkflowRunEvent = { type: 'CANCEL', by: 'token:abc', at: T2 };

const record = (event: string, step?: string) => ({
  type: 'recordEvent',
  params: step === undefined ? { event } : { event, step },
});
const execute = (step: string) => [
  record('step_started', step),
  { type: 'enqueueJob', params: { job: 'execute_step', step, attempt: 1 } },
];

const initialRows: InitialRow<M>[] = [
  {
    name: 'POST workflow run starting with a skill step: running, executes it',
    input: gated,
    to: 'running',
    actions: [record('started'), ...execute('draft')],
    context: { index: 0, pausedAt: null, output: null, stepResults: {}, completedAt: null },
  },
  {
    name: 'POST workflow run starting with a gate: running (docs/api.md "Runs"), the worker reaches the gate',
    input: twoGates,
    to: 'running',
    actions: [
      record('started'),
      { type: 'enqueueJob', params: { job: 'execute_step', step: 'first', attempt: 1 } },
    ],
    context: { index: 0, pausedAt: null, completedAt: null },
  },
  {
    name: 'POST fork from a skill step: starts there with the earlier results copied, executes it',
    input: { ...twoSkills, from: { index: 1, stepResults: { extract: { output: { a: 1 }, copied: true } } } },
    to: 'running',
    actions: [record('started'), ...execute('summarize')],
    context: {
      index: 1,
      output: { a: 1 },
      stepResults: { extract: { output: { a: 1 }, copied: true } },
      completedAt: null,
    },
  },
  {
    name: 'POST fork from a gate: running, the worker reaches the gate again (it pauses again)',
    input: {
      ...gated,
      from: { index: 1, stepResults: { draft: { output: { text: 'd' }, copied: true } } },
    },
    to: 'running',
    actions: [
      record('started'),
      { type: 'enqueueJob', params: { job: 'execute_step', step: 'legal', attempt: 1 } },
    ],
    context: { index: 1, pausedAt: null, output: { text: 'd' } },
  },
];

const transitionRows: TransitionRow<M>[] = [
  {
    name: 'running: the skill step asks for tools; the run stays running and counts them (the worker records them)',
    input: gated,
    from: [],
    event: toolsRequested('draft'),
    to: 'running',
    actions: [],
    context: { index: 0, toolCalls: 2 },
  },
  {
    name: 'running: a call of the step finishes: tool_completed for the step',
    input: gated,
    from: [toolsRequested('draft')],
    event: toolDone('draft', 1),
    to: 'running',
    actions: [record('tool_completed', 'draft')],
  },
  {
    name: 'running: a later skill step runs its own tool loop, counted on from the earlier steps',
    input: gated,
    from: [toolsRequested('draft'), toolDone('draft', 0), succeeded('draft'), approve],
    event: toolsRequested('publish'),
    to: 'running',
    actions: [],
    context: { index: 2, toolCalls: 4 },
  },
  {
    name: 'running: the step succeeds after its tool calls and the run moves on',
    input: twoSkills,
    from: [toolsRequested('extract'), toolDone('extract', 0)],
    event: succeeded('extract'),
    to: 'running',
    actions: [record('step_completed', 'extract'), ...execute('summarize')],
    context: { index: 1, toolCalls: 2 },
  },
  {
    name: 'running: cancel between tool calls is a hard stop',
    input: twoSkills,
    from: [toolsRequested('extract')],
    event: cancel,
    to: 'cancelled',
    actions: [record('cancelled')],
    context: { completedAt: T2 },
  },
  {
    name: 'running: a step succeeds and the next is a skill step, so it executes next',
    input: twoSkills,
    from: [],
    event: succeeded('extract'),
    to: 'running',
    actions: [record('step_completed', 'extract'), ...execute('summarize')],
    context: {
      index: 1,
      output: { text: 'extract done' },
      stepResults: { extract: { output: { text: 'extract done' } } },
    },
  },
  {
    name: 'running: a step succeeds and the next is a gate, so the run pauses there',
    input: gated,
    from: [],
    event: succeeded('draft'),
    to: 'paused',
    actions: [
      record('step_completed', 'draft'),
      record('paused_for_review', 'legal'),
      { type: 'openReview', params: { title: 'Legal review', assignTo: 'user:lee' } },
    ],
    context: { index: 1, pausedAt: 'legal', output: { text: 'draft done' } },
  },
  {
    name: 'running: the last step succeeds, so the run completes with its output',
    input: gated,
    from: [succeeded('draft'), approve],
    event: succeeded('publish', T3),
    to: 'completed',
    actions: [record('step_completed', 'publish'), record('completed')],
    context: {
      index: 3,
      output: { text: 'publish done' },
      completedAt: T3,
      stepResults: {
        draft: { output: { text: 'draft done' } },
        legal: { output: { approved: true, by: 'token:abc', note: 'fine' } },
        publish: { output: { text: 'publish done' } },
      },
    },
  },
  {
    name: 'running: a step fails, so the run fails naming the step',
    input: twoSkills,
    from: [succeeded('extract')],
    event: failed('summarize'),
    to: 'failed',
    actions: [record('failed')],
    context: {
      error: { code: 'OUTPUT_INVALID', message: 'no title', step: 'summarize' },
      completedAt: T1,
      output: { text: 'extract done' },
    },
  },
  {
    name: 'running (at the first gate): the worker reached it, so the run pauses and opens its item',
    input: twoGates,
    from: [],
    event: gateReached('first'),
    to: 'paused',
    actions: [
      record('paused_for_review', 'first'),
      { type: 'openReview', params: { title: 'First look', assignTo: null } },
    ],
    context: { index: 0, pausedAt: 'first', stepResults: {} },
  },
  {
    name: "running (at the first gate): the gate's job died, so the run fails naming the gate",
    input: twoGates,
    from: [],
    event: failed('first'),
    to: 'failed',
    actions: [record('failed')],
    context: { error: { code: 'OUTPUT_INVALID', message: 'no title', step: 'first' }, pausedAt: null },
  },
  {
    name: 'running (at the first gate): cancel is a hard stop (no review item to close)',
    input: twoGates,
    from: [],
    event: cancel,
    to: 'cancelled',
    actions: [record('cancelled')],
    context: { completedAt: T2, pausedAt: null },
  },
  {
    name: 'running: cancel is a hard stop',
    input: twoSkills,
    from: [],
    event: cancel,
    to: 'cancelled',
    actions: [record('cancelled')],
    context: { completedAt: T2 },
  },
  {
    name: 'paused: approve advances to the next skill step (running again)',
    input: gated,
    from: [succeeded('draft')],
    event: approve,
    to: 'running',
    actions: [
      record('approved', 'legal'),
      { type: 'closeReview', params: { reason: 'decided' } },
      ...execute('publish'),
    ],
    context: {
      index: 2,
      pausedAt: null,
      output: { text: 'draft done' },
      review: { decision: 'approved', by: 'token:abc', onBehalfOf: null, note: 'fine', reason: null, at: T2 },
      stepResults: {
        draft: { output: { text: 'draft done' } },
        legal: { output: { approved: true, by: 'token:abc', note: 'fine' } },
      },
    },
  },
  {
    name: 'paused: an edited approval replaces the step outputs later steps read, keeping what they were',
    input: gated,
    from: [succeeded('draft')],
    event: editedApprove,
    to: 'running',
    actions: [
      record('approved', 'legal'),
      { type: 'closeReview', params: { reason: 'decided' } },
      ...execute('publish'),
    ],
    context: {
      output: { text: 'edited' },
      draftOutput: { draft: { text: 'draft done' } },
      review: {
        decision: 'approved',
        by: 'token:abc',
        onBehalfOf: null,
        note: 'fine',
        reason: null,
        edited: true,
        at: T2,
      },
      stepResults: {
        draft: { output: { text: 'edited' } },
        legal: { output: { approved: true, by: 'token:abc', note: 'fine' } },
      },
    },
  },
  {
    name: 'paused: approving the last step completes the run',
    input: endsAtGate,
    from: [succeeded('write')],
    event: approve,
    to: 'completed',
    actions: [
      record('approved', 'signoff'),
      { type: 'closeReview', params: { reason: 'decided' } },
      record('completed'),
    ],
    context: { index: 2, pausedAt: null, completedAt: T2, output: { text: 'write done' } },
  },
  {
    name: 'paused: approving a gate followed by another gate pauses at the next one',
    input: twoGates,
    from: [gateReached('first')],
    event: approve,
    to: 'paused',
    actions: [
      record('approved', 'first'),
      { type: 'closeReview', params: { reason: 'decided' } },
      record('paused_for_review', 'second'),
      { type: 'openReview', params: { assignTo: null } },
    ],
    context: { index: 1, pausedAt: 'second' },
  },
  {
    name: 'paused: reject cancels the workflow',
    input: gated,
    from: [succeeded('draft')],
    event: reject,
    to: 'cancelled',
    actions: [
      record('rejected', 'legal'),
      { type: 'closeReview', params: { reason: 'decided' } },
      record('cancelled'),
    ],
    context: {
      pausedAt: 'legal',
      completedAt: T2,
      review: {
        decision: 'rejected',
        by: 'token:abc',
        onBehalfOf: null,
        note: null,
        reason: 'too bold',
        at: T2,
      },
    },
  },
  {
    name: 'paused: cancel is a hard stop that also cancels the review item',
    input: gated,
    from: [succeeded('draft')],
    event: cancel,
    to: 'cancelled',
    actions: [{ type: 'closeReview', params: { reason: 'cancelled' } }, record('cancelled')],
    context: { pausedAt: 'legal', completedAt: T2, review: null },
  },
];

const paths = {
  'running (at draft)': { input: gated, from: [] },
  'running (at publish)': { input: gated, from: [succeeded('draft'), approve] },
  'paused (at legal)': { input: gated, from: [succeeded('draft')] },
  'running (at the first gate)': { input: twoGates, from: [] },
  'paused (at the first gate)': { input: twoGates, from: [gateReached('first')] },
  'paused (at the second gate)': { input: twoGates, from: [gateReached('first'), approve] },
  completed: { input: twoSkills, from: [succeeded('extract'), succeeded('summarize')] },
  failed: { input: twoSkills, from: [failed('extract')] },
  'cancelled (from running)': { input: twoSkills, from: [cancel] },
  'cancelled (rejected at a gate)': { input: gated, from: [succeeded('draft'), reject] },
  'cancelled (while paused)': { input: gated, from: [succeeded('draft'), cancel] },
  'running (a fork at summarize)': {
    input: { ...twoSkills, from: { index: 1, stepResults: { extract: { output: { a: 1 }, copied: true } } } },
    from: [],
  },
} satisfies Record<string, { input: WorkflowRunInput; from: WorkflowRunEvent[] }>;

function refused(state: keyof typeof paths, events: WorkflowRunEvent[], why: string): RefusedRow<M>[] {
  return events.map((event) => ({
    name: `${event.type}${'step' in event ? ` (${event.step})` : ''} in ${state}: ${why}`,
    ...paths[state],
    event,
  }));
}

const finals = [
  'completed',
  'failed',
  'cancelled (from running)',
  'cancelled (rejected at a gate)',
  'cancelled (while paused)',
] as const;

const refusedRows: RefusedRow<M>[] = [
  ...refused('paused (at legal)', badEdits, 'only completed skill steps are edited'),
  ...refused('running (at draft)', [approve, reject], 'only a paused run is decided'),
  ...refused('running (at publish)', [approve, reject], 'only a paused run is decided'),
  ...finals.flatMap((state) => refused(state, [approve, reject], 'a finished run cannot be resumed')),
  ...finals.flatMap((state) => refused(state, [cancel], 'cancel is accepted from running and paused only')),
  ...refused('running (at draft)', [succeeded('publish'), failed('publish')], 'not the current step'),
  ...refused('running (at draft)', [succeeded('legal')], 'a gate is not executed'),
  ...refused('running (at publish)', [succeeded('draft'), failed('draft')], 'a stale step result'),
  ...refused('paused (at legal)', [succeeded('legal'), failed('legal')], 'a paused run executes nothing'),
  ...refused(
    'paused (at legal)',
    [succeeded('draft'), succeeded('publish')],
    'a paused run executes nothing',
  ),
  ...refused('completed', [succeeded('summarize'), failed('summarize')], 'the run is over'),
  ...refused('failed', [succeeded('extract'), failed('extract')], 'the run is over'),
  ...refused('cancelled (from running)', [succeeded('extract'), failed('extract')], 'the run is over'),
  ...refused('running (at the first gate)', [approve, reject], 'the gate is not reached yet'),
  ...refused('running (at the first gate)', [succeeded('first')], 'a gate is not executed'),
  ...refused('running (at the first gate)', [gateReached('second')], 'not the current step'),
  ...refused('running (at draft)', [gateReached('draft')], 'a skill step is not a gate'),
  ...refused('running (at draft)', [gateReached('legal')], 'not the current step'),
  ...refused('paused (at the first gate)', [gateReached('first')], 'a duplicate: the gate is reached'),
  ...refused('paused (at the second gate)', [gateReached('second')], 'a later gate pauses by itself'),
  ...refused('paused (at legal)', [gateReached('legal')], 'a later gate pauses by itself'),
  ...finals.flatMap((state) => refused(state, [gateReached('first')], 'the run is over')),
  ...refused(
    'running (at draft)',
    [toolsRequested('publish'), toolDone('publish', 0)],
    'not the current step',
  ),
  ...refused(
    'running (at publish)',
    [toolsRequested('draft'), toolDone('draft', 0)],
    'a finished step calls no tools',
  ),
  ...refused(
    'running (at the first gate)',
    [toolsRequested('first'), toolDone('first', 0)],
    'a gate calls no tools',
  ),
  ...refused(
    'paused (at legal)',
    [toolsRequested('legal'), toolDone('draft', 0)],
    'a paused run executes nothing',
  ),
  ...finals.flatMap((state) =>
    refused(state, [toolsRequested('extract'), toolDone('extract', 0)], 'the run is over'),
  ),
  ...refused(
    'running (a fork at summarize)',
    [succeeded('extract'), failed('extract'), toolsRequested('extract')],
    'a copied step is never executed',
  ),
  ...refused('running (a fork at summarize)', [approve, reject], 'only a paused run is decided'),
];

describe('workflow-run machine', () => {
  specTable(workflowRunMachine, 'workflow-run', {
    initial: initialRows,
    transitions: transitionRows,
    refused: refusedRows,
  });

  it('walks a whole gated workflow, recording each event once and in order', () => {
    const events = [succeeded('draft'), approve, succeeded('publish', T3)];
    let snapshot = reach(workflowRunMachine, gated, []);
    const recorded: unknown[] = [];
    for (const event of events) {
      const [next, actions] = send(workflowRunMachine, snapshot, event);
      snapshot = next;
      recorded.push(...actions.filter((a) => a.type === 'recordEvent').map((a) => a.params));
    }
    expect(recorded).toEqual([
      { event: 'step_completed', step: 'draft' },
      { event: 'paused_for_review', step: 'legal' },
      { event: 'approved', step: 'legal' },
      { event: 'step_started', step: 'publish' },
      { event: 'step_completed', step: 'publish' },
      { event: 'completed' },
    ]);
    expect(snapshot.status).toBe('done');
  });

  it('continues identically after a persistence round trip', () => {
    const paused = reach(workflowRunMachine, gated, [succeeded('draft')]);
    const restored = roundTrip(workflowRunMachine, paused);
    expect(restored.value).toBe('paused');
    expect(restored.context).toEqual(paused.context);

    const [direct, directActions] = send(workflowRunMachine, paused, approve);
    const [resumed, resumedActions] = send(workflowRunMachine, restored, approve);
    expect(resumed.value).toBe('running');
    expect(resumed.context).toEqual(direct.context);
    expect(resumedActions).toEqual(directActions);

    const again = roundTrip(workflowRunMachine, resumed);
    const [done] = send(workflowRunMachine, again, succeeded('publish', T3));
    expect(done.value).toBe('completed');
    expect(done.context.completedAt).toBe(T3);
  });

  it('projects the row columns, status being the state name', () => {
    const paused = reach(workflowRunMachine, gated, [succeeded('draft')]);
    expect(projectWorkflowRun(paused)).toEqual({
      status: 'paused',
      pausedAt: 'legal',
      output: { text: 'draft done' },
      draftOutput: null,
      error: null,
      review: null,
      reviewState: null,
      completedAt: null,
      stepResults: { draft: { output: { text: 'draft done' } } },
    });
    expect(projectWorkflowRun(reach(workflowRunMachine, twoSkills, [failed('extract')]))).toMatchObject({
      status: 'failed',
      error: { code: 'OUTPUT_INVALID', message: 'no title', step: 'extract' },
      completedAt: T1,
    });
  });

  it('keeps absent optional step fields out of the context', () => {
    const [snapshot] = send(
      workflowRunMachine,
      reach(
        workflowRunMachine,
        { ...twoSkills, steps: [{ name: 'only', type: 'skill', title: undefined }] },
        [],
      ),
      succeeded('only'),
    );
    expect(snapshot.value).toBe('completed');
    expect(JSON.parse(JSON.stringify(snapshot.context))).toStrictEqual(snapshot.context);
  });
});

describe('workflow-run schemas', () => {
  it('accept the inputs and every event used above', () => {
    for (const input of [gated, twoSkills, twoGates, endsAtGate]) {
      expect(workflowRunInputSchema.parse(input)).toEqual(input);
    }
    for (const event of [
      succeeded('draft'),
      failed('draft'),
      gateReached('first'),
      approve,
      reject,
      cancel,
    ]) {
      expect(workflowRunEventSchema.parse(event)).toEqual(event);
    }
  });

  it.each([
    ['no steps', { ...gated, steps: [] }],
    [
      'two steps with one name',
      {
        ...gated,
        steps: [
          { name: 'a', type: 'skill' },
          { name: 'a', type: 'approve' },
        ],
      },
    ],
    ['an unknown step type', { ...gated, steps: [{ name: 'a', type: 'wait' }] }],
    ['a step without a name', { ...gated, steps: [{ type: 'skill' }] }],
    ['an empty step name', { ...gated, steps: [{ name: '', type: 'skill' }] }],
    ['a missing at', { runId: 41, slug: 'x', steps: gated.steps }],
  ])('reject an input with %s', (_why, input) => {
    expect(workflowRunInputSchema.safeParse(input).success).toBe(false);
  });

  it.each([
    ['a step result without a step', { type: 'STEP_SUCCEEDED', attempt: 1, output: {}, at: T1 }],
    ['an output that is a string', { ...succeeded('draft'), output: 'done' }],
    ['a rejection with a numeric reason', { ...reject, reason: 42 }],
    ['a misspelt type', { ...cancel, type: 'CANCELLED' }],
    ['a gate reached without a step', { type: 'GATE_REACHED', at: T1 }],
  ])('reject an event with %s', (_why, event) => {
    expect(workflowRunEventSchema.safeParse(event).success).toBe(false);
  });
});
