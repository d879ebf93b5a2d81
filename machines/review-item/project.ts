import type { SnapshotFrom } from 'xstate';
import { statusOf } from '../shared/status.js';
import type { DeferredDecision, ReviewApproval, ReviewDecision } from './context.js';
import type { ReviewItemMachine } from './machine.js';

/** A review item's statuses (the item's own; the queue's `pending`/`paused`/`awaiting_review` is its run's). */
export const REVIEW_ITEM_STATUSES = [
  'unassigned',
  'assigned',
  'snoozed',
  'deciding',
  'effective',
  'decided',
  'cancelled',
] as const;

/** A review item's status. */
export type ReviewItemStatus = (typeof REVIEW_ITEM_STATUSES)[number];

/** The columns of a review item's row that the host stores for querying. */
export interface ReviewItemProjection {
  status: ReviewItemStatus;
  /** Whether the item is in the queue at all (not decided, not cancelled). */
  open: boolean;
  assignedTo: string | null;
  note: string | null;
  /** What the item is about in one line, or null. */
  summary: string | null;
  snoozedUntil: string | null;
  decision: ReviewDecision | null;
  /** The decision waiting for its `effectiveAt` while `deciding`, else null. */
  deciding: DeferredDecision | null;
  closedAt: string | null;
  /** When the item is due (its deadline's `dueAt`), or null when its policy sets none. */
  dueAt: string | null;
  /** How many distinct users must approve (1 unless its policy said more). */
  required: number;
  /** The approvals so far (of an item needing several), oldest first. */
  approvals: ReviewApproval[];
}

/** The queryable columns of a review item's snapshot. */
export function projectReviewItem(
  snapshot: Pick<SnapshotFrom<ReviewItemMachine>, 'value' | 'context'>,
): ReviewItemProjection {
  const { context } = snapshot;
  const status = statusOf(snapshot.value, REVIEW_ITEM_STATUSES, 'review-item');
  return {
    status,
    open: status !== 'decided' && status !== 'cancelled',
    assignedTo: context.assignedTo,
    note: context.note,
    summary: context.summary ?? null,
    snoozedUntil: context.snoozedUntil,
    decision: context.decision,
    deciding: status === 'deciding' ? (context.deciding ?? null) : null,
    closedAt: context.closedAt,
    dueAt: context.deadline?.dueAt ?? null,
    required: context.required ?? 1,
    approvals: context.approvals ?? [],
  };
}
