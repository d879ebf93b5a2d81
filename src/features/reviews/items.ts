/**
 * Opening and closing review items, for the features whose actors wait for review: the owner's
 * transition opens its subject's item when it starts to wait and closes it when it stops, as
 * follow-ups in the owner's transaction (`ctx.writes.followUp`), so a subject waits exactly while its
 * item is open. When what a reviewer sees of a waiting subject changes (a draft arrives), the owner
 * tells the item (`update`), whose revision then changes.
 */

import type { ReviewItemEvent } from '../../../machines/index.js';
import type { ActorHost, ActorTx } from '../../platform/actors/host.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { Logger } from '../../platform/log.js';
import { REVIEW_ITEM_KIND } from './review-item-kind.js';
import type { ReviewKind } from './subjects.js';

/** The subject an item stands for: its kind and the owner's id for it. */
export interface ReviewSubjectRef {
  orgId: number;
  kind: ReviewKind;
  /** The owner's id (a run's id for skill and workflow items). */
  id: number;
}

/** A decision that closes an item (what the subject's own decision carried). */
export interface ReviewDecision {
  action: 'approve' | 'reject';
  /** Who decided (`token:<id>`, `mcp`). */
  by: string;
  /** The review's note (approve) or reason (reject). */
  reason: string | null;
}

/** Opens and closes review items inside an owner's transaction. */
export interface ReviewItems {
  /** Opens the item of `subject` (at most one is open per subject). */
  open(
    tx: ActorTx,
    subject: ReviewSubjectRef,
    item: { title: string; assignTo: string | null; actingAs: Attribution },
  ): Promise<void>;
  /** Tells the open item of `subject` that what its reviewers see changed (a new revision). */
  update(
    tx: ActorTx,
    subject: ReviewSubjectRef,
    change: { at: string; actingAs: Attribution },
  ): Promise<void>;
  /** Closes the open item of `subject`: decided (`decision`) or cancelled (null). */
  close(
    tx: ActorTx,
    subject: ReviewSubjectRef,
    close: { decision: ReviewDecision | null; at: string; actingAs: Attribution },
  ): Promise<void>;
}

export function createReviewItems(host: ActorHost, log: Logger): ReviewItems {
  return {
    async open(tx, subject, item) {
      await host.create(tx, REVIEW_ITEM_KIND, {
        orgId: subject.orgId,
        input: (_id, at) => ({
          kind: subject.kind,
          runId: subject.id,
          title: item.title,
          assignedTo: item.assignTo,
          at,
        }),
        columns: { kind: subject.kind, run_id: subject.id, title: item.title },
        actingAs: item.actingAs,
      });
    },
    update: (tx, subject, { at, actingAs }) =>
      sendToOpen(
        tx,
        subject,
        { type: 'SUBJECT_CHANGED', at },
        actingAs,
        'review item did not take the change',
      ),
    close(tx, subject, { decision, at, actingAs }) {
      const event: ReviewItemEvent = decision
        ? { type: 'DECIDE', action: decision.action, by: decision.by, reason: decision.reason, at }
        : { type: 'CANCEL', at };
      return sendToOpen(tx, subject, event, actingAs, 'review item did not close');
    },
  };

  /** Sends `event` to the open item of `subject`; a subject without one, or a refusal, is logged. */
  async function sendToOpen(
    tx: ActorTx,
    subject: ReviewSubjectRef,
    event: ReviewItemEvent,
    actingAs: Attribution,
    refusal: string,
  ): Promise<void> {
    const item = await tx.sql.maybeOne<{ id: number }>(
      'select id from review_items where org_id = $1 and kind = $2 and run_id = $3 and open',
      [subject.orgId, subject.kind, subject.id],
    );
    if (!item) {
      log.warn(
        { kind: subject.kind, id: subject.id, event: event.type },
        'a subject has no open review item',
      );
      return;
    }
    const result = await host.send(tx, REVIEW_ITEM_KIND, { orgId: subject.orgId, id: item.id }, event, {
      actingAs,
    });
    if (result.outcome !== 'applied') {
      log.warn({ kind: subject.kind, id: subject.id, itemId: item.id, outcome: result.outcome }, refusal);
    }
  }
}
