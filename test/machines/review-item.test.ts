import { describe, expect, it } from 'vitest';
import {
  type ReviewItemEvent,
  type ReviewItemInput,
  reviewItemEventSchema,
  reviewItemInputSchema,
  reviewSnoozeEventSchema,
} from '../../machines/review-item/events.js';
import { projectReviewItem, reviewItemMachine } from '../../machines/review-item/machine.js';
import {
  type InitialRow,
  type RefusedRow,
  reach,
  roundTrip,
  send,
  specTable,
  type TransitionRow,
} from './helpers.js';

type M = typeof reviewItemMachine;

const T0 = '2025-03-01T10:00:00.000Z';
const T1 = '2025-03-01T10:05:00.000Z';
const T2 = '2025-03-01T10:10:00.000Z';
const U1 = '2025-03-02T09:00:00.000Z';
const U2 = '2025-03-03T09:00:00.000Z';

const triage: ReviewItemInput = { kind: 'skill', runId: 7, title: 'Summarize Q1 notes', at: T0 };
const routed: ReviewItemInput = {
  kind: 'workflow',
  runId: 41,
  title: 'Legal review',
  assignedTo: 'user:lee',
  at: T0,
};

const assignAnn: ReviewItemEvent = {
  type: 'ASSIGN',
  assignedTo: 'user:ann',
  note: 'your area',
  by: 'token:pm',
  at: T1,
};
const unassign: ReviewItemEvent = { type: 'ASSIGN', assignedTo: null, by: 'token:pm', at: T1 };
const snooze1: ReviewItemEvent = { type: 'SNOOZE', until: U1, by: 'token:pm', at: T1 };
const snooze2: ReviewItemEvent = { type: 'SNOOZE', until: U2, by: 'token:pm', at: T2 };
const snoozePast: ReviewItemEvent = { type: 'SNOOZE', until: T0, by: 'token:pm', at: T1 };
const snoozeNow: ReviewItemEvent = { type: 'SNOOZE', until: T1, by: 'token:pm', at: T1 };
const wake1: ReviewItemEvent = { type: 'WAKE', until: U1, at: U1 };
const wake2: ReviewItemEvent = { type: 'WAKE', until: U2, at: U2 };
const approve: ReviewItemEvent = { type: 'DECIDE', action: 'approve', by: 'token:lee', at: T2 };
const reject: ReviewItemEvent = {
  type: 'DECIDE',
  action: 'reject',
  by: 'token:lee',
  reason: 'wrong tone',
  at: T2,
};
const cancel: ReviewItemEvent = { type: 'CANCEL', at: T2 };
const requestChanges: ReviewItemEvent = {
  type: 'DECIDE',
  action: 'request_changes',
  by: 'token:lee',
  reason: 'mention the refund',
  at: T2,
};
const changesRequested = {
  decision: { action: 'request_changes', by: 'token:lee', reason: 'mention the refund', at: T2 },
  closedAt: T2,
};

// Undo (decisions.md §15): a decision with a delay of 8 s at T1, effective at E1.
const E1 = '2025-03-01T10:05:08.000Z';
const E2 = '2025-03-01T10:10:08.000Z';
const deferApprove: ReviewItemEvent = {
  type: 'DEFER',
  action: 'approve',
  by: 'token:lee',
  apiTokenId: 'lee',
  reason: null,
  reviewedBy: null,
  edits: null,
  auditAction: 'review.decide',
  requestId: 'req-1',
  at: T1,
  effectiveAt: E1,
};
const deferReject: ReviewItemEvent = {
  ...deferApprove,
  action: 'reject',
  reason: 'off topic',
  reviewedBy: 'user:kim',
  auditAction: 'run.reject',
};
const deferEdited: ReviewItemEvent = { ...deferApprove, edits: { output: { summary: 'Fixed typo' } } };
const deferAgain: ReviewItemEvent = { ...deferApprove, at: T2, effectiveAt: E2 };
const deferNow: ReviewItemEvent = { ...deferApprove, effectiveAt: T1 };
const undo: ReviewItemEvent = { type: 'UNDO', by: 'token:kim', at: '2025-03-01T10:05:03.000Z' };
const undoAtEffect: ReviewItemEvent = { type: 'UNDO', by: 'token:kim', at: E1 };
const undoLate: ReviewItemEvent = { type: 'UNDO', by: 'token:kim', at: '2025-03-01T10:05:09.000Z' };
const takeEffect: ReviewItemEvent = { type: 'TAKE_EFFECT', effectiveAt: E1, at: E1 };
const takeEffectLate: ReviewItemEvent = {
  type: 'TAKE_EFFECT',
  effectiveAt: E1,
  at: '2025-03-01T10:07:00.000Z',
};
const takeEffect2: ReviewItemEvent = { type: 'TAKE_EFFECT', effectiveAt: E2, at: E2 };
const approveAtEffect: ReviewItemEvent = { type: 'DECIDE', action: 'approve', by: 'token:lee', at: E1 };
const { type: _defer, ...deferredApprove } = deferApprove as Extract<ReviewItemEvent, { type: 'DEFER' }>;
const approvalAnn: ReviewItemEvent = { type: 'APPROVAL', by: 'ann', at: T1 };
const approvalLee: ReviewItemEvent = { type: 'APPROVAL', by: 'lee', at: T2 };
const quorum: ReviewItemInput = { ...triage, required: 3 };
const subjectChanged: ReviewItemEvent = { type: 'SUBJECT_CHANGED', at: T1 };

const wakeTimer = (until: string) => ({
  type: 'scheduleTimer',
  params: { timerId: 'snooze', event: { type: 'WAKE', until }, dueAt: until },
});
const cancelWake = { type: 'cancelTimer', params: { timerId: 'snooze' } };
const decideTimer = (effectiveAt: string) => ({
  type: 'scheduleTimer',
  params: { timerId: 'decide', event: { type: 'TAKE_EFFECT', effectiveAt }, dueAt: effectiveAt },
});
const cancelDecide = { type: 'cancelTimer', params: { timerId: 'decide' } };
const dispatch = { type: 'dispatchDecision', params: {} };
const emitted = (event: string) => ({ type: 'emitReviewEvent', params: { event } });

// Deadlines (decisions §16): due 4 h after T0, reminded 1 h before; an escalation moves it 4 h on.
const HOUR = 3_600_000;
const REMIND = '2025-03-01T13:00:00.000Z';
const DUE = '2025-03-01T14:00:00.000Z';
const DUE2 = '2025-03-01T18:00:00.000Z';
const terms = (onTimeout: 'none' | 'escalate' | 'reject', escalateTo: string | null = null) => ({
  dueInMs: 4 * HOUR,
  remindBeforeMs: HOUR,
  onTimeout,
  escalateTo,
});
const due = (
  onTimeout: 'none' | 'escalate' | 'reject',
  escalateTo: string | null = null,
): ReviewItemInput => ({
  ...triage,
  deadline: terms(onTimeout, escalateTo),
});
const dueNone = due('none');
const dueEscalate = due('escalate', 'ann');
const dueReject = due('reject');
const dueRouted: ReviewItemInput = { ...routed, deadline: terms('escalate', 'ann') };
const dueSoon: ReviewItemEvent = { type: 'DUE_SOON', dueAt: DUE, at: REMIND };
const dueNow: ReviewItemEvent = { type: 'DUE', dueAt: DUE, at: DUE };
const dueAgain: ReviewItemEvent = { type: 'DUE', dueAt: DUE2, at: DUE2 };
const dueSoonStale: ReviewItemEvent = { type: 'DUE_SOON', dueAt: DUE2, at: REMIND };
const snoozeLong: ReviewItemEvent = { type: 'SNOOZE', until: U1, by: 'token:pm', at: T1 };

const timer = (timerId: string, type: string, dueAt: string, firesAt = dueAt) => ({
  type: 'scheduleTimer',
  params: { timerId, event: { type, dueAt }, dueAt: firesAt },
});
const remindTimer = timer('due_soon', 'DUE_SOON', DUE, REMIND);
const dueTimer = timer('due', 'DUE', DUE);
const cancelRemind = { type: 'cancelTimer', params: { timerId: 'due_soon' } };
const cancelDue = { type: 'cancelTimer', params: { timerId: 'due' } };
const deadlineAt = (stage: string, dueAt = DUE) => ({ deadline: expect.objectContaining({ stage, dueAt }) });

const initialRows: InitialRow<M>[] = [
  {
    name: 'a run asks for review without an assignee: the item lands in the triage lane',
    input: triage,
    to: 'unassigned',
    actions: [emitted('opened')],
    context: {
      assignedTo: null,
      note: null,
      summary: null,
      snoozedUntil: null,
      decision: null,
      deciding: null,
      undone: null,
      closedAt: null,
      createdAt: T0,
    },
  },
  {
    name: 'a subject that has something to show opens its item with that summary',
    input: { ...triage, summary: 'Update deal 42: amount → 5000' },
    to: 'unassigned',
    actions: [emitted('opened')],
    context: { summary: 'Update deal 42: amount → 5000' },
  },
  {
    name: 'a gate names an assignee: the item is assigned at once',
    input: routed,
    to: 'assigned',
    actions: [emitted('opened')],
    context: { assignedTo: 'user:lee' },
  },
  {
    name: 'the new draft of a run sent back twice opens an item of round 3 (rounds: 2)',
    input: { ...triage, rounds: 2 },
    to: 'unassigned',
    actions: [emitted('opened')],
    context: { rounds: 2 },
  },
  {
    name: 'a policy with dueIn and remindBefore: due dueIn later, both timers scheduled',
    input: dueNone,
    to: 'unassigned',
    actions: [emitted('opened'), remindTimer, dueTimer],
    context: { deadline: { ...terms('none'), dueAt: DUE, stage: 'pending' } },
  },
  {
    name: 'a policy with dueIn and no remindBefore: only the deadline timer',
    input: { ...triage, deadline: { ...terms('none'), remindBeforeMs: null } },
    to: 'unassigned',
    actions: [emitted('opened'), dueTimer],
    context: deadlineAt('pending'),
  },
  {
    name: 'a reminder that would fall at or before the opening is not scheduled',
    input: { ...triage, deadline: { ...terms('none'), remindBeforeMs: 4 * HOUR } },
    to: 'unassigned',
    actions: [emitted('opened'), dueTimer],
    context: deadlineAt('pending'),
  },
  {
    name: 'no dueIn: no deadline and no timer',
    input: { ...routed, deadline: null },
    to: 'assigned',
    actions: [emitted('opened')],
    context: { deadline: null },
  },
  {
    name: 'a policy requires several approvals: the item says how many, none so far',
    input: quorum,
    to: 'unassigned',
    actions: [emitted('opened')],
    context: { required: 3 },
  },
];

const transitionRows: TransitionRow<M>[] = [
  {
    name: 'unassigned: assigning routes it to the user with the note',
    input: triage,
    from: [],
    event: assignAnn,
    to: 'assigned',
    actions: [emitted('assigned')],
    context: { assignedTo: 'user:ann', note: 'your area' },
  },
  {
    name: 'unassigned: assigning nobody keeps it in triage',
    input: triage,
    from: [],
    event: { ...unassign, note: 'needs an owner' },
    to: 'unassigned',
    actions: [emitted('assigned')],
    context: { assignedTo: null, note: 'needs an owner' },
  },
  {
    name: 'assigned: reassigning changes the assignee and replaces the note',
    input: routed,
    from: [],
    event: assignAnn,
    to: 'assigned',
    actions: [emitted('assigned')],
    context: { assignedTo: 'user:ann', note: 'your area' },
  },
  {
    name: 'assigned: unassigning sends it back to triage and clears the note',
    input: triage,
    from: [assignAnn],
    event: unassign,
    to: 'unassigned',
    actions: [emitted('assigned')],
    context: { assignedTo: null, note: null },
  },
  {
    name: 'snoozed: assigning keeps it snoozed with the new assignee',
    input: triage,
    from: [snooze1],
    event: assignAnn,
    to: 'snoozed',
    actions: [emitted('assigned')],
    context: { assignedTo: 'user:ann', snoozedUntil: U1 },
  },
  {
    name: 'unassigned: snoozing hides it and schedules the wake-up',
    input: triage,
    from: [],
    event: snooze1,
    to: 'snoozed',
    actions: [wakeTimer(U1), emitted('snoozed')],
    context: { snoozedUntil: U1, assignedTo: null },
  },
  {
    name: 'assigned: snoozing hides it and schedules the wake-up',
    input: routed,
    from: [],
    event: snooze1,
    to: 'snoozed',
    actions: [wakeTimer(U1), emitted('snoozed')],
    context: { snoozedUntil: U1, assignedTo: 'user:lee' },
  },
  {
    name: 'snoozed: snoozing again replaces the timer (same timer id)',
    input: triage,
    from: [snooze1],
    event: snooze2,
    to: 'snoozed',
    actions: [wakeTimer(U2), emitted('snoozed')],
    context: { snoozedUntil: U2 },
  },
  {
    name: 'snoozed: the due wake-up returns an assigned item to its assignee',
    input: routed,
    from: [snooze1],
    event: wake1,
    to: 'assigned',
    actions: [emitted('woken')],
    context: { snoozedUntil: null, assignedTo: 'user:lee' },
  },
  {
    name: 'snoozed: the due wake-up returns an unassigned item to triage',
    input: triage,
    from: [snooze1],
    event: wake1,
    to: 'unassigned',
    actions: [emitted('woken')],
    context: { snoozedUntil: null },
  },
  {
    name: 'snoozed: the wake-up matches the same instant written differently',
    input: triage,
    from: [snooze1],
    event: { type: 'WAKE', until: '2025-03-02T09:00:00Z', at: U1 },
    to: 'unassigned',
    actions: [emitted('woken')],
  },
  {
    name: 'snoozed: the wake-up of the replacing snooze is honoured',
    input: routed,
    from: [snooze1, snooze2],
    event: wake2,
    to: 'assigned',
    actions: [emitted('woken')],
  },
  {
    name: 'unassigned: the subject changed (a draft arrived): same state, a new version',
    input: triage,
    from: [],
    event: subjectChanged,
    to: 'unassigned',
    actions: [emitted('updated')],
    context: { assignedTo: null, decision: null, closedAt: null },
  },
  {
    name: 'unassigned: the draft arrived with its summary: the item shows it',
    input: triage,
    from: [],
    event: { ...subjectChanged, summary: 'Dear Ann' },
    to: 'unassigned',
    actions: [emitted('updated')],
    context: { summary: 'Dear Ann' },
  },
  {
    name: 'unassigned: a change without a summary keeps the one the item has',
    input: { ...triage, summary: 'Update deal 42' },
    from: [],
    event: subjectChanged,
    to: 'unassigned',
    actions: [emitted('updated')],
    context: { summary: 'Update deal 42' },
  },
  {
    name: 'assigned: the subject changed: same state and assignee',
    input: routed,
    from: [],
    event: subjectChanged,
    to: 'assigned',
    actions: [emitted('updated')],
    context: { assignedTo: 'user:lee' },
  },
  {
    name: 'snoozed: the subject changed: still snoozed, the wake-up kept',
    input: triage,
    from: [snooze1],
    event: subjectChanged,
    to: 'snoozed',
    actions: [emitted('updated')],
    context: { snoozedUntil: U1 },
  },
  {
    name: 'unassigned: deciding closes the item with the decision',
    input: triage,
    from: [],
    event: reject,
    to: 'decided',
    actions: [emitted('decided')],
    context: { decision: { action: 'reject', by: 'token:lee', reason: 'wrong tone', at: T2 }, closedAt: T2 },
  },
  {
    name: 'assigned: deciding closes the item with the decision',
    input: routed,
    from: [],
    event: approve,
    to: 'decided',
    actions: [emitted('decided')],
    context: { decision: { action: 'approve', by: 'token:lee', reason: null, at: T2 }, closedAt: T2 },
  },
  {
    name: 'assigned: a decision that applied edits says so in the item',
    input: routed,
    from: [],
    event: { ...approve, edited: true },
    to: 'decided',
    actions: [emitted('decided')],
    context: { decision: { action: 'approve', by: 'token:lee', reason: null, edited: true, at: T2 } },
  },
  {
    name: 'snoozed: deciding closes the item and cancels the wake-up',
    input: routed,
    from: [snooze1],
    event: approve,
    to: 'decided',
    actions: [cancelWake, emitted('decided')],
    context: { snoozedUntil: null, decision: { action: 'approve', by: 'token:lee', reason: null, at: T2 } },
  },
  {
    name: 'unassigned: changes requested closes the item with the reason, as changes_requested',
    input: triage,
    from: [],
    event: requestChanges,
    to: 'decided',
    actions: [emitted('changes_requested')],
    context: changesRequested,
  },
  {
    name: 'assigned: changes requested closes the item, as changes_requested',
    input: routed,
    from: [],
    event: requestChanges,
    to: 'decided',
    actions: [emitted('changes_requested')],
    context: changesRequested,
  },
  {
    name: 'snoozed: changes requested closes the item and cancels the wake-up',
    input: routed,
    from: [snooze1],
    event: requestChanges,
    to: 'decided',
    actions: [cancelWake, emitted('changes_requested')],
    context: { ...changesRequested, snoozedUntil: null },
  },
  {
    name: 'unassigned: one approval of several is recorded, the item stays open (a new version)',
    input: quorum,
    from: [],
    event: approvalAnn,
    to: 'unassigned',
    actions: [emitted('approval')],
    context: { approvals: [{ by: 'ann', at: T1 }], decision: null, closedAt: null },
  },
  {
    name: 'unassigned: another user’s approval is added after the first',
    input: quorum,
    from: [approvalAnn],
    event: approvalLee,
    to: 'unassigned',
    actions: [emitted('approval')],
    context: {
      approvals: [
        { by: 'ann', at: T1 },
        { by: 'lee', at: T2 },
      ],
    },
  },
  {
    name: 'assigned: an approval keeps it assigned',
    input: { ...routed, required: 2 },
    from: [],
    event: approvalAnn,
    to: 'assigned',
    actions: [emitted('approval')],
    context: { assignedTo: 'user:lee', approvals: [{ by: 'ann', at: T1 }] },
  },
  {
    name: 'snoozed: an approval keeps it snoozed, the wake-up kept',
    input: quorum,
    from: [snooze1],
    event: approvalAnn,
    to: 'snoozed',
    actions: [emitted('approval')],
    context: { snoozedUntil: U1, approvals: [{ by: 'ann', at: T1 }] },
  },
  {
    name: 'unassigned: after approvals, the deciding approval closes it and keeps them',
    input: quorum,
    from: [approvalAnn, approvalLee],
    event: approve,
    to: 'decided',
    actions: [emitted('decided')],
    context: {
      approvals: [
        { by: 'ann', at: T1 },
        { by: 'lee', at: T2 },
      ],
      closedAt: T2,
    },
  },
  {
    name: 'unassigned: a reject after an approval rejects',
    input: quorum,
    from: [approvalAnn],
    event: reject,
    to: 'decided',
    actions: [emitted('decided')],
    context: { decision: { action: 'reject', by: 'token:lee', reason: 'wrong tone', at: T2 } },
  },
  {
    name: 'unassigned: the run went away, so the item is cancelled',
    input: triage,
    from: [],
    event: cancel,
    to: 'cancelled',
    actions: [emitted('cancelled')],
    context: { closedAt: T2, decision: null },
  },
  {
    name: 'assigned: the run went away, so the item is cancelled',
    input: routed,
    from: [],
    event: cancel,
    to: 'cancelled',
    actions: [emitted('cancelled')],
  },
  {
    name: 'snoozed: the run went away, so the item is cancelled and the wake-up too',
    input: triage,
    from: [snooze1],
    event: cancel,
    to: 'cancelled',
    actions: [cancelWake, emitted('cancelled')],
    context: { snoozedUntil: null, closedAt: T2 },
  },
  {
    name: 'unassigned: the reminder goes out (review.due_soon), the item stays where it is',
    input: dueNone,
    from: [],
    event: dueSoon,
    to: 'unassigned',
    actions: [emitted('due_soon')],
    context: deadlineAt('reminded'),
  },
  {
    name: 'assigned: the reminder goes out to the assignee',
    input: dueRouted,
    from: [],
    event: dueSoon,
    to: 'assigned',
    actions: [emitted('due_soon')],
    context: { assignedTo: 'user:lee', ...deadlineAt('reminded') },
  },
  {
    name: 'snoozed: the reminder goes out and the snooze stays',
    input: dueNone,
    from: [snoozeLong],
    event: dueSoon,
    to: 'snoozed',
    actions: [emitted('due_soon')],
    context: { snoozedUntil: U1, ...deadlineAt('reminded') },
  },
  {
    name: 'unassigned: due with onTimeout none: overdue, nothing more',
    input: dueNone,
    from: [dueSoon],
    event: dueNow,
    to: 'unassigned',
    actions: [emitted('overdue')],
    context: { assignedTo: null, ...deadlineAt('overdue') },
  },
  {
    name: 'unassigned: due without a reminder first: overdue all the same',
    input: dueNone,
    from: [],
    event: dueNow,
    to: 'unassigned',
    actions: [emitted('overdue')],
    context: deadlineAt('overdue'),
  },
  {
    name: 'unassigned: due with escalate: assigned to escalateTo, note escalated, due again one dueIn later',
    input: dueEscalate,
    from: [dueSoon],
    event: dueNow,
    to: 'assigned',
    actions: [emitted('overdue'), timer('due', 'DUE', DUE2), emitted('escalated')],
    context: { assignedTo: 'ann', note: 'escalated', ...deadlineAt('escalated', DUE2) },
  },
  {
    name: 'assigned: due with escalate: reassigned from the assignee to escalateTo',
    input: dueRouted,
    from: [],
    event: dueNow,
    to: 'assigned',
    actions: [emitted('overdue'), timer('due', 'DUE', DUE2), emitted('escalated')],
    context: { assignedTo: 'ann', note: 'escalated', ...deadlineAt('escalated', DUE2) },
  },
  {
    name: 'snoozed: due with escalate: the escalation ends the snooze (and its wake-up)',
    input: dueEscalate,
    from: [snoozeLong],
    event: dueNow,
    to: 'assigned',
    actions: [emitted('overdue'), cancelWake, timer('due', 'DUE', DUE2), emitted('escalated')],
    context: { assignedTo: 'ann', snoozedUntil: null, ...deadlineAt('escalated', DUE2) },
  },
  {
    name: 'assigned: due again after the escalation: overdue, no second escalation',
    input: dueEscalate,
    from: [dueNow],
    event: dueAgain,
    to: 'assigned',
    actions: [emitted('overdue')],
    context: { assignedTo: 'ann', ...deadlineAt('overdue', DUE2) },
  },
  {
    name: 'unassigned: due with escalate but no one to escalate to: overdue only',
    input: due('escalate', null),
    from: [],
    event: dueNow,
    to: 'unassigned',
    actions: [emitted('overdue')],
    context: { assignedTo: null, ...deadlineAt('overdue') },
  },
  {
    name: 'unassigned: due with reject: overdue, timeout, and the host rejects the subject',
    input: dueReject,
    from: [dueSoon],
    event: dueNow,
    to: 'unassigned',
    actions: [emitted('overdue'), emitted('timeout'), { type: 'rejectOnTimeout', params: {} }],
    context: deadlineAt('timed_out'),
  },
  {
    name: 'snoozed: due with reject: rejected while snoozed too',
    input: dueReject,
    from: [snoozeLong],
    event: dueNow,
    to: 'snoozed',
    actions: [emitted('overdue'), emitted('timeout'), { type: 'rejectOnTimeout', params: {} }],
    context: deadlineAt('timed_out'),
  },
  {
    name: 'timed out: the subject’s rejection as system:timeout closes the item, no timer left',
    input: dueReject,
    from: [dueNow],
    event: { type: 'DECIDE', action: 'reject', by: 'system:timeout', reason: 'timeout', at: DUE },
    to: 'decided',
    actions: [emitted('decided')],
    context: { decision: { action: 'reject', by: 'system:timeout', reason: 'timeout', at: DUE } },
  },
  {
    name: 'unassigned: deciding before the reminder cancels both deadline timers',
    input: dueNone,
    from: [],
    event: approve,
    to: 'decided',
    actions: [cancelRemind, cancelDue, emitted('decided')],
    context: deadlineAt('pending'),
  },
  {
    name: 'assigned: deciding after the reminder cancels the deadline timer only',
    input: dueRouted,
    from: [dueSoon],
    event: approve,
    to: 'decided',
    actions: [cancelDue, emitted('decided')],
  },
  {
    name: 'snoozed: deciding cancels the wake-up and the deadline timers',
    input: dueNone,
    from: [snoozeLong],
    event: approve,
    to: 'decided',
    actions: [cancelWake, cancelRemind, cancelDue, emitted('decided')],
  },
  {
    name: 'unassigned: deciding an overdue item: no timer is left to cancel',
    input: dueNone,
    from: [dueNow],
    event: reject,
    to: 'decided',
    actions: [emitted('decided')],
  },
  {
    name: 'assigned: the run went away after an escalation: the second deadline timer goes',
    input: dueEscalate,
    from: [dueNow],
    event: cancel,
    to: 'cancelled',
    actions: [cancelDue, emitted('cancelled')],
  },
  {
    name: 'unassigned: a decision with a delay waits deciding, its decide timer due at effectiveAt',
    input: triage,
    from: [],
    event: deferApprove,
    to: 'deciding',
    actions: [decideTimer(E1), emitted('deciding')],
    context: { deciding: deferredApprove, decision: null, closedAt: null, assignedTo: null },
  },
  {
    name: 'assigned: a rejection with a delay keeps its reason and who it is for',
    input: routed,
    from: [],
    event: deferReject,
    to: 'deciding',
    actions: [decideTimer(E1), emitted('deciding')],
    context: {
      deciding: {
        ...deferredApprove,
        action: 'reject',
        reason: 'off topic',
        reviewedBy: 'user:kim',
        auditAction: 'run.reject',
      },
      assignedTo: 'user:lee',
    },
  },
  {
    name: 'assigned: an approval with edits and a delay keeps the edits',
    input: routed,
    from: [],
    event: deferEdited,
    to: 'deciding',
    actions: [decideTimer(E1), emitted('deciding')],
    context: { deciding: { ...deferredApprove, edits: { output: { summary: 'Fixed typo' } } } },
  },
  {
    name: 'snoozed: a decision with a delay ends the snooze (timer cancelled) and waits deciding',
    input: triage,
    from: [snooze1],
    event: deferApprove,
    to: 'deciding',
    actions: [cancelWake, decideTimer(E1), emitted('deciding')],
    context: { snoozedUntil: null, deciding: deferredApprove },
  },
  {
    name: 'deciding: undo before effectiveAt cancels the timer and returns the item to triage',
    input: triage,
    from: [deferApprove],
    event: undo,
    to: 'unassigned',
    actions: [cancelDecide, emitted('undone')],
    context: { deciding: null, undone: deferredApprove, decision: null, closedAt: null },
  },
  {
    name: 'deciding: undo returns an assigned item to its assignee',
    input: routed,
    from: [deferReject],
    event: undo,
    to: 'assigned',
    actions: [cancelDecide, emitted('undone')],
    context: { assignedTo: 'user:lee', deciding: null },
  },
  {
    name: 'deciding: undo one millisecond before effectiveAt is still in time',
    input: triage,
    from: [deferApprove],
    event: { ...undo, at: '2025-03-01T10:05:07.999Z' },
    to: 'unassigned',
    actions: [cancelDecide, emitted('undone')],
  },
  {
    name: 'deciding: the due timer hands the decision to the owner (the item waits for its DECIDE)',
    input: triage,
    from: [deferApprove],
    event: takeEffect,
    to: 'effective',
    actions: [dispatch],
    context: { deciding: deferredApprove, decision: null, closedAt: null },
  },
  {
    name: 'deciding: a timer that fires late (after a restart) still takes effect once',
    input: triage,
    from: [deferApprove],
    event: takeEffectLate,
    to: 'effective',
    actions: [dispatch],
  },
  {
    name: 'deciding: the subject changed: still deciding, a new version',
    input: triage,
    from: [deferApprove],
    event: subjectChanged,
    to: 'deciding',
    actions: [emitted('updated')],
    context: { deciding: deferredApprove },
  },
  {
    name: 'deciding: the run went away: cancelled, the decide timer too, nothing dispatched',
    input: triage,
    from: [deferApprove],
    event: cancel,
    to: 'cancelled',
    actions: [cancelDecide, emitted('cancelled')],
    context: { closedAt: T2, decision: null },
  },
  {
    name: 'effective: the owner’s transition closes the item with the decision (kept: when it was asked)',
    input: triage,
    from: [deferApprove, takeEffect],
    event: approveAtEffect,
    to: 'decided',
    actions: [emitted('decided')],
    context: {
      decision: { action: 'approve', by: 'token:lee', reason: null, at: E1 },
      deciding: deferredApprove,
      closedAt: E1,
    },
  },
  {
    name: 'effective: the owner cancelled instead: the item is cancelled',
    input: triage,
    from: [deferApprove, takeEffect],
    event: cancel,
    to: 'cancelled',
    actions: [emitted('cancelled')],
  },
  {
    name: 'deciding: the deadline’s reminder goes out, the decision still waits',
    input: dueReject,
    from: [deferApprove],
    event: dueSoon,
    to: 'deciding',
    actions: [emitted('due_soon')],
    context: { deciding: deferredApprove, ...deadlineAt('reminded') },
  },
  {
    name: 'deciding: the deadline passes: overdue, but no timeout rejection (a decision is on its way)',
    input: dueReject,
    from: [deferApprove],
    event: dueNow,
    to: 'deciding',
    actions: [emitted('overdue')],
    context: { deciding: deferredApprove, ...deadlineAt('overdue') },
  },
  {
    name: 'deciding: cancelled with a deadline: the decide and deadline timers go',
    input: dueNone,
    from: [deferApprove],
    event: cancel,
    to: 'cancelled',
    actions: [cancelDecide, cancelRemind, cancelDue, emitted('cancelled')],
  },
  {
    name: 'effective (with a deadline): the owner’s closing cancels the deadline timers',
    input: dueNone,
    from: [deferApprove, takeEffect],
    event: approveAtEffect,
    to: 'decided',
    actions: [cancelRemind, cancelDue, emitted('decided')],
  },
  {
    name: 'unassigned (after an undo): deciding again waits for the new effectiveAt',
    input: triage,
    from: [deferApprove, undo],
    event: deferAgain,
    to: 'deciding',
    actions: [decideTimer(E2), emitted('deciding')],
    context: { deciding: { ...deferredApprove, at: T2, effectiveAt: E2 }, undone: deferredApprove },
  },
  {
    name: 'unassigned (after an undo): deciding at once closes the item',
    input: triage,
    from: [deferApprove, undo],
    event: reject,
    to: 'decided',
    actions: [emitted('decided')],
    context: {
      deciding: null,
      decision: { action: 'reject', by: 'token:lee', reason: 'wrong tone', at: T2 },
    },
  },
];

const paths = {
  unassigned: { input: triage, from: [] },
  assigned: { input: routed, from: [] },
  snoozed: { input: triage, from: [snooze1] },
  'assigned (after a wake-up)': { input: routed, from: [snooze1, wake1] },
  'snoozed (re-snoozed)': { input: triage, from: [snooze1, snooze2] },
  'decided (approved)': { input: triage, from: [approve] },
  'decided (after a snooze)': { input: triage, from: [snooze1, reject] },
  'decided (changes requested)': { input: triage, from: [requestChanges] },
  cancelled: { input: routed, from: [cancel] },
  'cancelled (after a snooze)': { input: routed, from: [snooze1, cancel] },
  'unassigned (reminded)': { input: dueNone, from: [dueSoon] },
  'unassigned (overdue)': { input: dueNone, from: [dueNow] },
  'assigned (escalated)': { input: dueEscalate, from: [dueNow] },
  'assigned (overdue after an escalation)': { input: dueEscalate, from: [dueNow, dueAgain] },
  'unassigned (timed out)': { input: dueReject, from: [dueNow] },
  'decided (with a deadline)': { input: dueEscalate, from: [approve] },
  'cancelled (with a deadline)': { input: dueNone, from: [cancel] },
  deciding: { input: triage, from: [deferApprove] },
  'deciding (overdue)': { input: dueReject, from: [deferApprove, dueNow] },
  'deciding (after a snooze)': { input: triage, from: [snooze1, deferApprove] },
  effective: { input: triage, from: [deferApprove, takeEffect] },
  'unassigned (after an undo)': { input: triage, from: [deferApprove, undo] },
  'decided (after a delay)': { input: triage, from: [deferApprove, takeEffect, approveAtEffect] },
  'cancelled (while deciding)': { input: triage, from: [deferApprove, cancel] },
  'approved by ann': { input: quorum, from: [approvalAnn] },
  'snoozed, approved by ann': { input: quorum, from: [snooze1, approvalAnn] },
} satisfies Record<string, { input: ReviewItemInput; from: ReviewItemEvent[] }>;

function refused(state: keyof typeof paths, events: ReviewItemEvent[], why: string): RefusedRow<M>[] {
  return events.map((event) => ({ name: `${event.type} in ${state}: ${why}`, ...paths[state], event }));
}

const everything = [
  assignAnn,
  unassign,
  snooze1,
  wake1,
  approve,
  reject,
  requestChanges,
  subjectChanged,
  cancel,
  dueSoon,
  dueNow,
  deferApprove,
  undo,
  takeEffect,
  approvalLee,
];

const refusedRows: RefusedRow<M>[] = [
  ...refused('decided (approved)', everything, 'the item is closed'),
  ...refused('decided (after a snooze)', everything, 'the item is closed'),
  ...refused('decided (changes requested)', everything, 'the item is closed: the next draft is another item'),
  ...refused('cancelled', everything, 'the item is closed'),
  ...refused('cancelled (after a snooze)', everything, 'the item is closed'),
  ...refused('unassigned', [wake1], 'not snoozed'),
  ...refused('assigned', [wake1], 'not snoozed'),
  ...refused('assigned (after a wake-up)', [wake1], 'the timer already fired'),
  ...refused('snoozed (re-snoozed)', [wake1], 'a stale timer of the replaced snooze'),
  ...refused('snoozed', [wake2], 'a wake-up for another snooze'),
  ...refused('unassigned', [snoozePast, snoozeNow], 'until must be after at'),
  ...refused('assigned', [snoozePast], 'until must be after at'),
  ...refused('snoozed', [snoozePast], 'until must be after at'),
  ...refused('decided (with a deadline)', [dueSoon, dueNow], 'the item is closed'),
  ...refused('cancelled (with a deadline)', [dueSoon, dueNow], 'the item is closed'),
  ...refused('unassigned', [dueSoon, dueNow], 'the item has no deadline'),
  ...refused('assigned', [dueSoon, dueNow], 'the item has no deadline'),
  ...refused('snoozed', [dueSoon, dueNow], 'the item has no deadline'),
  ...refused('unassigned (reminded)', [dueSoon], 'the reminder goes out once'),
  ...refused('unassigned (reminded)', [dueSoonStale, dueAgain], 'a timer of another deadline'),
  ...refused('unassigned (overdue)', [dueSoon, dueNow], 'the deadline already passed'),
  ...refused('assigned (escalated)', [dueSoon], 'no reminder after an escalation'),
  ...refused('assigned (escalated)', [dueNow], 'a stale timer of the moved deadline'),
  ...refused('assigned (overdue after an escalation)', [dueNow, dueAgain], 'the deadline already passed'),
  ...refused('unassigned (timed out)', [dueSoon, dueNow], 'the deadline already passed'),
  ...refused('decided (after a delay)', everything, 'the item is closed'),
  ...refused('cancelled (while deciding)', everything, 'the item is closed'),
  ...refused('unassigned', [undo, takeEffect], 'no decision is waiting'),
  ...refused('assigned', [undo, takeEffect], 'no decision is waiting'),
  ...refused('snoozed', [undo, takeEffect], 'no decision is waiting'),
  ...refused('unassigned', [deferNow], 'effectiveAt must be after at'),
  ...refused(
    'deciding',
    [assignAnn, unassign, snooze1, wake1, approve, reject, deferApprove, deferAgain],
    'a decision is waiting: another decision, a routing or a snooze is not open to it',
  ),
  ...refused('deciding (after a snooze)', [wake1, snooze2], 'the snooze ended with the decision'),
  ...refused('deciding', [undoAtEffect, undoLate], 'effectiveAt has come: too late to undo'),
  ...refused('deciding', [takeEffect2], 'a timer of another decision'),
  ...refused('deciding (overdue)', [dueNow, dueSoon], 'the deadline already passed'),
  ...refused(
    'effective',
    [assignAnn, snooze1, wake1, subjectChanged, deferApprove, undo, takeEffect],
    'only the owner’s closing is open while the decision is dispatched',
  ),
  ...refused('unassigned (after an undo)', [takeEffect, undo], 'the undone decision’s timer is stale'),
  ...refused('approved by ann', [{ ...approvalAnn, at: T2 }], 'the same user cannot approve twice'),
  ...refused('snoozed, approved by ann', [approvalAnn], 'the same user cannot approve twice'),
];

describe('review-item machine', () => {
  specTable(reviewItemMachine, 'review-item', {
    initial: initialRows,
    transitions: transitionRows,
    refused: refusedRows,
  });

  it('continues identically after a persistence round trip', () => {
    const snoozed = reach(reviewItemMachine, routed, [snooze1]);
    const restored = roundTrip(reviewItemMachine, snoozed);
    expect(restored.value).toBe('snoozed');
    expect(restored.can(wake2)).toBe(false);

    const [direct, directActions] = send(reviewItemMachine, snoozed, wake1);
    const [resumed, resumedActions] = send(reviewItemMachine, restored, wake1);
    expect(resumed.value).toBe('assigned');
    expect(resumed.context).toEqual(direct.context);
    expect(resumedActions).toEqual(directActions);
  });

  it('projects the row columns, status being the state name', () => {
    expect(projectReviewItem(reach(reviewItemMachine, triage, [assignAnn, snooze1]))).toEqual({
      status: 'snoozed',
      open: true,
      assignedTo: 'user:ann',
      note: 'your area',
      summary: null,
      snoozedUntil: U1,
      decision: null,
      deciding: null,
      closedAt: null,
      dueAt: null,
      required: 1,
      approvals: [],
    });
    expect(projectReviewItem(reach(reviewItemMachine, dueEscalate, [dueNow]))).toMatchObject({
      status: 'assigned',
      assignedTo: 'ann',
      dueAt: DUE2,
    });
    expect(projectReviewItem(reach(reviewItemMachine, triage, [deferApprove]))).toMatchObject({
      status: 'deciding',
      open: true,
      deciding: deferredApprove,
    });
    // Once decided the projection shows no waiting decision (the context keeps when it was asked).
    expect(
      projectReviewItem(reach(reviewItemMachine, triage, [deferApprove, takeEffect, approveAtEffect])),
    ).toMatchObject({ status: 'decided', open: false, deciding: null });
    expect(projectReviewItem(reach(reviewItemMachine, quorum, [approvalAnn]))).toMatchObject({
      required: 3,
      approvals: [{ by: 'ann', at: T1 }],
    });
    expect(projectReviewItem(reach(reviewItemMachine, triage, [cancel]))).toMatchObject({
      status: 'cancelled',
      open: false,
      closedAt: T2,
    });
  });
});

describe('review-item schemas', () => {
  it('accept the inputs and every event used above', () => {
    expect(reviewItemInputSchema.parse(triage)).toEqual(triage);
    expect(reviewItemInputSchema.parse(routed)).toEqual(routed);
    expect(reviewItemInputSchema.parse(dueEscalate)).toEqual(dueEscalate);
    expect(reviewItemInputSchema.parse(quorum)).toEqual(quorum);
    for (const event of [
      assignAnn,
      unassign,
      snooze1,
      wake1,
      approve,
      reject,
      requestChanges,
      subjectChanged,
      cancel,
      dueSoon,
      dueNow,
      ...[deferApprove, deferReject, deferEdited, undo, takeEffect],
      approvalAnn,
      approvalLee,
    ]) {
      expect(reviewItemEventSchema.parse(event)).toEqual(event);
    }
  });

  it('reject a snooze whose until is not after at, naming the field', () => {
    const result = reviewSnoozeEventSchema.safeParse(snoozePast);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['until']);
    expect(reviewItemEventSchema.safeParse(snoozeNow).success).toBe(false);
  });

  it.each([
    ['an unknown kind', { ...triage, kind: 'proposal' }],
    ['an empty title', { ...triage, title: '' }],
    ['a string runId', { ...triage, runId: '7' }],
    [
      'a deadline with an unknown onTimeout',
      { ...triage, deadline: { ...terms('none'), onTimeout: 'later' } },
    ],
    ['a deadline of zero', { ...triage, deadline: { ...terms('none'), dueInMs: 0 } }],
  ])('reject an input with %s', (_why, input) => {
    expect(reviewItemInputSchema.safeParse(input).success).toBe(false);
  });

  it.each([
    ['an assign without assignedTo', { type: 'ASSIGN', by: 'token:pm', at: T1 }],
    ['a decide with an unknown action', { ...approve, action: 'defer' }],
    ['a wake without until', { type: 'WAKE', at: U1 }],
    ['a snooze until a non-date', { ...snooze1, until: 'tomorrow' }],
    ['a due timer without dueAt', { type: 'DUE', at: DUE }],
    ['a reminder with a non-date dueAt', { ...dueSoon, dueAt: 'soon' }],
    ['a defer whose effectiveAt is not after at', deferNow],
    ['a defer without effectiveAt', { ...deferApprove, effectiveAt: undefined }],
    ['a defer of request_changes', { ...deferApprove, action: 'request_changes' }],
    ['an undo without by', { type: 'UNDO', at: T1 }],
    ['a take-effect without effectiveAt', { type: 'TAKE_EFFECT', at: E1 }],
  ])('reject an event with %s', (_why, event) => {
    expect(reviewItemEventSchema.safeParse(event).success).toBe(false);
  });
});
