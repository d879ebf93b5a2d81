import { describe, expect, it } from 'vitest';
import {
  type AnyStateMachine,
  type EventFromLogic,
  type InputFrom,
  initialTransition,
  type SnapshotFrom,
  transition,
} from 'xstate';
import { EFFECT_TYPES } from '../../machines/shared/effects.js';
import type { ToolCompletedEvent, ToolsRequestedEvent } from '../../machines/shared/run.js';
import { createStepper, type MachineStepper } from '../../src/platform/actors/stepper.js';

/** An action as the host sees it. */
export interface ActionView {
  type: string;
  params?: unknown;
}

/** A row of a transition table: reach `from` (events after the input), send `event`, land in `to`. */
export interface TransitionRow<M extends AnyStateMachine> {
  name: string;
  input: InputFrom<M>;
  from: EventFromLogic<M>[];
  event: EventFromLogic<M>;
  /** The state value: a name, or `{parent: child}` for a compound state. */
  to: string | Record<string, unknown>;
  /** The exact effects, in order, with their exact params. */
  actions: ActionView[];
  /** A subset of the resulting context. */
  context?: Record<string, unknown>;
}

/** A row of an initial-transition table: create the actor from `input`. */
export interface InitialRow<M extends AnyStateMachine> {
  name: string;
  input: InputFrom<M>;
  to: string | Record<string, unknown>;
  actions: ActionView[];
  context?: Record<string, unknown>;
}

/** A refused transition: after `from`, the state must not handle `event`. */
export interface RefusedRow<M extends AnyStateMachine> {
  name: string;
  input: InputFrom<M>;
  from: EventFromLogic<M>[];
  event: EventFromLogic<M>;
}

/** The snapshot type of machine `M` (`SnapshotFrom` does not narrow for a generic `M`). */
export type Snapshot<M extends AnyStateMachine> = ReturnType<M['resolveState']>;

const effectTypes: ReadonlySet<string> = new Set(EFFECT_TYPES);

/** The actions as `{type, params}`, checked to be effects with plain-JSON params. */
export function viewActions(actions: readonly { type: string; params?: unknown }[]): ActionView[] {
  return actions.map((action) => {
    expect(effectTypes.has(action.type), `${action.type} is an effect`).toBe(true);
    expectPlainJson(action.params);
    return action.params === undefined ? { type: action.type } : { type: action.type, params: action.params };
  });
}

/** Asserts that `value` survives a JSON round trip unchanged (no undefined, functions, Dates…). */
export function expectPlainJson(value: unknown): void {
  expect(JSON.parse(JSON.stringify(value))).toStrictEqual(value);
}

const steppers = new WeakMap<AnyStateMachine, MachineStepper>();

/**
 * The host's stepper of `machine` (src/platform/actors/stepper.ts). Every create and send below also takes
 * the step through it and checks that it lands where xstate's own pure function does, with the same
 * actions: each row of each table checks the host's path too.
 */
function stepperOf(machine: AnyStateMachine): MachineStepper {
  let stepper = steppers.get(machine);
  if (!stepper) {
    stepper = createStepper(machine);
    steppers.set(machine, stepper);
  }
  return stepper;
}

function expectSameStep(
  machine: AnyStateMachine,
  xstate: [unknown, readonly { type: string; params?: unknown }[]],
  host: [unknown, readonly { type: string; params?: unknown }[]],
): void {
  const persisted = (s: unknown) => machine.getPersistedSnapshot(s as never);
  expect(persisted(host[0])).toStrictEqual(persisted(xstate[0]));
  const plain = (actions: readonly { type: string; params?: unknown }[]) =>
    actions.map((a) => ({ type: a.type, params: a.params }));
  expect(plain(host[1])).toStrictEqual(plain(xstate[1]));
}

/** Creates the actor from `input`, returning the snapshot and the creation's actions. */
export function create<M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
): [Snapshot<M>, ActionView[]] {
  const [snapshot, actions] = initialTransition(machine, input);
  expectSameStep(machine, [snapshot, actions], stepperOf(machine).initial(input));
  return [snapshot as Snapshot<M>, viewActions(actions)];
}

/** Sends `event`, returning the next snapshot and the actions. */
export function send<M extends AnyStateMachine>(
  machine: M,
  snapshot: Snapshot<M>,
  event: EventFromLogic<M>,
): [Snapshot<M>, ActionView[]] {
  const [next, actions] = transition(machine, snapshot as SnapshotFrom<M>, event);
  const host = stepperOf(machine).next(snapshot, event);
  expectSameStep(machine, [next, actions], host);
  // A refused event leaves the snapshot itself untouched on both paths.
  if (next === snapshot) expect(host[0]).toBe(snapshot);
  return [next as Snapshot<M>, viewActions(actions)];
}

/** Creates the actor and sends each event, failing loudly if the path itself is refused. */
export function reach<M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
  events: readonly EventFromLogic<M>[],
): Snapshot<M> {
  let [snapshot] = create(machine, input);
  for (const event of events) {
    if (!snapshot.can(event)) {
      throw new Error(`path event ${event.type} is refused in ${JSON.stringify(snapshot.value)}`);
    }
    [snapshot] = send(machine, snapshot, event);
  }
  return snapshot;
}

/** Persists the snapshot as the host does (JSON text) and restores it. */
export function roundTrip<M extends AnyStateMachine>(machine: M, snapshot: Snapshot<M>): Snapshot<M> {
  const text = JSON.stringify(machine.getPersistedSnapshot(snapshot));
  return machine.resolveState(JSON.parse(text)) as Snapshot<M>;
}

/** Checks a transition row. */
export function checkTransition<M extends AnyStateMachine>(machine: M, row: TransitionRow<M>): void {
  const before = reach(machine, row.input, row.from);
  expect(before.can(row.event)).toBe(true);
  const [after, actions] = send(machine, before, row.event);
  expect(after.value).toEqual(row.to);
  expect(actions).toEqual(row.actions);
  expectPlainJson(after.context);
  if (row.context !== undefined) {
    expect(after.context).toMatchObject(row.context);
  }
}

/** Checks an initial row. */
export function checkInitial<M extends AnyStateMachine>(machine: M, row: InitialRow<M>): void {
  const [snapshot, actions] = create(machine, row.input);
  expect(snapshot.value).toEqual(row.to);
  expect(actions).toEqual(row.actions);
  expectPlainJson(snapshot.context);
  if (row.context !== undefined) {
    expect(snapshot.context).toMatchObject(row.context);
  }
}

/** Checks a refused row: unhandled, so `transition` returns the very same snapshot and no actions. */
export function checkRefused<M extends AnyStateMachine>(machine: M, row: RefusedRow<M>): void {
  const before = reach(machine, row.input, row.from);
  expect(before.can(row.event)).toBe(false);
  const [after, actions] = send(machine, before, row.event);
  expect(after).toBe(before);
  expect(actions).toEqual([]);
}

/**
 * The spec-table suite every machine test runs: the machine is versioned under its kind, then
 * every creation row, every accepted transition row and every refused transition row.
 */
export function specTable<M extends AnyStateMachine>(
  machine: M,
  kind: string,
  rows: { initial: InitialRow<M>[]; transitions: TransitionRow<M>[]; refused: RefusedRow<M>[] },
): void {
  it('is versioned under its kind', () => {
    expect(machine.id).toBe(kind);
    expect(machine.version).toBe('1');
  });
  describe('creation', () => {
    it.each(rows.initial)('$name', (row) => checkInitial(machine, row));
  });
  describe('accepted transitions', () => {
    it.each(rows.transitions)('$name', (row) => checkTransition(machine, row));
  });
  describe('refused transitions', () => {
    it.each(rows.refused)('$name', (row) => checkRefused(machine, row));
  });
}

/** A turn of two tool calls (`call_a`, `call_b`) of `step`, as the worker sends it. */
export function toolsRequestedEvent(step: string, at: string): ToolsRequestedEvent {
  return {
    type: 'TOOLS_REQUESTED',
    step,
    attempt: 1,
    turn: 1,
    calls: [
      { id: 'call_a', tool: 'run_code' },
      { id: 'call_b', tool: 'web_search' },
    ],
    at,
  };
}

/** One call of `step` finished, `remaining` of its turn still executing. */
export function toolCompletedEvent(
  step: string,
  callId: string,
  remaining: number,
  at: string,
): ToolCompletedEvent {
  return {
    type: 'TOOL_COMPLETED',
    step,
    attempt: 1,
    callId,
    tool: 'run_code',
    status: 'ok',
    errorCode: null,
    remaining,
    at,
  };
}
