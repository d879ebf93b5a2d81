/**
 * The effect vocabulary shared by every machine and the actor host.
 *
 * Terminology:
 * - effect: a named action with plain-JSON `params`. Its implementation in `setup()` is a no-op; the
 *   host reads `type` and `params` from the actions that xstate's pure `transition()` returns and
 *   performs the effect in the same database transaction as the snapshot write.
 * - run event: a row in a run's event log (per-run sequence), replayed over SSE and turned into
 *   webhooks. Recorded with `recordEvent`.
 * - job: background work started after commit (`enqueueJob`).
 * - timer: a durable row with a `dueAt`; when due, the scheduler sends the timer's `event` (plus `at`,
 *   the firing time) to the actor that scheduled it. A timer id is unique per actor, so scheduling
 *   the same id again replaces the pending timer.
 * - review event: a review item's domain event (opened, assigned, snoozed, woken, decided,
 *   cancelled, due_soon, overdue, escalated, timeout…), published through the outbox (`emitReviewEvent`).
 * - proposal event: a proposal's domain event (created, approved, rejected, cancelled, executed,
 *   failed), published through the outbox (`emitProposalEvent`).
 * - signal: anything else the host must do (`notify`).
 */

/**
 * The names of run events, in the vocabulary of docs/api.md#run-event-stream-sse (plus `rejected` and
 * `cancelled`).
 */
export const RUN_EVENT_NAMES = [
  'started',
  'step_started',
  'step_completed',
  'tool_completed',
  'paused_for_review',
  'approved',
  'rejected',
  'completed',
  'failed',
  'cancelled',
] as const;

/** A run event name. */
export type RunEventName = (typeof RUN_EVENT_NAMES)[number];

/**
 * The names of a mission run's events (docs/api.md "Missions": the SSE stream's names; `started` is published
 * for the `mission.started` webhook only, it is not in the stream).
 */
export const MISSION_EVENT_NAMES = [
  'started',
  'planned',
  'task_started',
  'task_completed',
  'awaiting_review',
  'approved',
  'completed',
  'failed',
  'cancelled',
] as const;

/** A mission run event name. */
export type MissionEventName = (typeof MISSION_EVENT_NAMES)[number];

/**
 * The names of a review item's domain events (the last token of `evt.<org>.review.<itemId>.<name>`).
 * `changes_requested` is for the transition that sends a draft back with a reviewer's reason (the
 * `review.changes_requested` webhook event): it closes the item with a decision whose action is
 * `request_changes`. The deadline's (decisions §16): `due_soon` (the reminder), `overdue` (the item
 * is due), `escalated` (assigned to the policy's `escalateTo`), `timeout` (the subject is rejected
 * as `system:timeout`; its `decided` follows).
 * `deciding` is a decision taken with a delay (the item waits for its `effectiveAt`), `undone` that
 * decision withdrawn before it took effect.
 */
export const REVIEW_EVENT_NAMES = [
  'opened',
  'assigned',
  'snoozed',
  'woken',
  'updated',
  'approval',
  'decided',
  'changes_requested',
  'cancelled',
  'due_soon',
  'overdue',
  'escalated',
  'timeout',
  'deciding',
  'undone',
] as const;

/** A review event name. */
export type ReviewEventName = (typeof REVIEW_EVENT_NAMES)[number];

/** The names of a proposal's domain events (the last token of `evt.<org>.proposal.<id>.<name>`). */
export const PROPOSAL_EVENT_NAMES = [
  'created',
  'approved',
  'rejected',
  'cancelled',
  'executed',
  'failed',
] as const;

/** A proposal event name. */
export type ProposalEventName = (typeof PROPOSAL_EVENT_NAMES)[number];

/** Params of `recordEvent`: append a run event. `step` names the workflow step (or the skill). */
export interface RecordEventParams {
  event: RunEventName;
  step?: string;
}

/** Params of `recordMissionEvent`: append a mission run event; `task` names the task it is about. */
export interface RecordMissionEventParams {
  event: MissionEventName;
  task?: string;
}

/** Params of `startPlanner`: start the planner's child run for `attempt`, telling it why the last plan was refused. */
export interface StartPlannerParams {
  attempt: number;
  errors: string[];
}

/** Params of `startTask`: start task `task`'s child run (its dependencies' outputs are in the context). */
export interface StartTaskParams {
  task: string;
}

/** Params of `cancelChildren`: cancel every child run still going (the mission run ended `reason`). */
export interface CancelChildrenParams {
  reason: 'cancelled' | 'failed';
}

/** Params of `enqueueJob`: background work to start after commit. */
export type EnqueueJobParams =
  | { job: 'execute_step'; step: string; attempt: number }
  | { job: 'deliver'; attempt: number }
  | { job: 'execute_action'; attempt: number };

/** The event a timer sends when due; the scheduler adds `at` (the firing time). */
export interface TimerEvent {
  type: string;
  [field: string]: string | number | boolean | null;
}

/** Params of `scheduleTimer`: create or replace the actor's timer `timerId`. */
export interface ScheduleTimerParams {
  timerId: string;
  event: TimerEvent;
  dueAt: string;
}

/** Params of `cancelTimer`: delete the actor's timer `timerId` if it is still pending. */
export interface CancelTimerParams {
  timerId: string;
}

/** Params of `openReview`: create the run's review item. */
export interface OpenReviewParams {
  title?: string;
  assignTo?: string | null;
}

/** Params of `updateReview`: what a reviewer sees changed under the open review item (none). */
export type UpdateReviewParams = Record<string, never>;

/** Params of `closeReview`: close the run's review item (decided, or cancelled with its run). */
export interface CloseReviewParams {
  reason: 'decided' | 'cancelled';
}

/** Params of `emitReviewEvent`: publish a review item's domain event (its state after the transition). */
export interface EmitReviewEventParams {
  event: ReviewEventName;
}

/** Params of `rejectOnTimeout`: reject the item's subject as `system:timeout` (its deadline passed). */
export type RejectOnTimeoutParams = Record<string, never>;

/** Params of `dispatchDecision`: hand the item's delayed decision to its subject's owner (none). */
export type DispatchDecisionParams = Record<string, never>;

/** Params of `emitProposalEvent`: publish a proposal's domain event (its state after the transition). */
export interface EmitProposalEventParams {
  event: ProposalEventName;
}

/** Params of `notify`: a signal for the host, such as the outcome of a webhook delivery. */
export type NotifyParams =
  | { signal: 'delivery_succeeded' | 'delivery_failed'; deliveryId: string; webhookId: number }
  | { signal: 'endpoint_disabled'; webhookId: number };

/** One effect as the host sees it: `{type, params}` of an action returned by `transition()`. */
export type Effect =
  | { type: 'recordEvent'; params: RecordEventParams }
  | { type: 'enqueueJob'; params: EnqueueJobParams }
  | { type: 'scheduleTimer'; params: ScheduleTimerParams }
  | { type: 'cancelTimer'; params: CancelTimerParams }
  | { type: 'openReview'; params: OpenReviewParams }
  | { type: 'updateReview'; params: UpdateReviewParams }
  | { type: 'closeReview'; params: CloseReviewParams }
  | { type: 'emitReviewEvent'; params: EmitReviewEventParams }
  | { type: 'rejectOnTimeout'; params: RejectOnTimeoutParams }
  | { type: 'dispatchDecision'; params: DispatchDecisionParams }
  | { type: 'emitProposalEvent'; params: EmitProposalEventParams }
  | { type: 'notify'; params: NotifyParams }
  | { type: 'recordMissionEvent'; params: RecordMissionEventParams }
  | { type: 'startPlanner'; params: StartPlannerParams }
  | { type: 'startTask'; params: StartTaskParams }
  | { type: 'cancelChildren'; params: CancelChildrenParams };

/** The effect action names. */
export const EFFECT_TYPES = [
  'recordEvent',
  'enqueueJob',
  'scheduleTimer',
  'cancelTimer',
  'openReview',
  'updateReview',
  'closeReview',
  'emitReviewEvent',
  'rejectOnTimeout',
  'dispatchDecision',
  'emitProposalEvent',
  'notify',
  'recordMissionEvent',
  'startPlanner',
  'startTask',
  'cancelChildren',
] as const satisfies readonly Effect['type'][];

/**
 * No-op implementations of every effect, spread into each machine's `setup({ actions })`. They exist
 * only to name the actions and type their params; the host performs the effects.
 */
export const effectActions = {
  recordEvent: (_args: unknown, _params: RecordEventParams): void => undefined,
  enqueueJob: (_args: unknown, _params: EnqueueJobParams): void => undefined,
  scheduleTimer: (_args: unknown, _params: ScheduleTimerParams): void => undefined,
  cancelTimer: (_args: unknown, _params: CancelTimerParams): void => undefined,
  openReview: (_args: unknown, _params: OpenReviewParams): void => undefined,
  updateReview: (_args: unknown, _params: UpdateReviewParams): void => undefined,
  closeReview: (_args: unknown, _params: CloseReviewParams): void => undefined,
  emitReviewEvent: (_args: unknown, _params: EmitReviewEventParams): void => undefined,
  rejectOnTimeout: (_args: unknown, _params: RejectOnTimeoutParams): void => undefined,
  dispatchDecision: (_args: unknown, _params: DispatchDecisionParams): void => undefined,
  emitProposalEvent: (_args: unknown, _params: EmitProposalEventParams): void => undefined,
  notify: (_args: unknown, _params: NotifyParams): void => undefined,
  recordMissionEvent: (_args: unknown, _params: RecordMissionEventParams): void => undefined,
  startPlanner: (_args: unknown, _params: StartPlannerParams): void => undefined,
  startTask: (_args: unknown, _params: StartTaskParams): void => undefined,
  cancelChildren: (_args: unknown, _params: CancelChildrenParams): void => undefined,
};

/** An effect's name. */
export type EffectType = Effect['type'];

/**
 * The no-op implementations of `types`, the effects one machine emits, for its `setup({ actions })`:
 * its action types then name exactly those, so the kind's handlers are typed by them (the actor
 * host's `EffectOf<machine>`: a union discriminated by `type`).
 */
export function effectActionsOf<const T extends readonly EffectType[]>(
  ...types: T
): Pick<typeof effectActions, T[number]> {
  const picked: Partial<typeof effectActions> = {};
  for (const type of types) Object.assign(picked, { [type]: effectActions[type] });
  return picked as Pick<typeof effectActions, T[number]>;
}

const effectTypes: ReadonlySet<string> = new Set(EFFECT_TYPES);

/**
 * The effects among the actions returned by `transition()`/`initialTransition()`, in order, as plain
 * `{type, params}` objects. Every action a machine emits is an effect (context changes are `assign`s,
 * which xstate does not return), so this drops nothing in practice; it is the host's typed view.
 */
export function toEffects(actions: readonly { type: string; params?: unknown }[]): Effect[] {
  return actions
    .filter((action) => effectTypes.has(action.type))
    .map((action) => ({ type: action.type, params: action.params }) as Effect);
}
