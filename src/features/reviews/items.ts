/**
 * Opening and closing review items, for the features whose actors wait for review: the owner's
 * transition opens its subject's item when it starts to wait and closes it when it stops, as
 * follow-ups in the owner's transaction (`ctx.writes.followUp`), so a subject waits exactly while its
 * item is open. When what a reviewer sees of a waiting subject changes (a draft arrives), the owner
 * tells the item (`update`), whose revision then changes. An item opens with the deadline of the
 * policy in force for its subject (deadlines.ts), if that sets one.
 */

import type { ReviewItemEvent } from '../../../machines/index.js';
import type { ActorHost, ActorTx, LoadedActor } from '../../platform/actors/host.js';
import type { Attribution } from '../../platform/auth/attribution.js';
import type { Logger } from '../../platform/log.js';
import { type DeadlineTerms, deadlineOf } from './deadlines.js';
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
  /** `request_changes`: the draft went back with `reason` (the item closes as `changes_requested`). */
  action: 'approve' | 'reject' | 'request_changes';
  /** Who decided (`token:<id>`, `mcp`). */
  by: string;
  /** The review's note (approve) or reason (reject). */
  reason: string | null;
  /** Whether the reviewer's edits were applied with the decision (the `review.decided` event says so). */
  edited?: boolean;
}

/** Opens and closes review items inside an owner's transaction. */
export interface ReviewItems {
  /** Opens the item of `subject` (at most one is open per subject). */
  open(
    tx: ActorTx,
    subject: ReviewSubjectRef,
    item: {
      title: string;
      summary?: string | null;
      assignTo: string | null;
      /** Change requests made on the subject before this item (decisions.md §15); default 0. */
      rounds?: number;
      actingAs: Attribution;
    },
  ): Promise<void>;
  /**
   * Tells the open item of `subject` that what its reviewers see changed (a new revision), with its
   * new summary if given.
   */
  update(
    tx: ActorTx,
    subject: ReviewSubjectRef,
    change: { at: string; summary?: string | null; actingAs: Attribution },
  ): Promise<void>;
  /** Closes the open item of `subject`: decided (`decision`) or cancelled (null). */
  close(
    tx: ActorTx,
    subject: ReviewSubjectRef,
    close: { decision: ReviewDecision | null; at: string; actingAs: Attribution },
  ): Promise<void>;
}

/** The columns a load of an item reads (`ActorHost.resolveRow`); review items keep no run events. */
export const ITEM_COLUMNS = 'i.id, i.org_id, i.version, 0 as last_seq, i.snapshot, i.kind, i.run_id';

/** The open item of `subject`, read in `tx` (one statement); null when it has none. */
export async function readOpenItem(
  host: ActorHost,
  tx: ActorTx,
  subject: ReviewSubjectRef,
): Promise<LoadedActor | null> {
  const rows = await tx.sql.prepared<Record<string, unknown>>(
    'review_item_open',
    `select ${ITEM_COLUMNS} from review_items i where i.org_id = $1 and i.kind = $2 and i.run_id = $3 and i.open`,
    [subject.orgId, subject.kind, subject.id],
  );
  return rows[0] ? host.resolveRow(REVIEW_ITEM_KIND, rows[0]) : null;
}

/**
 * The terms of the policy in force an item opens with (decisions §16): its deadline's, and how many
 * distinct users must approve (`required`); null: no policy applies.
 */
export type ItemTermsOf = (
  tx: ActorTx,
  subject: ReviewSubjectRef,
) => Promise<(DeadlineTerms & { required?: number | undefined }) | null>;

/** The items of `host`, opened with the terms `termsOf` gives (the policy in force). */
export function createReviewItems(host: ActorHost, log: Logger, termsOf: ItemTermsOf): ReviewItems {
  const openItem = (tx: ActorTx, subject: ReviewSubjectRef) => readOpenItem(host, tx, subject);

  return {
    async open(tx, subject, item) {
      const terms = await termsOf(tx, subject);
      const deadline = await deadlineOf(tx, subject, async () => terms);
      await host.create(tx, REVIEW_ITEM_KIND, {
        orgId: subject.orgId,
        input: (_id, at) => ({
          kind: subject.kind,
          runId: subject.id,
          title: item.title,
          summary: item.summary ?? null,
          assignedTo: item.assignTo,
          ...(item.rounds ? { rounds: item.rounds } : {}),
          deadline,
          ...(terms?.required !== undefined && terms.required > 1 ? { required: terms.required } : {}),
          at,
        }),
        columns: { kind: subject.kind, run_id: subject.id, title: item.title, rounds: item.rounds ?? 0 },
        actingAs: item.actingAs,
      });
    },
    update: (tx, subject, { at, summary, actingAs }) =>
      sendToOpen(
        tx,
        subject,
        { type: 'SUBJECT_CHANGED', ...(summary === undefined ? {} : { summary }), at },
        actingAs,
        'review item did not take the change',
      ),
    close(tx, subject, { decision, at, actingAs }) {
      const event: ReviewItemEvent = decision
        ? {
            type: 'DECIDE',
            action: decision.action,
            by: decision.by,
            reason: decision.reason,
            ...(decision.edited ? { edited: true } : {}),
            at,
          }
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
    // The item its transaction's caller read (the queue deciding it), else one read of it.
    const item = (tx.attempt === 1 ? knownItem(tx, subject) : undefined) ?? (await openItem(tx, subject));
    if (!item) {
      log.warn(
        { kind: subject.kind, id: subject.id, event: event.type },
        'a subject has no open review item',
      );
      return;
    }
    const itemId = item.row.id;
    const result = await host.send(tx, REVIEW_ITEM_KIND, { orgId: subject.orgId, id: itemId }, event, {
      actingAs,
      loaded: item,
    });
    if (result.outcome !== 'applied') {
      log.warn({ kind: subject.kind, id: subject.id, itemId, outcome: result.outcome }, refusal);
    }
  }
}

/**
 * The item of `subject` its transaction's caller read before it (`ActorTx.known`: the queue's read
 * of the item it decides), if any.
 */
function knownItem(tx: ActorTx, subject: ReviewSubjectRef): LoadedActor | undefined {
  for (const actor of tx.known.values()) {
    const { orgId, columns } = actor.row;
    if (actor.def.name !== REVIEW_ITEM_KIND || orgId !== subject.orgId) continue;
    if (columns.kind === subject.kind && Number(columns.run_id) === subject.id) return actor;
  }
  return undefined;
}
