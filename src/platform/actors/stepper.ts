/**
 * Pure steps of a machine, as the host takes them. xstate's `initialTransition()` and `transition()`
 * build a whole inert actor (and compute an initial snapshot it throws away) on every call, the
 * largest single cost of creating a run (docs/performance.md, "Choices in the code"). r3's persisted machines spawn, invoke and delay
 * nothing (docs/conventions.md), so nothing of a step outlives it in the actor scope: one inert scope per
 * machine serves every step, collecting that step's actions. The result is the same snapshot and
 * the same actions as xstate's functions give (the machine table tests check both, row by row).
 */
import {
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  type EventObject,
} from 'xstate';

/** A machine's initial and next steps: `[snapshot, actions]`, like xstate's pure functions. */
export interface MachineStepper {
  initial(input: unknown): [AnyMachineSnapshot, Array<{ type: string; params?: unknown }>];
  next(
    snapshot: AnyMachineSnapshot,
    event: EventObject,
  ): [AnyMachineSnapshot, Array<{ type: string; params?: unknown }>];
}

export function createStepper(machine: AnyStateMachine): MachineStepper {
  // The actor is never started: it only gives the scope its `self` and `system`, as
  // `createInertActorScope` does (its eager initial snapshot without input is discarded).
  const self = createActor(machine);
  let collected: Array<{ type: string; params?: unknown }> = [];
  const scope = {
    self,
    defer: () => {},
    id: '',
    logger: () => {},
    sessionId: '',
    stopChild: () => {},
    system: self.system,
    emit: () => {},
    actionExecutor: (action: { type: string; params?: unknown }) => {
      collected.push(action);
    },
  } as unknown as AnyActorScope;
  const take = () => {
    const actions = collected;
    collected = [];
    return actions;
  };
  return {
    initial(input) {
      collected = [];
      const snapshot = machine.getInitialSnapshot(scope, input);
      return [snapshot, take()];
    },
    next(snapshot, event) {
      collected = [];
      const after = machine.transition(snapshot, event, scope);
      return [after, take()];
    },
  };
}
