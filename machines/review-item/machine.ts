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
 * - revision: what a reviewer saw, as the API names it (the item's id and version). Every
 *   transition changes the version; SUBJECT_CHANGED exists to change it when the subject changes
 *   under an open item (a skill run's draft arrived), leaving the state as it is (the item's
 *   summary follows the subject's).
 * - change request: a DECIDE whose action is `request_changes` closes the item as any decision does
 *   (`decided`, the decision kept), but publishes `changes_requested` instead of `decided`: the
 *   subject goes back to its model, and its next draft opens another item (`rounds` one more).
 */
import { assertEvent, assign, setup } from 'xstate';
import { effectActionsOf, type ReviewEventName, type ScheduleTimerParams } from '../shared/effects.js';
import { isAfter, isSameInstant } from '../shared/time.js';
import type { ReviewItemContext } from './context.js';
import type { ReviewItemEvent, ReviewItemInput } from './events.js';

export type { ReviewItemProjection, ReviewItemStatus } from './project.js';
export { projectReviewItem, REVIEW_ITEM_STATUSES } from './project.js';

/** The id of the item's only timer. */
export const SNOOZE_TIMER_ID = 'snooze';

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

/** The review-item machine (`id` `review-item`, `version` `1`). */
export const reviewItemMachine = setup({
  types: {
    context: {} as ReviewItemContext,
    events: {} as ReviewItemEvent,
    input: {} as ReviewItemInput,
  },
  actions: {
    ...effectActionsOf('cancelTimer', 'emitReviewEvent', 'scheduleTimer'),
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
  },
  guards: {
    hasAssignee: ({ context }) => context.assignedTo !== null,
    isFutureUntil: ({ event }) => event.type === 'SNOOZE' && isAfter(event.until, event.at),
    isCurrentSnooze: ({ context, event }) =>
      event.type === 'WAKE' &&
      context.snoozedUntil !== null &&
      isSameInstant(event.until, context.snoozedUntil),
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
    closedAt: null,
  }),
  entry: emit('opened'),
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
        SUBJECT_CHANGED: subjectChanged,
        CANCEL: { target: 'cancelled' },
      },
    },
    assigned: {
      on: {
        ASSIGN: assignTransition,
        SNOOZE: snoozeTransition,
        DECIDE: { target: 'decided' },
        SUBJECT_CHANGED: subjectChanged,
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
        SUBJECT_CHANGED: subjectChanged,
        CANCEL: { target: 'cancelled', actions: ['clearSnooze', cancelSnoozeTimer] },
      },
    },
    decided: {
      type: 'final',
      entry: [
        'storeDecision',
        'markClosed',
        {
          type: 'emitReviewEvent',
          params: ({ context }) => ({
            event: context.decision?.action === 'request_changes' ? 'changes_requested' : 'decided',
          }),
        },
      ],
    },
    cancelled: { type: 'final', entry: ['markClosed', emit('cancelled')] },
  },
});

/** The review-item machine's type. */
export type ReviewItemMachine = typeof reviewItemMachine;
