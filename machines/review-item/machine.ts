/**
 * review-item: one entry of the unified review queue (a pending skill run, a paused workflow run or
 * a mission awaiting review), persisted as an actor.
 *
 * Terminology:
 * - open: `unassigned` (the triage lane), `assigned` or `snoozed`; closed: `decided` or `cancelled`.
 * - routing: a transient state that picks `assigned` or `unassigned` from `assignedTo`; entered at
 *   creation, after an ASSIGN outside a snooze and when a snooze ends. A persisted snapshot is never in it.
 * - snooze: hides the item until `snoozedUntil`, through the durable timer `snooze` whose WAKE event
 *   carries the `until` it was scheduled for. Snoozing again replaces that timer (same timer id), and
 *   a WAKE whose `until` is not the current one is stale and refused.
 * - review event: every transition publishes one domain event (`emitReviewEvent`): `opened` at
 *   creation, then `assigned`, `snoozed`, `woken`, `updated`, `decided` or `cancelled`.
 * - deciding (decisions.md §15 "Undo"): a decision taken with a delay (DEFER) waits here, still in
 *   the queue, until its `effectiveAt` (its deadline only reminds and turns overdue meanwhile): the durable timer `decide`
 *   then sends TAKE_EFFECT, which
 *   hands the decision to the subject's owner (`dispatchDecision`) and leaves the item `effective`
 *   for the owner's transition to close it (DECIDE), all in the timer's transaction. UNDO before
 *   `effectiveAt` cancels the timer and routes the item again (`undone`); nothing else decides,
 *   routes or snoozes a deciding item. `effective` exists only inside that transaction.
 * - revision: what a reviewer saw, as the API names it (the item's id and version). Every
 *   transition changes the version; SUBJECT_CHANGED exists to change it when the subject changes
 *   under an open item (a skill run's draft arrived), leaving the state as it is (the item's
 *   summary follows the subject's).
 * - change request: a DECIDE whose action is `request_changes` closes the item as any decision does
 *   (`decided`, the decision kept), but publishes `changes_requested` instead of `decided`: the
 *   subject goes back to its model, and its next draft opens another item (`rounds` one more).
 * - deadline: set when the policy in force has a `dueIn` (decisions §16). The item is due at
 *   `dueAt` = opening + `dueIn`; two durable timers carry the deadline's events, `due_soon` (DUE_SOON
 *   at `dueAt − remindBefore`) and `due` (DUE at `dueAt`), each naming the `dueAt` it was scheduled
 *   for, so a timer of a moved deadline is refused. `deadline.stage` is where the deadline stands
 *   (a region of its own in all but name: it changes beside the routing states, never instead of
 *   them): pending → reminded (DUE_SOON, once) → at DUE `overdue`, then the policy's `onTimeout`:
 *   `escalate` assigns `escalateTo` with the note `escalated` and moves `dueAt` one `dueIn` on
 *   (once: the next DUE leaves it overdue), `reject` asks the host to reject the subject as
 *   `system:timeout` (`rejectOnTimeout`; the subject's decision closes the item in the same
 *   transaction). An escalation ends a snooze: the escalated item is for someone to see now. Closing
 *   the item cancels the deadline's pending timers.
 * - approvals: an item that needs several (`required`, its review policy's) records each but the
 *   last as APPROVAL (`approval`), staying open with a new revision; the last approver's DECIDE
 *   closes it. The same user approving twice is refused.
 */
import { assertEvent, assign, enqueueActions, setup } from 'xstate';
import { effectActionsOf, type ReviewEventName, type ScheduleTimerParams } from '../shared/effects.js';
import { addMs, isAfter, isSameInstant } from '../shared/time.js';
import type { ReviewDeadline, ReviewDeadlineStage, ReviewItemContext } from './context.js';
import type { ReviewItemEvent, ReviewItemInput } from './events.js';

export type { ReviewItemProjection, ReviewItemStatus } from './project.js';
export { projectReviewItem, REVIEW_ITEM_STATUSES } from './project.js';

/** The id of the item's snooze timer. */
export const SNOOZE_TIMER_ID = 'snooze';

/** The id of the deadline's reminder timer (DUE_SOON). */
export const DUE_SOON_TIMER_ID = 'due_soon';

/** The id of the deadline's timer (DUE). */
export const DUE_TIMER_ID = 'due';

/** The note an escalation leaves on the item. */
export const ESCALATED_NOTE = 'escalated';

/** When the reminder of `deadline` (due at `dueAt`, opened at `openedAt`) goes out; null: it does not. */
function remindAt(deadline: ReviewDeadline, openedAt: string): string | null {
  if (deadline.remindBeforeMs === null) return null;
  const at = addMs(deadline.dueAt, -deadline.remindBeforeMs);
  return isAfter(at, openedAt) ? at : null;
}

const dueTimer = (dueAt: string): ScheduleTimerParams => ({
  timerId: DUE_TIMER_ID,
  event: { type: 'DUE', dueAt },
  dueAt,
});

/** The deadline stages in which the DUE timer is pending. */
const DUE_PENDING: ReadonlySet<ReviewDeadlineStage> = new Set(['pending', 'reminded', 'escalated']);

/** The id of the item's timer that makes a delayed decision take effect. */
export const DECIDE_TIMER_ID = 'decide';

/** Publishes the item's domain event `event` (the host writes it to the outbox). */
const emit = (event: ReviewEventName) => ({ type: 'emitReviewEvent', params: { event } }) as const;

const snoozeTransition = {
  guard: 'isFutureUntil',
  target: 'snoozed',
  actions: [
    'storeSnooze',
    {
      type: 'scheduleTimer',
      params: ({ event }: { event: ReviewItemEvent }): ScheduleTimerParams => {
        assertEvent(event, 'SNOOZE');
        return { timerId: SNOOZE_TIMER_ID, event: { type: 'WAKE', until: event.until }, dueAt: event.until };
      },
    },
    emit('snoozed'),
  ],
} as const;

const assignTransition = { target: 'routing', actions: ['storeAssignment', emit('assigned')] } as const;

/** The subject changed under the open item: a new version (revision), and its new summary if given. */
const subjectChanged = { actions: ['storeSummary', emit('updated')] } as const;

const cancelSnoozeTimer = { type: 'cancelTimer', params: { timerId: SNOOZE_TIMER_ID } } as const;

/** The reminder, in every open state: the item stays where it is. */
const dueSoonTransition = {
  guard: 'isCurrentReminder',
  actions: ['markReminded', emit('due_soon')],
} as const;

/** What the deadline passing does beside the escalation: `overdue`, a rejection or nothing more. */
const overdueTransitions = [
  {
    guard: 'timesOut',
    actions: ['markTimedOut', emit('overdue'), emit('timeout'), { type: 'rejectOnTimeout', params: {} }],
  },
  { guard: 'isCurrentDue', actions: ['markOverdue', emit('overdue')] },
] as const;

/**
 * The deadline passed, in `unassigned` or `assigned`: `overdue`, then the policy's `onTimeout` — an
 * escalation (routed to `escalateTo`), a rejection (the host's `rejectOnTimeout`), or nothing.
 */
const dueTransitions = [
  {
    guard: 'escalates',
    target: 'routing',
    actions: [emit('overdue'), 'storeEscalation', 'scheduleNextDue', emit('escalated')],
  },
  ...overdueTransitions,
] as const;

/** The deadline passed while snoozed: as {@link dueTransitions}, and an escalation ends the snooze. */
const snoozedDueTransitions = [
  {
    guard: 'escalates',
    target: 'routing',
    actions: [
      emit('overdue'),
      'clearSnooze',
      cancelSnoozeTimer,
      'storeEscalation',
      'scheduleNextDue',
      emit('escalated'),
    ],
  },
  ...overdueTransitions,
] as const;

const cancelDecideTimer = { type: 'cancelTimer', params: { timerId: DECIDE_TIMER_ID } } as const;

/** A decision with a delay: kept, and its `decide` timer scheduled for `effectiveAt`. */
const deferTransition = {
  guard: 'isFutureEffect',
  target: 'deciding',
  actions: [
    'storeDeferred',
    {
      type: 'scheduleTimer',
      params: ({ event }: { event: ReviewItemEvent }): ScheduleTimerParams => {
        assertEvent(event, 'DEFER');
        const { effectiveAt } = event;
        return { timerId: DECIDE_TIMER_ID, event: { type: 'TAKE_EFFECT', effectiveAt }, dueAt: effectiveAt };
      },
    },
    emit('deciding'),
  ],
} as const;

/** One approval of several: recorded, the item stays as it is (a new revision); the same user twice is refused. */
const approval = { guard: 'isNewApprover', actions: ['storeApproval', emit('approval')] } as const;

/** The review-item machine (`id` `review-item`, `version` `1`). */
export const reviewItemMachine = setup({
  types: {
    context: {} as ReviewItemContext,
    events: {} as ReviewItemEvent,
    input: {} as ReviewItemInput,
  },
  actions: {
    ...effectActionsOf(
      'cancelTimer',
      'dispatchDecision',
      'emitReviewEvent',
      'rejectOnTimeout',
      'scheduleTimer',
    ),
    storeAssignment: assign(({ event }) => {
      assertEvent(event, 'ASSIGN');
      return { assignedTo: event.assignedTo, note: event.note ?? null };
    }),
    storeSnooze: assign(({ event }) => {
      assertEvent(event, 'SNOOZE');
      return { snoozedUntil: event.until };
    }),
    clearSnooze: assign({ snoozedUntil: null }),
    storeSummary: assign(({ context, event }) => {
      assertEvent(event, 'SUBJECT_CHANGED');
      return { summary: event.summary === undefined ? (context.summary ?? null) : event.summary };
    }),
    storeDecision: assign(({ event }) => {
      assertEvent(event, 'DECIDE');
      const { action, by, reason, edited, at } = event;
      return { decision: { action, by, reason: reason ?? null, ...(edited ? { edited } : {}), at } };
    }),
    markClosed: assign({ closedAt: ({ event }) => event.at }),
    scheduleDeadline: enqueueActions(({ context, enqueue }) => {
      const { deadline } = context;
      if (!deadline) return;
      const reminder = remindAt(deadline, context.createdAt);
      if (reminder !== null) {
        enqueue({
          type: 'scheduleTimer',
          params: {
            timerId: DUE_SOON_TIMER_ID,
            event: { type: 'DUE_SOON', dueAt: deadline.dueAt },
            dueAt: reminder,
          },
        });
      }
      enqueue({ type: 'scheduleTimer', params: dueTimer(deadline.dueAt) });
    }),
    /** Closing the item: the deadline's timers still pending go (a stale one would be refused anyway). */
    cancelDeadlineTimers: enqueueActions(({ context, enqueue }) => {
      const { deadline } = context;
      if (!deadline || !DUE_PENDING.has(deadline.stage)) return;
      if (deadline.stage === 'pending' && remindAt(deadline, context.createdAt) !== null) {
        enqueue({ type: 'cancelTimer', params: { timerId: DUE_SOON_TIMER_ID } });
      }
      enqueue({ type: 'cancelTimer', params: { timerId: DUE_TIMER_ID } });
    }),
    markReminded: assign({ deadline: ({ context }) => withStage(context.deadline, 'reminded') }),
    markOverdue: assign({ deadline: ({ context }) => withStage(context.deadline, 'overdue') }),
    markTimedOut: assign({ deadline: ({ context }) => withStage(context.deadline, 'timed_out') }),
    storeEscalation: assign(({ context }) => {
      const deadline = context.deadline as ReviewDeadline;
      return {
        assignedTo: deadline.escalateTo,
        note: ESCALATED_NOTE,
        deadline: {
          ...deadline,
          stage: 'escalated' as const,
          dueAt: addMs(deadline.dueAt, deadline.dueInMs),
        },
      };
    }),
    scheduleNextDue: enqueueActions(({ context, enqueue }) => {
      const deadline = context.deadline as ReviewDeadline;
      enqueue({ type: 'scheduleTimer', params: dueTimer(deadline.dueAt) });
    }),
    storeDeferred: assign(({ event }) => {
      assertEvent(event, 'DEFER');
      const { type: _type, ...deciding } = event;
      return { deciding };
    }),
    /** The withdrawn decision is kept as `undone` (the `undone` event reports it), `deciding` cleared. */
    storeUndone: assign(({ context }) => ({ undone: context.deciding ?? null, deciding: null })),
    storeApproval: assign(({ context, event }) => {
      assertEvent(event, 'APPROVAL');
      return { approvals: [...(context.approvals ?? []), { by: event.by, at: event.at }] };
    }),
  },
  guards: {
    hasAssignee: ({ context }) => context.assignedTo !== null,
    isNewApprover: ({ context, event }) =>
      event.type === 'APPROVAL' && !(context.approvals ?? []).some((a) => a.by === event.by),
    isFutureUntil: ({ event }) => event.type === 'SNOOZE' && isAfter(event.until, event.at),
    isCurrentSnooze: ({ context, event }) =>
      event.type === 'WAKE' &&
      context.snoozedUntil !== null &&
      isSameInstant(event.until, context.snoozedUntil),
    isCurrentReminder: ({ context, event }) =>
      event.type === 'DUE_SOON' && isCurrent(context.deadline, event.dueAt, ['pending']),
    isCurrentDue: ({ context, event }) =>
      event.type === 'DUE' && isCurrent(context.deadline, event.dueAt, ['pending', 'reminded', 'escalated']),
    escalates: ({ context, event }) =>
      event.type === 'DUE' &&
      isCurrent(context.deadline, event.dueAt, ['pending', 'reminded']) &&
      context.deadline?.onTimeout === 'escalate' &&
      context.deadline.escalateTo !== null,
    timesOut: ({ context, event }) =>
      event.type === 'DUE' &&
      isCurrent(context.deadline, event.dueAt, ['pending', 'reminded']) &&
      context.deadline?.onTimeout === 'reject',
    isFutureEffect: ({ event }) => event.type === 'DEFER' && isAfter(event.effectiveAt, event.at),
    isBeforeEffect: ({ context, event }) =>
      event.type === 'UNDO' && context.deciding != null && isAfter(context.deciding.effectiveAt, event.at),
    isCurrentDecision: ({ context, event }) =>
      event.type === 'TAKE_EFFECT' &&
      context.deciding != null &&
      isSameInstant(event.effectiveAt, context.deciding.effectiveAt),
  },
}).createMachine({
  id: 'review-item',
  version: '1',
  context: ({ input }) => ({
    kind: input.kind,
    runId: input.runId,
    title: input.title,
    summary: input.summary ?? null,
    createdAt: input.at,
    ...(input.rounds ? { rounds: input.rounds } : {}),
    assignedTo: input.assignedTo ?? null,
    note: null,
    snoozedUntil: null,
    decision: null,
    deciding: null,
    undone: null,
    closedAt: null,
    deadline: input.deadline
      ? { ...input.deadline, dueAt: addMs(input.at, input.deadline.dueInMs), stage: 'pending' as const }
      : null,
    ...(input.required !== undefined && input.required > 1 ? { required: input.required } : {}),
  }),
  entry: [emit('opened'), 'scheduleDeadline'],
  initial: 'routing',
  states: {
    routing: {
      always: [{ guard: 'hasAssignee', target: 'assigned' }, { target: 'unassigned' }],
    },
    unassigned: {
      on: {
        ASSIGN: assignTransition,
        SNOOZE: snoozeTransition,
        DECIDE: { target: 'decided' },
        DEFER: deferTransition,
        APPROVAL: approval,
        SUBJECT_CHANGED: subjectChanged,
        DUE_SOON: dueSoonTransition,
        DUE: dueTransitions,
        CANCEL: { target: 'cancelled' },
      },
    },
    assigned: {
      on: {
        ASSIGN: assignTransition,
        SNOOZE: snoozeTransition,
        DECIDE: { target: 'decided' },
        DEFER: deferTransition,
        APPROVAL: approval,
        SUBJECT_CHANGED: subjectChanged,
        DUE_SOON: dueSoonTransition,
        DUE: dueTransitions,
        CANCEL: { target: 'cancelled' },
      },
    },
    snoozed: {
      on: {
        // Routing a snoozed item keeps it snoozed: the snooze is the reviewer's, not the assignee's.
        ASSIGN: { actions: ['storeAssignment', emit('assigned')] },
        SNOOZE: snoozeTransition,
        WAKE: { guard: 'isCurrentSnooze', target: 'routing', actions: ['clearSnooze', emit('woken')] },
        DECIDE: { target: 'decided', actions: ['clearSnooze', cancelSnoozeTimer] },
        DEFER: {
          ...deferTransition,
          actions: ['clearSnooze', cancelSnoozeTimer, ...deferTransition.actions],
        },
        APPROVAL: approval,
        SUBJECT_CHANGED: subjectChanged,
        DUE_SOON: dueSoonTransition,
        DUE: snoozedDueTransitions,
        CANCEL: { target: 'cancelled', actions: ['clearSnooze', cancelSnoozeTimer] },
      },
    },
    deciding: {
      on: {
        UNDO: {
          guard: 'isBeforeEffect',
          target: 'routing',
          actions: [cancelDecideTimer, 'storeUndone', emit('undone')],
        },
        TAKE_EFFECT: {
          guard: 'isCurrentDecision',
          target: 'effective',
          actions: [{ type: 'dispatchDecision', params: {} }],
        },
        SUBJECT_CHANGED: subjectChanged,
        // The deadline goes on while a decision waits: the reminder, and `overdue` when it passes —
        // but no escalation or timeout, a decision being on its way (after an undo it stays overdue).
        DUE_SOON: dueSoonTransition,
        DUE: { guard: 'isCurrentDue', actions: ['markOverdue', emit('overdue')] },
        CANCEL: { target: 'cancelled', actions: [cancelDecideTimer] },
      },
    },
    effective: {
      on: {
        DECIDE: { target: 'decided' },
        CANCEL: { target: 'cancelled' },
      },
    },
    decided: {
      type: 'final',
      entry: [
        'storeDecision',
        'markClosed',
        'cancelDeadlineTimers',
        {
          type: 'emitReviewEvent',
          params: ({ context }) => ({
            event: context.decision?.action === 'request_changes' ? 'changes_requested' : 'decided',
          }),
        },
      ],
    },
    cancelled: { type: 'final', entry: ['markClosed', 'cancelDeadlineTimers', emit('cancelled')] },
  },
});

/** `deadline` at `stage` (unchanged without a deadline: the guards let no deadline event in then). */
function withStage(deadline: ReviewDeadline | null | undefined, stage: ReviewDeadlineStage) {
  return deadline ? { ...deadline, stage } : null;
}

/** Whether a timer scheduled for `dueAt` is the current one of `deadline`, in one of `stages`. */
function isCurrent(
  deadline: ReviewDeadline | null | undefined,
  dueAt: string,
  stages: readonly ReviewDeadlineStage[],
): boolean {
  return !!deadline && stages.includes(deadline.stage) && isSameInstant(dueAt, deadline.dueAt);
}

/** The review-item machine's type. */
export type ReviewItemMachine = typeof reviewItemMachine;
