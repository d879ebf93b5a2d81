/**
 * Review subjects: what waits in the queue. Each kind of item stands for a subject owned by another
 * feature (a skill run, a workflow run), which registers how a decision reaches it and where the
 * API points for it. The queue itself knows no subject.
 */
import type { LoadedActor } from '../../platform/actors/host.js';
import type { Principal } from '../../platform/auth/principal.js';

/** The kinds of review items. */
export const REVIEW_KINDS = ['skill', 'workflow', 'mission', 'action'] as const;

/** A kind of review item. */
export type ReviewKind = (typeof REVIEW_KINDS)[number];

/** The queue's `status` of an item: what its subject is while it waits (docs/api.md "Review queue"). */
export const REVIEW_STATUS_OF_KIND = {
  skill: 'pending',
  workflow: 'paused',
  mission: 'awaiting_review',
  action: 'pending',
} as const satisfies Record<ReviewKind, string>;

/** A decision, as the queue hands it to the subject's owner. */
export interface SubjectDecision {
  action: 'approve' | 'reject';
  /** The review's note (approve) or reason (reject). */
  reason: string | null;
  /** The human the caller acts for. */
  reviewedBy: string | null;
  requestId: string | null;
  /** The audit row the owner writes with its transition. */
  audit: { action: string; details: Record<string, unknown> };
  /**
   * The subject's open item as the queue read it: the owner's transaction closes it from this copy
   * (`TransactOptions.loaded`) instead of reading it again.
   */
  item: LoadedActor;
}

/**
 * What the owner answers a decision: that it was taken, or, when the subject no longer accepts one,
 * its status (an expected refusal, answered as a value). The queue answers neither with the subject,
 * so the owner reads nothing after its transition.
 */
export type SubjectOutcome = { decided: true } | { refused: { status: string } };

/** How the queue reaches the subjects of one kind. */
export interface ReviewSubject<View = unknown> {
  /**
   * Applies `decision` to subject `id` through the owner's own path, whose transition closes the
   * item in the same transaction. Throws only what is not a refusal (NOT_FOUND, VALIDATION_FAILED…).
   */
  decide(principal: Principal, id: number, decision: SubjectDecision): Promise<SubjectOutcome>;
  /** The subject as its own GET answers it (the run, mission run or proposal); 404 when it is not the org's. */
  view(principal: Principal, id: number): Promise<View>;
  /** The subject's review screen. */
  reviewUrl(id: number): string;
  /** The subject's resource in the API. */
  pollUrl(id: number): string;
  /**
   * The table of the subject's rows (`id`, `org_id`, `status`), where the queue finds a subject and
   * its status when it has no open item. Default `runs` (rows of this kind only).
   */
  table?: string;
}
