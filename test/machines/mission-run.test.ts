/**
 * mission-run, row by row (docs/api.md "Missions"): planning → [awaiting_review for the plan] → executing →
 * [awaiting_review for the result] → completed; failed; cancelled. Every accepted transition with its
 * exact effects, every refused one, the plan rules, and the projection.
 */
import { describe, expect, it } from 'vitest';
import { missionRunContextSchema } from '../../machines/mission-run/context.js';
import type { MissionRunEvent, MissionRunInput } from '../../machines/mission-run/events.js';
import { missionRunEventSchema, missionRunInputSchema } from '../../machines/mission-run/events.js';
import { missionRunMachine, projectMissionRun } from '../../machines/mission-run/machine.js';
import { checkPlan } from '../../machines/mission-run/plan.js';
import { resolveSnapshot } from '../../src/platform/actors/rows.js';
import {
  type InitialRow,
  type RefusedRow,
  reach,
  roundTrip,
  type Snapshot,
  send,
  specTable,
  type TransitionRow,
} from './helpers.js';

type M = typeof missionRunMachine;

const T0 = '2025-03-01T10:00:00.000Z';
const T1 = '2025-03-01T10:01:00.000Z';
const T2 = '2025-03-01T10:02:00.000Z';

const input = (extra: Partial<MissionRunInput> = {}): MissionRunInput => ({
  missionRunId: 7,
  review: 'result',
  team: ['lead', 'writer', 'critic'],
  maxTasks: 10,
  maxParallel: 3,
  at: T0,
  ...extra,
});
const onlyResult = input();
const onlyPlan = input({ review: 'plan' });
const both = input({ review: 'both' });
const serial = input({ review: 'plan', maxParallel: 1 });

const task = (id: string, agent: string, dependsOn: string[] = []) => ({
  id,
  title: `Task ${id}`,
  agent,
  instructions: `Do ${id}`,
  dependsOn,
});
/** a → (b, c) → d */
const diamond = {
  tasks: [
    task('a', 'lead'),
    task('b', 'writer', ['a']),
    task('c', 'critic', ['a']),
    task('d', 'lead', ['b', 'c']),
  ],
};
const cyclic = { tasks: [task('a', 'lead', ['b']), task('b', 'writer', ['a'])] };

const proposed = (output: Record<string, unknown>, attempt = 1): MissionRunEvent =>
  ({ type: 'PLAN_PROPOSED', attempt, output, at: T1 }) as MissionRunEvent;
const started = (id: string, runId: number): MissionRunEvent => ({
  type: 'TASK_STARTED',
  tasks: [{ task: id, runId }],
  at: T1,
});
const startedAll = (...tasks: Array<[string, number]>): MissionRunEvent => ({
  type: 'TASK_STARTED',
  tasks: tasks.map(([task, runId]) => ({ task, runId })),
  at: T1,
});
const succeeded = (id: string): MissionRunEvent => ({
  type: 'TASK_SUCCEEDED',
  task: id,
  output: { text: `${id} done` },
  at: T2,
});
const taskFailed = (id: string): MissionRunEvent => ({
  type: 'TASK_FAILED',
  task: id,
  error: { code: 'AGENT_INACTIVE', message: 'agent "writer" is not active' },
  at: T2,
});
const plannerFailed: MissionRunEvent = {
  type: 'PLANNER_FAILED',
  attempt: 1,
  error: { code: 'PROVIDER_UNAVAILABLE', message: 'down' },
  at: T1,
};
const approve: MissionRunEvent = { type: 'APPROVE', by: 'token:abc', note: 'go', at: T2 };
/** The decision `approve` records, less its stage. */
const approved = {
  decision: 'approved',
  by: 'token:abc',
  onBehalfOf: null,
  note: 'go',
  reason: null,
  at: T2,
};
const reject: MissionRunEvent = { type: 'REJECT', by: 'token:abc', reason: 'no', at: T2 };
const cancel: MissionRunEvent = { type: 'CANCEL', by: 'token:abc', at: T2 };
const requestChanges: MissionRunEvent = {
  type: 'REQUEST_CHANGES',
  by: 'token:abc',
  reason: 'Split task b.',
  at: T2,
};
/** The plan as the planner proposed it, as a round keeps it. */
const proposedDiamond = { tasks: diamond.tasks.map((t) => ({ ...t })) };
/** From creation to the plan of round `rounds + 1` awaiting review (`rounds` change requests before it). */
const throughPlanRounds = (rounds: number): MissionRunEvent[] => [
  proposed(diamond),
  ...Array.from({ length: rounds }, (_, i) => [requestChanges, proposed(diamond, i + 2)]).flat(),
];

const record = (event: string, taskId?: string) => ({
  type: 'recordMissionEvent',
  params: taskId === undefined ? { event } : { event, task: taskId },
});
const start = (id: string) => ({ type: 'startTask', params: { task: id } });
const openReview = { type: 'openReview', params: {} };
const closeReview = (reason: string) => ({ type: 'closeReview', params: { reason } });
const cancelChildren = (reason: string) => ({ type: 'cancelChildren', params: { reason } });

/** The path to executing with a running a (run 101). */
const executingA = [proposed(diamond), started('a', 101)];
/** … then b and c started (runs 102, 103). */
const executingBC = [...executingA, succeeded('a'), started('b', 102), started('c', 103)];
const allDone = [...executingBC, succeeded('b'), succeeded('c'), started('d', 104), succeeded('d')];

const initialRows: InitialRow<M>[] = [
  {
    name: 'POST /mission-runs: planning, the planner starts (attempt 1)',
    input: onlyResult,
    to: 'planning',
    actions: [record('started'), { type: 'startPlanner', params: { attempt: 1, errors: [] } }],
    context: { planAttempt: 1, plan: null, reviewStage: null, error: null, completedAt: null },
  },
];

const transitionRows: TransitionRow<M>[] = [
  {
    name: 'planning: a valid plan (review result) → executing, the ready tasks start',
    input: onlyResult,
    from: [],
    event: proposed(diamond),
    to: 'executing',
    actions: [record('planned'), start('a')],
    context: { planErrors: null },
  },
  {
    name: 'planning: a valid plan as JSON text (what the echo provider answers) → executing',
    input: onlyResult,
    from: [],
    event: proposed({ text: JSON.stringify({ goal: 'g', ...diamond }) }),
    to: 'executing',
    actions: [record('planned'), start('a')],
  },
  {
    name: 'planning: independent tasks start together, up to maxParallel',
    input: input({ maxParallel: 2 }),
    from: [],
    event: proposed({ tasks: [task('x', 'lead'), task('y', 'writer'), task('z', 'critic')] }),
    to: 'executing',
    actions: [record('planned'), start('x'), start('y')],
  },
  {
    name: 'planning: a valid plan (review plan) → awaiting_review for the plan',
    input: onlyPlan,
    from: [],
    event: proposed(diamond),
    to: 'awaiting_review',
    actions: [record('planned'), record('awaiting_review'), openReview],
    context: { reviewStage: 'plan' },
  },
  {
    name: 'planning: an invalid plan (attempt 1) is sent back with the errors: attempt 2',
    input: onlyResult,
    from: [],
    event: proposed(cyclic),
    to: 'planning',
    actions: [
      {
        type: 'startPlanner',
        params: { attempt: 2, errors: ['dependsOn: the tasks form a cycle (a → b → a)'] },
      },
    ],
    context: { planAttempt: 2, planErrors: ['dependsOn: the tasks form a cycle (a → b → a)'], plan: null },
  },
  {
    name: 'planning: attempt 2 fixed → executing',
    input: onlyResult,
    from: [proposed(cyclic)],
    event: proposed(diamond, 2),
    to: 'executing',
    actions: [record('planned'), start('a')],
    context: { planAttempt: 2, planErrors: null },
  },
  {
    name: 'planning: invalid twice → failed PLAN_INVALID',
    input: onlyResult,
    from: [proposed(cyclic)],
    event: proposed({ tasks: [task('a', 'ghost')] }, 2),
    to: 'failed',
    actions: [record('failed'), cancelChildren('failed')],
    context: {
      error: {
        code: 'PLAN_INVALID',
        message:
          'the planner\'s plan is not valid after 2 attempts: tasks.0.agent: "ghost" is not in the team ("lead", "writer", "critic")',
      },
      completedAt: T1,
    },
  },
  {
    name: 'planning: the planner run fails → failed PLANNER_FAILED',
    input: onlyResult,
    from: [],
    event: plannerFailed,
    to: 'failed',
    actions: [record('failed'), cancelChildren('failed')],
    context: {
      error: { code: 'PLANNER_FAILED', message: 'the planner run failed: PROVIDER_UNAVAILABLE: down' },
    },
  },
  {
    name: 'planning: cancel → cancelled, the planner run is cancelled',
    input: onlyResult,
    from: [],
    event: cancel,
    to: 'cancelled',
    actions: [record('cancelled'), cancelChildren('cancelled')],
    context: { completedAt: T2 },
  },
  {
    name: 'awaiting_review (plan): approve → executing, the ready tasks start',
    input: onlyPlan,
    from: [proposed(diamond)],
    event: approve,
    to: 'executing',
    actions: [record('approved'), closeReview('decided'), start('a')],
    context: {
      reviewStage: null,
      decision: { ...approved, stage: 'plan' },
    },
  },
  {
    name: 'awaiting_review (plan): an edited plan is approved → executing it, the planner’s kept',
    input: onlyPlan,
    from: [proposed(diamond)],
    event: { ...approve, plan: { tasks: [task('solo', 'writer')] } } as MissionRunEvent,
    to: 'executing',
    actions: [record('approved'), closeReview('decided'), start('solo')],
    context: {
      reviewStage: null,
      decision: { ...approved, edited: true, stage: 'plan' },
      plan: {
        tasks: [
          {
            ...task('solo', 'writer'),
            skill: null,
            status: 'running',
            runId: null,
            output: null,
          },
        ],
      },
      draftPlan: expect.objectContaining({
        tasks: expect.arrayContaining([expect.objectContaining({ id: 'd' })]),
      }),
    },
  },
  {
    name: 'awaiting_review (plan): request changes → planning again (attempt 2), the item closes, the plan and reason kept',
    input: onlyPlan,
    from: [proposed(diamond)],
    event: requestChanges,
    to: 'planning',
    actions: [closeReview('decided'), { type: 'startPlanner', params: { attempt: 2, errors: [] } }],
    context: {
      plan: null,
      reviewStage: null,
      planAttempt: 2,
      planRoundStart: 2,
      planErrors: null,
      decision: null,
      planRounds: [
        { draft: proposedDiamond, reason: 'Split task b.', by: 'token:abc', onBehalfOf: null, at: T2 },
      ],
    },
  },
  {
    name: 'planning (round 2): the new plan awaits review again, a new item',
    input: onlyPlan,
    from: [proposed(diamond), requestChanges],
    event: proposed({ tasks: [task('solo', 'writer')] }, 2),
    to: 'awaiting_review',
    actions: [record('planned'), record('awaiting_review'), openReview],
    context: { reviewStage: 'plan', planRounds: [expect.objectContaining({ reason: 'Split task b.' })] },
  },
  {
    name: 'planning (round 2): an invalid plan is sent back once in this round too (attempt 3)',
    input: onlyPlan,
    from: [proposed(diamond), requestChanges],
    event: proposed(cyclic, 2),
    to: 'planning',
    actions: [{ type: 'startPlanner', params: { attempt: 3, errors: expect.any(Array) } }],
    context: { planAttempt: 3 },
  },
  {
    name: 'planning (round 2): a second invalid plan fails the run PLAN_INVALID',
    input: onlyPlan,
    from: [proposed(diamond), requestChanges, proposed(cyclic, 2)],
    event: proposed(cyclic, 3),
    to: 'failed',
    actions: [record('failed'), cancelChildren('failed')],
    context: { error: expect.objectContaining({ code: 'PLAN_INVALID' }) },
  },
  {
    name: 'planning (round 2): cancel → cancelled',
    input: onlyPlan,
    from: [proposed(diamond), requestChanges],
    event: cancel,
    to: 'cancelled',
    actions: [record('cancelled'), cancelChildren('cancelled')],
  },
  {
    name: 'awaiting_review (plan, after 4 rounds): the fifth change request is taken',
    input: onlyPlan,
    from: throughPlanRounds(4),
    event: requestChanges,
    to: 'planning',
    actions: [closeReview('decided'), { type: 'startPlanner', params: { attempt: 6, errors: [] } }],
  },
  {
    name: 'awaiting_review (plan, round 2): approve → executing the new plan',
    input: onlyPlan,
    from: throughPlanRounds(1),
    event: approve,
    to: 'executing',
    actions: [record('approved'), closeReview('decided'), start('a')],
  },
  {
    name: 'awaiting_review (plan): reject → cancelled',
    input: onlyPlan,
    from: [proposed(diamond)],
    event: reject,
    to: 'cancelled',
    actions: [closeReview('decided'), record('cancelled'), cancelChildren('cancelled')],
    context: { decision: expect.objectContaining({ decision: 'rejected', reason: 'no', stage: 'plan' }) },
  },
  {
    name: 'awaiting_review: cancel → cancelled, the item closes as cancelled',
    input: onlyPlan,
    from: [proposed(diamond)],
    event: cancel,
    to: 'cancelled',
    actions: [closeReview('cancelled'), record('cancelled'), cancelChildren('cancelled')],
    context: { reviewStage: null, decision: null },
  },
  {
    name: 'awaiting_review (result): approve → completed',
    input: onlyResult,
    from: allDone,
    event: approve,
    to: 'completed',
    actions: [record('approved'), closeReview('decided'), record('completed')],
    context: {
      completedAt: T2,
      reviewStage: null,
      decision: expect.objectContaining({ decision: 'approved', note: 'go', stage: 'result' }),
    },
  },
  {
    name: 'awaiting_review (result): reject → cancelled',
    input: both,
    from: [proposed(diamond), approve, ...allDone.slice(1)],
    event: reject,
    to: 'cancelled',
    actions: [closeReview('decided'), record('cancelled'), cancelChildren('cancelled')],
    context: {
      reviewStage: null,
      decision: expect.objectContaining({ decision: 'rejected', stage: 'result' }),
    },
  },
  {
    name: 'executing: a task’s child run is created → task_started, its runId kept',
    input: onlyResult,
    from: [proposed(diamond)],
    event: started('a', 101),
    to: 'executing',
    actions: [record('task_started', 'a')],
    context: {
      plan: {
        tasks: expect.arrayContaining([expect.objectContaining({ id: 'a', status: 'running', runId: 101 })]),
      },
    },
  },
  {
    name: 'executing: the child runs of the tasks one transition started → task_started for each, in order, their runIds kept',
    input: onlyResult,
    from: [...executingA, succeeded('a')],
    event: startedAll(['b', 102], ['c', 103]),
    to: 'executing',
    actions: [record('task_started', 'b'), record('task_started', 'c')],
    context: {
      plan: {
        tasks: [
          expect.objectContaining({ id: 'a', status: 'completed', runId: 101 }),
          expect.objectContaining({ id: 'b', status: 'running', runId: 102 }),
          expect.objectContaining({ id: 'c', status: 'running', runId: 103 }),
          expect.objectContaining({ id: 'd', status: 'pending', runId: null }),
        ],
      },
    },
  },
  {
    name: 'executing: a task completes → task_completed, its dependants that became ready start (in parallel)',
    input: onlyResult,
    from: executingA,
    event: succeeded('a'),
    to: 'executing',
    actions: [record('task_completed', 'a'), start('b'), start('c')],
    context: {
      plan: {
        tasks: [
          expect.objectContaining({ id: 'a', status: 'completed', output: { text: 'a done' } }),
          expect.objectContaining({ id: 'b', status: 'running', runId: null }),
          expect.objectContaining({ id: 'c', status: 'running', runId: null }),
          expect.objectContaining({ id: 'd', status: 'pending' }),
        ],
      },
    },
  },
  {
    name: 'executing: a task completes while its dependant still waits for another → nothing starts',
    input: onlyResult,
    from: executingBC,
    event: succeeded('b'),
    to: 'executing',
    actions: [record('task_completed', 'b')],
  },
  {
    name: 'executing: the last dependency completes → the dependant starts',
    input: onlyResult,
    from: [...executingBC, succeeded('b')],
    event: succeeded('c'),
    to: 'executing',
    actions: [record('task_completed', 'c'), start('d')],
  },
  {
    name: 'executing (maxParallel 1): a free slot starts the next ready task',
    input: serial,
    from: [proposed(diamond), approve, started('a', 101), succeeded('a'), started('b', 102)],
    event: succeeded('b'),
    to: 'executing',
    actions: [record('task_completed', 'b'), start('c')],
  },
  {
    name: 'executing: the last task completes (review result) → awaiting_review for the result',
    input: onlyResult,
    from: allDone.slice(0, -1),
    event: succeeded('d'),
    to: 'awaiting_review',
    actions: [record('task_completed', 'd'), record('awaiting_review'), openReview],
    context: { reviewStage: 'result' },
  },
  {
    name: 'executing: the last task completes (review both) → awaiting_review for the result, the plan’s decision kept',
    input: both,
    from: [proposed(diamond), approve, ...allDone.slice(1, -1)],
    event: succeeded('d'),
    to: 'awaiting_review',
    actions: [record('task_completed', 'd'), record('awaiting_review'), openReview],
    context: {
      reviewStage: 'result',
      decision: expect.objectContaining({ decision: 'approved', stage: 'plan' }),
    },
  },
  {
    name: 'executing: the last task completes (review plan only) → completed',
    input: onlyPlan,
    from: [proposed(diamond), approve, ...allDone.slice(1, -1)],
    event: succeeded('d'),
    to: 'completed',
    actions: [record('task_completed', 'd'), record('completed')],
    context: { completedAt: T2 },
  },
  {
    name: 'executing: a task fails → failed TASK_FAILED naming it; the running ones are cancelled',
    input: onlyResult,
    from: executingBC,
    event: taskFailed('b'),
    to: 'failed',
    actions: [record('failed'), cancelChildren('failed')],
    context: {
      error: {
        code: 'TASK_FAILED',
        message: 'task "b" failed: AGENT_INACTIVE: agent "writer" is not active',
        task: 'b',
      },
      plan: {
        tasks: [
          expect.objectContaining({ id: 'a', status: 'completed' }),
          expect.objectContaining({ id: 'b', status: 'failed' }),
          expect.objectContaining({ id: 'c', status: 'cancelled' }),
          expect.objectContaining({ id: 'd', status: 'pending' }),
        ],
      },
    },
  },
  {
    name: 'executing: a task that could not start fails the run too',
    input: onlyResult,
    from: [proposed(diamond)],
    event: taskFailed('a'),
    to: 'failed',
    actions: [record('failed'), cancelChildren('failed')],
  },
  {
    name: 'executing: cancel → cancelled, running tasks (and their child runs) cancelled',
    input: onlyResult,
    from: executingBC,
    event: cancel,
    to: 'cancelled',
    actions: [record('cancelled'), cancelChildren('cancelled')],
    context: {
      plan: {
        tasks: [
          expect.objectContaining({ id: 'a', status: 'completed' }),
          expect.objectContaining({ id: 'b', status: 'cancelled' }),
          expect.objectContaining({ id: 'c', status: 'cancelled' }),
          expect.objectContaining({ id: 'd', status: 'pending' }),
        ],
      },
    },
  },
];

const refusedRows: RefusedRow<M>[] = [
  {
    name: 'awaiting_review (plan): an edited plan that is not valid (an agent outside the team)',
    input: onlyPlan,
    from: [proposed(diamond)],
    event: { ...approve, plan: { tasks: [task('x', 'stranger')] } } as MissionRunEvent,
  },
  {
    name: 'awaiting_review (plan): edits a mission run never takes (an output)',
    input: onlyPlan,
    from: [proposed(diamond)],
    event: { ...approve, output: { text: 'x' } } as MissionRunEvent,
  },
  {
    name: 'awaiting_review (result): a plan edit (plans are edited at plan review only)',
    input: onlyResult,
    from: allDone,
    event: { ...approve, plan: { tasks: [task('solo', 'writer')] } } as MissionRunEvent,
  },
  {
    name: 'awaiting_review (result): request changes (a result does not go back)',
    input: onlyResult,
    from: allDone,
    event: requestChanges,
  },
  {
    name: 'awaiting_review (plan, after 5 rounds): a sixth change request',
    input: onlyPlan,
    from: throughPlanRounds(5),
    event: requestChanges,
  },
  { name: 'planning: request changes (nothing to review)', input: onlyPlan, from: [], event: requestChanges },
  {
    name: 'planning (round 2): a late plan of attempt 1',
    input: onlyPlan,
    from: [proposed(diamond), requestChanges],
    event: proposed(diamond, 1),
  },
  { name: 'executing: request changes', input: onlyResult, from: executingA, event: requestChanges },
  { name: 'planning: a task event', input: onlyResult, from: [], event: succeeded('a') },
  { name: 'planning: TASK_STARTED', input: onlyResult, from: [], event: started('a', 1) },
  { name: 'planning: approve (nothing to review)', input: onlyPlan, from: [], event: approve },
  { name: 'planning: reject', input: onlyPlan, from: [], event: reject },
  { name: 'planning: a plan of another attempt', input: onlyResult, from: [], event: proposed(diamond, 2) },
  {
    name: 'planning: a stale plan of attempt 1 once attempt 2 runs',
    input: onlyResult,
    from: [proposed(cyclic)],
    event: proposed(diamond, 1),
  },
  {
    name: 'planning: a stale planner failure',
    input: onlyResult,
    from: [proposed(cyclic)],
    event: plannerFailed,
  },
  { name: 'awaiting_review: a plan', input: onlyPlan, from: [proposed(diamond)], event: proposed(diamond) },
  {
    name: 'awaiting_review (plan): a task result',
    input: onlyPlan,
    from: [proposed(diamond)],
    event: succeeded('a'),
  },
  {
    name: 'awaiting_review (plan): TASK_STARTED',
    input: onlyPlan,
    from: [proposed(diamond)],
    event: started('a', 1),
  },
  { name: 'executing: approve', input: onlyResult, from: executingA, event: approve },
  { name: 'executing: reject', input: onlyResult, from: executingA, event: reject },
  { name: 'executing: another plan', input: onlyResult, from: executingA, event: proposed(diamond) },
  { name: 'executing: a pending task’s result', input: onlyResult, from: executingA, event: succeeded('d') },
  {
    name: 'executing: an unknown task’s result',
    input: onlyResult,
    from: executingA,
    event: succeeded('zz'),
  },
  {
    name: 'executing: a completed task’s result again (duplicate)',
    input: onlyResult,
    from: executingBC,
    event: succeeded('a'),
  },
  {
    name: 'executing: a completed task failing late',
    input: onlyResult,
    from: executingBC,
    event: taskFailed('a'),
  },
  {
    name: 'executing: TASK_STARTED twice for one task',
    input: onlyResult,
    from: executingA,
    event: started('a', 999),
  },
  {
    name: 'executing: TASK_STARTED for a pending task',
    input: onlyResult,
    from: executingA,
    event: started('d', 5),
  },
  {
    name: 'executing: TASK_STARTED of a started task with an unstarted one',
    input: onlyResult,
    from: [...executingA, succeeded('a'), started('b', 102)],
    event: startedAll(['b', 102], ['c', 103]),
  },
  {
    name: 'executing: TASK_STARTED naming one task twice',
    input: onlyResult,
    from: [...executingA, succeeded('a')],
    event: startedAll(['b', 102], ['b', 103]),
  },
  {
    name: 'completed: cancel',
    input: onlyPlan,
    from: [proposed(diamond), approve, ...allDone.slice(1)],
    event: cancel,
  },
  { name: 'completed: approve', input: onlyResult, from: [...allDone, approve], event: approve },
  { name: 'failed: cancel', input: onlyResult, from: [plannerFailed], event: cancel },
  {
    name: 'failed: a late task result',
    input: onlyResult,
    from: [...executingA, taskFailed('a')],
    event: succeeded('a'),
  },
  { name: 'cancelled: cancel again', input: onlyResult, from: [cancel], event: cancel },
  { name: 'cancelled: a late plan', input: onlyResult, from: [cancel], event: proposed(diamond) },
  { name: 'cancelled: approve', input: onlyPlan, from: [proposed(diamond), cancel], event: approve },
];

describe('mission-run machine', () => {
  specTable(missionRunMachine, 'mission-run', {
    initial: initialRows,
    transitions: transitionRows,
    refused: refusedRows,
  });

  it('every row’s events and inputs match the wire schemas', () => {
    for (const row of [...transitionRows, ...refusedRows]) {
      expect(missionRunInputSchema.safeParse(row.input).success).toBe(true);
      for (const event of [...row.from, row.event]) {
        expect(missionRunEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
      }
    }
  });

  it('never starts a task twice: each task id appears in exactly one startTask over a whole run', () => {
    let [snapshot, actions] = [
      reach(missionRunMachine, serial, []),
      [] as { type: string; params?: unknown }[],
    ];
    const starts: string[] = [];
    const events = [proposed(diamond), approve];
    for (const event of events) {
      [snapshot, actions] = send(missionRunMachine, snapshot, event);
      for (const a of actions) if (a.type === 'startTask') starts.push((a.params as { task: string }).task);
    }
    let runId = 100;
    while (snapshot.value === 'executing') {
      const running = snapshot.context.plan?.tasks.find((t) => t.status === 'running');
      if (!running) break;
      [snapshot, actions] = send(
        missionRunMachine,
        roundTrip(missionRunMachine, snapshot),
        started(running.id, runId++),
      );
      [snapshot, actions] = send(
        missionRunMachine,
        roundTrip(missionRunMachine, snapshot),
        succeeded(running.id),
      );
      for (const a of actions) if (a.type === 'startTask') starts.push((a.params as { task: string }).task);
    }
    expect(snapshot.value).toBe('completed');
    expect(starts).toEqual(['a', 'b', 'c', 'd']);
  });

  it('projects status, plan, error, review and the review stage', () => {
    const waiting = reach(missionRunMachine, onlyPlan, [proposed(diamond)]);
    expect(projectMissionRun(waiting)).toMatchObject({
      status: 'awaiting_review',
      reviewStage: 'plan',
      error: null,
      review: null,
      completedAt: null,
    });
    expect(projectMissionRun(waiting).plan?.tasks).toHaveLength(4);
    const done = reach(missionRunMachine, onlyResult, [...allDone, approve]);
    expect(projectMissionRun(done)).toMatchObject({
      status: 'completed',
      review: { decision: 'approved', by: 'token:abc', stage: 'result' },
      completedAt: T2,
    });
  });

  it('loads a snapshot persisted before decisions recorded their stage: the stage is null until the next decision', () => {
    // A review-both run whose plan was approved before `decision.stage` existed, still executing.
    const executing = reach(missionRunMachine, both, [proposed(diamond), approve, ...allDone.slice(1, -1)]);
    const old = JSON.parse(JSON.stringify(missionRunMachine.getPersistedSnapshot(executing)));
    delete old.context.decision.stage;
    expect(old.context.decision).toEqual(approved);
    const loaded = resolveSnapshot(
      { name: 'mission-run', machine: missionRunMachine, contextSchema: missionRunContextSchema } as never,
      old,
    ) as Snapshot<M>;
    expect(loaded.context.decision).toEqual({ ...old.context.decision, stage: null });
    expect(projectMissionRun(loaded).review).toMatchObject({ decision: 'approved', stage: null });
    const [waiting] = send(missionRunMachine, loaded, succeeded('d'));
    expect(waiting.value).toBe('awaiting_review');
    expect(waiting.context).toMatchObject({ reviewStage: 'result', decision: { stage: null } });
    const [done] = send(missionRunMachine, waiting, reject);
    expect(done.value).toBe('cancelled');
    expect(done.context.decision).toMatchObject({ decision: 'rejected', stage: 'result' });
  });
});

describe('plan rules', () => {
  const team = { team: ['lead', 'writer'], maxTasks: 3 };
  it.each([
    [
      'not JSON',
      { text: 'I think we should write it.' },
      ['the answer is not a JSON object of the form {"tasks": [...]}'],
    ],
    ['no tasks', { tasks: [] }, ['tasks: a plan needs at least one task']],
    [
      'duplicate ids',
      { tasks: [task('a', 'lead'), task('a', 'writer')] },
      ['tasks.1.id: "a" is used by another task'],
    ],
    [
      'unknown dependency',
      { tasks: [task('a', 'lead', ['ghost'])] },
      ['tasks.0.dependsOn.0: there is no task "ghost"'],
    ],
    [
      'self dependency',
      { tasks: [task('a', 'lead', ['a'])] },
      ['tasks.0.dependsOn.0: a task cannot depend on itself'],
    ],
    [
      'agent not in the team',
      { tasks: [task('a', 'critic')] },
      ['tasks.0.agent: "critic" is not in the team ("lead", "writer")'],
    ],
    [
      'more than maxTasks',
      { tasks: [task('a', 'lead'), task('b', 'lead'), task('c', 'lead'), task('d', 'lead')] },
      ['tasks: 4 tasks, more than the mission allows (maxTasks 3)'],
    ],
    [
      'a longer cycle',
      { tasks: [task('a', 'lead', ['c']), task('b', 'lead', ['a']), task('c', 'lead', ['b'])] },
      ['dependsOn: the tasks form a cycle (a → c → b → a)'],
    ],
    [
      'a task without a title',
      { tasks: [{ ...task('a', 'lead'), title: '' }] },
      ['tasks.0.title: Too small: expected string to have >=1 characters'],
    ],
  ])('refuses %s', (_name, output, errors) => {
    const check = checkPlan(output as unknown as Parameters<typeof checkPlan>[0], team);
    expect(check).toEqual({ ok: false, errors });
  });

  it('accepts a plan in a fenced JSON block of a text answer, ignoring other keys', () => {
    const text = `Here is the plan:\n\`\`\`json\n${JSON.stringify({ note: 'x', tasks: [task('a', 'lead')] })}\n\`\`\``;
    const check = checkPlan({ text }, team);
    expect(check.ok).toBe(true);
  });
});
