/**
 * The delay stage of review decisions (decisions.md §15 "Undo"), used by the choke point
 * (decisions.ts): a decision with `delaySeconds` > 0 is not dispatched to the subject's owner at
 * once. The item takes it as DEFER and waits `deciding` until `effectiveAt`, still in the queue (the
 * API shows `status: "deciding"`, `effectiveAt` and the `decision`), with the durable timer `decide`
 * (a row of `timers`, written in the same statement) due then. Nothing else happens: no run
 * transition, no proposal execution, no webhook but the queue's own `review.deciding`.
 *
 * - Take effect: the timer fires TAKE_EFFECT at the item in the scheduler's transaction; the item's
 *   `dispatchDecision` effect hands the kept decision to the owner (`takeEffect`), attributed to the
 *   reviewer who decided, with their edits, reason and request id, and the owner's transition closes
 *   the item (DECIDE) — one transaction, so a crash during the delay neither loses the decision (the
 *   timer row survives) nor repeats it (the row is deleted in the transaction that dispatches).
 * - Undo: UNDO before `effectiveAt` cancels the timer and routes the item again (a new revision);
 *   at or after `effectiveAt`, or on an item that is not deciding: 409.
 * - Checks: everything the choke point checks at once (the item, its revision, the edits' shape) is
 *   checked before DEFER; an approval's edits are also checked by the owner against the subject (a
 *   skill's outputSchema, a plan's rules) in a transaction rolled back afterwards (`dryRun`), so a bad
 *   edit is 400 at once, not a failure at `effectiveAt`.
 */
import type { DeferredDecision, ReviewDeferEvent, ReviewUndoEvent } from '../../../machines/index.js';
import { actingAs } from '../../platform/actors/acting-as.js';
import { type ActorHost, type ActorTx, actorStatus, type LoadedActor } from '../../platform/actors/host.js';
import type { Principal } from '../../platform/auth/principal.js';
import { type ApiError, conflict, validationFailed } from '../../platform/errors.js';
import type { Clock } from '../../platform/util/clock.js';
import { REVIEW_ITEM_KIND } from './review-item-kind.js';
import type { Decider, ReviewKind, ReviewSubject, SubjectDecision } from './subjects.js';

/** The longest delay a decision may take (seconds). */
export const MAX_DELAY_SECONDS = 30;

/** A delayed decision as the item keeps it (the review-item context's `deciding`). */
export type Deferred = DeferredDecision;

/** The item's status while a delayed decision waits. */
export const DECIDING = 'deciding';

/** Whether `item` holds a decision waiting for its `effectiveAt`. */
export function isDeciding(item: LoadedActor): boolean {
  return actorStatus(item) === DECIDING;
}

/** The decision `item` holds while deciding (null otherwise). */
export function deferredOf(item: LoadedActor): Deferred | null {
  const context = (item.snapshot as { context?: { deciding?: Deferred | null } }).context;
  return isDeciding(item) ? (context?.deciding ?? null) : null;
}

/** 409: the item holds a decision that takes effect at `effectiveAt`; nothing else decides it. */
export function deciding(ref: { kind: ReviewKind; id: number }, item: LoadedActor): ApiError {
  const effectiveAt = deferredOf(item)?.effectiveAt ?? null;
  return conflict(
    `Review item ${ref.kind} ${ref.id} is deciding: a decision takes effect at ${effectiveAt}; undo it first (POST /reviews/undo).`,
    { kind: ref.kind, id: ref.id, status: DECIDING, effectiveAt },
  );
}

/** The DEFER event of `decision` by `decider`, at `now` (ms) plus `delaySeconds`. */
export function deferEvent(
  decider: Decider,
  decision: SubjectDecision,
  now: number,
  delaySeconds: number,
): ReviewDeferEvent {
  return {
    type: 'DEFER',
    action: decision.action,
    by: decider.actingAs.actor,
    apiTokenId: decider.actingAs.apiTokenId,
    reason: decision.reason,
    reviewedBy: decision.reviewedBy,
    edits: (decision.edits as ReviewDeferEvent['edits']) ?? null,
    auditAction: decision.audit.action,
    requestId: decision.requestId,
    at: new Date(now).toISOString(),
    effectiveAt: new Date(now + delaySeconds * 1000).toISOString(),
  };
}

/** Raised to roll a dry run back. */
class DryRun extends Error {
  override readonly name = 'DryRun';
}

export interface DelayDeps {
  host: ActorHost;
  clock: Clock;
  subjects: ReadonlyMap<ReviewKind, ReviewSubject>;
}

/** The delay stage: defer, take effect, undo. */
export class DecisionDelay {
  constructor(private readonly deps: DelayDeps) {}

  /**
   * Checks `decision` with the subject's owner as it would be taken now, then rolls everything back:
   * the owner's VALIDATION_FAILED (edits) is thrown; a refusal answers the owner's status.
   */
  async dryRun(
    subject: ReviewSubject,
    decider: Decider,
    id: number,
    item: LoadedActor,
    decision: SubjectDecision,
  ): Promise<{ refused: string } | null> {
    let refused: string | null = null;
    try {
      await this.deps.host.transact(
        async (tx) => {
          const outcome = await subject.decide(tx, decider, id, decision);
          if ('refused' in outcome) refused = outcome.refused.status;
          throw new DryRun();
        },
        { loaded: [item] },
      );
    } catch (error) {
      if (!(error instanceof DryRun)) throw error;
    }
    return refused === null ? null : { refused };
  }

  /**
   * Sends DEFER to `item` in `tx`, attributed to the decider; the refusal's status, or null when the
   * item took it.
   */
  async deferIn(
    tx: ActorTx,
    decider: Decider,
    ref: { kind: ReviewKind; id: number },
    item: LoadedActor,
    event: ReviewDeferEvent,
  ): Promise<string | null> {
    const reviewItemId = item.row.id;
    const result = await this.deps.host.send(
      tx,
      REVIEW_ITEM_KIND,
      { orgId: decider.orgId, id: reviewItemId },
      event,
      {
        actingAs: decider.actingAs,
        loaded: item,
        audit: {
          action: 'review.defer',
          targetKind: 'run',
          targetId: String(ref.id),
          details: {
            kind: ref.kind,
            action: event.action,
            reviewItemId,
            effectiveAt: event.effectiveAt,
            ...(event.edits ? { edited: true } : {}),
          },
          requestId: event.requestId,
        },
      },
    );
    if (result.outcome === 'invalid') throw validationFailed(result.issues);
    if (result.outcome === 'not_found') return 'gone';
    return result.outcome === 'refused' ? actorStatus(result.actor) : null;
  }

  /**
   * The item's delayed decision takes effect (its `dispatchDecision` effect, in the timer's
   * transaction): the owner decides `deferred` as the reviewer asked. A refusal cannot happen while
   * the item is open (a subject waits exactly while its item is open); it is thrown, so the timer's
   * transaction rolls back and the scheduler tries again later.
   */
  async takeEffect(
    tx: ActorTx,
    item: { orgId: number; kind: ReviewKind; runId: number; reviewItemId: number },
    deferred: Deferred,
  ): Promise<void> {
    const subject = this.deps.subjects.get(item.kind);
    if (!subject) throw new Error(`no review subject of kind ${item.kind} is registered`);
    const decider: Decider = {
      orgId: item.orgId,
      actingAs: { actor: deferred.by, apiTokenId: deferred.apiTokenId },
    };
    const outcome = await subject.decide(tx, decider, item.runId, {
      action: deferred.action,
      reason: deferred.reason,
      reviewedBy: deferred.reviewedBy,
      requestId: deferred.requestId,
      audit: {
        action: deferred.auditAction,
        details: {
          kind: item.kind,
          action: deferred.action,
          reviewItemId: item.reviewItemId,
          ...(deferred.edits ? { edited: true } : {}),
          decidedAt: deferred.at,
          effectiveAt: deferred.effectiveAt,
        },
      },
      edits: deferred.edits,
    });
    if ('refused' in outcome) {
      throw new Error(
        `the delayed decision of review item ${item.reviewItemId} was refused by its ${item.kind} ${item.runId} (${outcome.refused.status})`,
      );
    }
  }

  /**
   * Undoes the decision `item` (of subject `ref`) holds: 200 before its `effectiveAt`; 409 when it is
   * not deciding, or its `effectiveAt` has come (whether or not the timer has fired yet).
   */
  async undo(
    principal: Principal,
    ref: { kind: ReviewKind; id: number },
    item: LoadedActor | null,
    status: string,
    requestId: string | null,
  ): Promise<void> {
    if (!item || !isDeciding(item)) throw notDeciding(ref, item ? actorStatus(item) : status);
    const deferred = deferredOf(item);
    const event: ReviewUndoEvent = {
      type: 'UNDO',
      by: principal.actor,
      at: new Date(this.deps.clock.now()).toISOString(),
    };
    const { host } = this.deps;
    const result = await host.transact(
      (tx) =>
        host.send(tx, REVIEW_ITEM_KIND, { orgId: principal.orgId, id: item.row.id }, event, {
          actingAs: actingAs(principal),
          loaded: item,
          audit: {
            action: 'review.undo',
            targetKind: 'run',
            targetId: String(ref.id),
            details: {
              kind: ref.kind,
              reviewItemId: item.row.id,
              action: deferred?.action ?? null,
              decidedBy: deferred?.by ?? null,
              effectiveAt: deferred?.effectiveAt ?? null,
            },
            requestId,
          },
        }),
      { single: true },
    );
    if (result.outcome === 'applied') return;
    if (result.outcome === 'invalid') throw validationFailed(result.issues);
    const now = result.outcome === 'refused' ? actorStatus(result.actor) : 'gone';
    // Refused while deciding: its effectiveAt has come; decided: the timer already fired.
    if (now === DECIDING || now === 'decided') throw tookEffect(ref, deferred?.effectiveAt ?? null);
    throw notDeciding(ref, now);
  }
}

/** 409: there is no delayed decision to undo. */
function notDeciding(ref: { kind: ReviewKind; id: number }, status: string): ApiError {
  return conflict(`Review item ${ref.kind} ${ref.id} holds no decision to undo (${status}).`, {
    kind: ref.kind,
    id: ref.id,
    status,
  });
}

/** 409: the delayed decision's `effectiveAt` has come; it can no longer be undone. */
function tookEffect(ref: { kind: ReviewKind; id: number }, effectiveAt: string | null): ApiError {
  return conflict(
    `Review item ${ref.kind} ${ref.id}'s decision took effect at ${effectiveAt}; it can no longer be undone.`,
    { kind: ref.kind, id: ref.id, status: 'decided', effectiveAt },
  );
}
