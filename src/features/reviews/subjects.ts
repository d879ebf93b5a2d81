/**
 * Review subjects: what waits in the queue. Each kind of item stands for a subject owned by another
 * feature (a skill run, a workflow run), which registers how a decision reaches it and where the
 * API points for it. The queue itself knows no subject.
 */
import type { z } from 'zod';
import { type ActorTx, actorStatus, type SendResult } from '../../platform/actors/host.js';
import type { MachineKind } from '../../platform/actors/kind.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { Principal } from '../../platform/auth/principal.js';
import { type ApiError, notFound, validationFailed } from '../../platform/errors.js';

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

/** Who decides, as an owner's transition is attributed (the caller's, or the decider's at a delayed decision). */
export interface Decider {
  orgId: number;
  actingAs: Attribution;
}

/** A decision, as the queue's choke point (decisions.ts) hands it to the subject's owner. */
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
   * An approval's edits, of the shape the kind declared (`ReviewSubject.edits`); null: none. The
   * owner checks them against the subject (a skill's outputSchema, the editable fields, a plan's
   * rules) before its transition, and throws VALIDATION_FAILED naming `body.edits.…`: nothing changes.
   */
  edits: Record<string, unknown> | null;
}

/**
 * A change request (decisions.md §15 "Request changes"), as the choke point hands it to the owner of a
 * subject that takes one: the draft goes back to the model with the reviewer's reason.
 */
export interface SubjectChangeRequest {
  /** The reviewer's reason (required, non-empty). */
  reason: string;
  /** The human the caller acts for. */
  reviewedBy: string | null;
  requestId: string | null;
  /** The audit row the owner writes with its transition. */
  audit: { action: string; details: Record<string, unknown> };
}

/**
 * What the owner answers a decision: that it was taken, or, when the subject no longer accepts one,
 * its status (an expected refusal, answered as a value). The queue answers neither with the subject,
 * so the owner reads nothing after its transition.
 */
export type SubjectOutcome = { decided: true } | { refused: { status: string } };

/**
 * A step of a run as its review screen draws it (`GET /reviews/:kind/:id` `steps`): a skill step
 * with its skill and that skill's `outputSchema` (null: any object), from which the screen builds the
 * edit form; a gate with its title and assignee.
 */
export interface ReviewStep {
  name: string;
  type: 'skill' | 'approve';
  skill?: string;
  outputSchema?: Record<string, unknown> | null;
  title?: string;
  assignTo?: string;
}

/** How the queue reaches the subjects of one kind. */
export interface ReviewSubject<View = unknown> {
  /**
   * Applies `decision` to subject `id` in `tx` (the choke point's transaction, which knows the open
   * item: the owner's transition closes it from that copy). Only the choke point calls it. Throws only
   * what is not a refusal (NOT_FOUND, VALIDATION_FAILED…).
   */
  decide(tx: ActorTx, decider: Decider, id: number, decision: SubjectDecision): Promise<SubjectOutcome>;
  /** The subject as its own GET answers it (the run, mission run or proposal); 404 when it is not the org's. */
  view(principal: Principal, id: number): Promise<View>;
  /**
   * The subject's steps as the version it runs defines them (skill and workflow runs); absent: the
   * kind has none. Read for the review screen, beside `view`.
   */
  steps?(principal: Principal, id: number): Promise<ReviewStep[]>;
  /**
   * Sends the draft of subject `id` back to its model with the reviewer's reason, in `tx` (the choke
   * point's, as `decide`): the owner's transition closes the open item as `changes_requested`, and its
   * next draft opens a new one. Throws VALIDATION_FAILED (naming `body.action`) when the subject's
   * stage takes none (a mission's result review), CONFLICT when its draft is not there yet. Absent: the
   * kind takes no change requests (400).
   */
  requestChanges?(
    tx: ActorTx,
    decider: Decider,
    id: number,
    request: SubjectChangeRequest,
  ): Promise<SubjectOutcome>;
  /** The shape of the edits an approval of this kind takes (decisions.md §15); absent: it takes none. */
  edits?: z.ZodType<Record<string, unknown>>;
  /** The subject's review screen. */
  reviewUrl(id: number): string;
  /** The subject's resource in the API. */
  pollUrl(id: number): string;
  /**
   * The table of the subject's rows (`id`, `org_id`, `status`), where the queue finds a subject and
   * its status when it has no open item. Default `runs` (rows of this kind only).
   */
  table?: string;
  /**
   * The actor kinds of the subject's rows (in `table`), when the owner's `decide` is a transition of
   * one of them: the choke point reads the subject's row with its item and hands it to the decision's
   * transaction (`TransactOptions.loaded`), so the owner's transition does not load it again.
   */
  actors?: readonly MachineKind[];
}

/** The owner's APPROVE or REJECT event for `decision` (the shape runs, mission runs and proposals take). */
export function decisionEvent(decider: Decider, decision: SubjectDecision, at: string) {
  const by = decider.actingAs.actor;
  const onBehalfOf = decision.reviewedBy;
  return decision.action === 'approve'
    ? { type: 'APPROVE' as const, by, onBehalfOf, note: decision.reason, at }
    : { type: 'REJECT' as const, by, onBehalfOf, reason: decision.reason, at };
}

/** The owner's REQUEST_CHANGES event for `request` (the shape skill runs and mission runs take). */
export function changeRequestEvent(decider: Decider, request: SubjectChangeRequest, at: string) {
  return {
    type: 'REQUEST_CHANGES' as const,
    by: decider.actingAs.actor,
    onBehalfOf: request.reviewedBy,
    reason: request.reason,
    at,
  };
}

/** The audit row of a change request sent to subject `targetKind` `id` (its owner's `send`). */
export function changeRequestAudit(request: SubjectChangeRequest, targetKind: string, id: number) {
  return {
    action: request.audit.action,
    targetKind,
    targetId: String(id),
    details: { reason: request.reason, reviewedBy: request.reviewedBy, ...request.audit.details },
    requestId: request.requestId,
  };
}

/** A VALIDATION_FAILED of an approval's edits: `path` under `body.edits`. */
export function badEdit(path: string, message: string): ApiError {
  return validationFailed([{ field: path ? `body.edits.${path}` : 'body.edits', message }]);
}

/** What an owner answers for its transition's `result`: NOT_FOUND (`noun` `id`) and invalid throw. */
export function subjectOutcome(result: SendResult, noun: string, id: number): SubjectOutcome {
  if (result.outcome === 'not_found') throw notFound(noun, id);
  if (result.outcome === 'invalid') throw validationFailed(result.issues);
  if (result.outcome === 'refused') return { refused: { status: actorStatus(result.actor) } };
  return { decided: true };
}
