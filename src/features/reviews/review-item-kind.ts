/**
 * The `review-item` actor kind: rows of `review_items`, created and closed by run transitions (the
 * runs' openReview/closeReview effects) and routed by the review queue. Its snooze is a durable timer
 * (the host's scheduleTimer/cancelTimer); every transition puts one review event in the outbox
 * (`emitReviewEvent`), in the transition's own statement, and records the ledger's events in the
 * org's decision ledger (ledger.ts) in the same transaction. Its deadline's timers are durable timers
 * too; a deadline whose policy says `onTimeout: reject` asks the choke point to reject the subject as
 * `system:timeout` (`rejectOnTimeout`), in the timer's transaction.
 * A delayed decision (delay.ts) is handed to its subject's owner by `dispatchDecision` when its
 * timer fires.
 */
import { randomUUID } from 'node:crypto';
import {
  type DeferredDecision as Deferred,
  type DispatchDecisionParams,
  type EmitReviewEventParams,
  projectReviewItem,
  type RejectOnTimeoutParams,
  reviewItemContextSchema,
  reviewItemEventSchema,
  reviewItemMachine,
} from '../../../machines/index.js';
import type { ActorKindDef, ColumnMap, EffectHandler } from '../../platform/actors/kind.js';
import { reviewEventSubject } from '../../platform/bus/subjects.js';
import type { ReviewDecisions } from './decisions.js';
import { isLedgerEvent, type ReviewLedger } from './ledger.js';
import { type ReviewEventPayload, reviewEventData } from './review-events.js';
import { revisionOf } from './revision.js';

/**
 * What the ledger keeps of a delayed decision (decisions.md §16; docs/api.md "Decision ledger"): on
 * `decided`, when it was asked for and when it took effect; on `undone`, the decision withdrawn.
 */
function delayDetails(deferred: Deferred): Record<string, unknown> {
  return {
    action: deferred.action,
    by: deferred.by,
    decidedAt: deferred.at,
    effectiveAt: deferred.effectiveAt,
    edited: deferred.edits !== null,
    reason: deferred.reason,
  };
}

/** The actor kind name of review items. */
export const REVIEW_ITEM_KIND = 'review-item';

/** The `emitReviewEvent` effect, recording the ledger's events in `ledger`. */
const emitReviewEvent =
  (ledger: ReviewLedger): EffectHandler<EmitReviewEventParams, typeof reviewItemMachine> =>
  ({ event }, ctx) => {
    const { context } = ctx.after;
    // A decision not taken yet: the one waiting (`deciding`), or the one withdrawn (`undone`).
    const held = event === 'undone' ? context.undone : event === 'deciding' ? context.deciding : null;
    const payload: ReviewEventPayload = {
      eventId: randomUUID(),
      orgId: ctx.row.orgId,
      reviewItemId: ctx.row.id,
      kind: context.kind,
      runId: context.runId,
      event,
      title: context.title,
      summary: context.summary ?? null,
      status: ctx.projection.status as string,
      // The transition's write moves the version on by one (a creation writes the first, 1).
      revision: ctx.projection.open ? revisionOf(ctx.row.id, ctx.row.version + 1) : null,
      assignedTo: context.assignedTo,
      snoozedUntil: context.snoozedUntil,
      note: context.note,
      dueAt: context.deadline?.dueAt ?? null,
      decision: context.decision?.action ?? held?.action ?? null,
      edited: context.decision?.edited === true || held?.edits != null,
      reason: context.decision?.reason ?? held?.reason ?? null,
      by: ctx.actingAs.actor,
      at: ctx.at,
    };
    ctx.writes.outbox.push({
      subject: reviewEventSubject(String(ctx.row.orgId), ctx.row.id, event),
      event_id: payload.eventId,
      payload,
    });
    if (isLedgerEvent(event)) {
      const { kind, id, by, ...data } = reviewEventData(payload);
      const details: Record<string, unknown> = {
        ...data,
        snoozedUntil: payload.snoozedUntil,
        note: payload.note,
      };
      if (event === 'undone' && context.undone) details.undone = delayDetails(context.undone);
      if (event === 'decided' && context.deciding) details.delayed = delayDetails(context.deciding);
      // `dueAt` is in `data` for the deadline's events only; the ledger keeps it with every entry
      // of an item that has one (an escalation's is the moved one).
      if (payload.dueAt) details.dueAt = payload.dueAt;
      // An approval of several names who approved so far, and how many must.
      if (event === 'approval') {
        details.approvals = context.approvals ?? [];
        details.required = context.required ?? 1;
      }
      const entry = { at: ctx.at, kind, id, event, by: by ?? payload.by, details };
      ctx.writes.followUp(async (tx) => ledger.record(tx, payload.orgId, entry));
    }
  };

/** The `rejectOnTimeout` effect: the choke point rejects the item's subject, after the item's write. */
const rejectOnTimeout =
  (decisions: ReviewDecisions): EffectHandler<RejectOnTimeoutParams, typeof reviewItemMachine> =>
  (_params, ctx) => {
    const { context } = ctx.after;
    const item = { orgId: ctx.row.orgId, kind: context.kind, id: context.runId, itemId: ctx.row.id };
    const dueAt = context.deadline?.dueAt ?? ctx.at;
    ctx.writes.followUp((tx) => decisions.rejectOnTimeout(tx, item, dueAt));
  };

/** The columns of `review_items` the kind owns. */
const COLUMNS = {
  kind: 'load',
  run_id: 'load',
  title: 'create',
  rounds: 'create',
  status: 'project',
  open: 'project',
  assigned_to: 'project',
  snoozed_until: 'project',
  note: 'project',
  summary: 'project',
  decision: 'project',
  deciding: 'project',
  closed_at: 'project',
  due_at: 'project',
  required: 'project',
  approvals: 'project',
} as const satisfies ColumnMap;

/** The `dispatchDecision` effect: the item's delayed decision goes to its owner (`takeEffect`). */
const dispatchDecision =
  (decisions: ReviewDecisions): EffectHandler<DispatchDecisionParams, typeof reviewItemMachine> =>
  (_params, ctx) => {
    const { context } = ctx.after;
    const deferred = context.deciding;
    if (!deferred) throw new Error(`review item ${ctx.row.id} took effect without a decision`);
    const item = { orgId: ctx.row.orgId, kind: context.kind, runId: context.runId, reviewItemId: ctx.row.id };
    ctx.writes.followUp((tx) => decisions.takeEffect(tx, item, deferred));
  };

/**
 * The `review-item` kind, recording its review events in `ledger` and rejecting timed-out subjects
 * and handing delayed decisions to their owners through `decisions`.
 */
export const reviewItemKind = (
  ledger: ReviewLedger,
  decisions: ReviewDecisions,
): ActorKindDef<typeof reviewItemMachine, typeof COLUMNS> => ({
  name: REVIEW_ITEM_KIND,
  machine: reviewItemMachine,
  eventSchema: reviewItemEventSchema,
  table: 'review_items',
  sequence: 'review_items_id_seq',
  contextSchema: reviewItemContextSchema,
  columns: COLUMNS,
  project(snapshot) {
    const p = projectReviewItem(snapshot);
    return {
      status: p.status,
      open: p.open,
      assigned_to: p.assignedTo,
      snoozed_until: p.snoozedUntil,
      note: p.note,
      summary: p.summary,
      decision: p.decision,
      deciding: p.deciding,
      closed_at: p.closedAt,
      due_at: p.dueAt,
      required: p.required,
      approvals: p.approvals,
    };
  },
  runEvents: false,
  effects: {
    emitReviewEvent: emitReviewEvent(ledger),
    rejectOnTimeout: rejectOnTimeout(decisions),
    dispatchDecision: dispatchDecision(decisions),
  },
});
