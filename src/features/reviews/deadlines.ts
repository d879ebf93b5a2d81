/**
 * Review deadlines (decisions §16): the terms an item opens with, from the policy in force for its
 * subject. The review-item machine does the rest (its `deadline`: timers, reminder, overdue,
 * escalation, timeout); this is the one place that reads a policy for it.
 *
 * Terminology:
 * - terms: `dueIn`, `remindBefore`, `onTimeout` and `escalateTo` of the policy in force, durations in
 *   milliseconds.
 * - escalation target: the first of `escalateTo` — its first user, else the first user of the org (by
 *   id) holding its first role that has one — resolved when the item opens, so the machine (which
 *   reads no database) assigns a user id.
 */
import type { ReviewDeadlinePolicy } from '../../../machines/index.js';
import type { ActorTx } from '../../platform/actors/host.js';
import { reader } from '../../platform/actors/tx.js';
import type { ReviewSubjectRef } from './items.js';

/** What a policy says of deadlines (decisions §16), durations in milliseconds. */
export interface DeadlineTerms {
  /** Null or absent: the policy sets no deadline. */
  dueInMs?: number | null | undefined;
  remindBeforeMs?: number | null | undefined;
  onTimeout?: 'none' | 'escalate' | 'reject' | undefined;
  escalateTo?:
    | { users?: readonly string[] | undefined; roles?: readonly string[] | undefined }
    | null
    | undefined;
}

/** The deadline terms of the policy in force for `subject` (null: no policy applies). */
export type DeadlineTermsOf = (tx: ActorTx, subject: ReviewSubjectRef) => Promise<DeadlineTerms | null>;

/** The deadline an item of `subject` opens with, or null when the policy in force sets no `dueIn`. */
export async function deadlineOf(
  tx: ActorTx,
  subject: ReviewSubjectRef,
  termsOf: DeadlineTermsOf,
): Promise<ReviewDeadlinePolicy | null> {
  const terms = await termsOf(tx, subject);
  if (!terms?.dueInMs) return null;
  const onTimeout = terms.onTimeout ?? 'none';
  return {
    dueInMs: terms.dueInMs,
    remindBeforeMs: terms.remindBeforeMs ?? null,
    onTimeout,
    escalateTo: onTimeout === 'escalate' ? await escalationTarget(tx, subject.orgId, terms.escalateTo) : null,
  };
}

/** The first of `escalateTo` (see the header), or null when it names no one who exists. */
async function escalationTarget(
  tx: ActorTx,
  orgId: number,
  escalateTo: DeadlineTerms['escalateTo'],
): Promise<string | null> {
  const users = escalateTo?.users ?? [];
  const roles = escalateTo?.roles ?? [];
  if (users.length === 0 && roles.length === 0) return null;
  const rows = await reader(tx).prepared<{ id: string }>(
    'review_escalation_target',
    `select u.id from users u
      where u.org_id = $1 and (u.id = any($2::text[]) or u.role = any($3::text[]))
      order by array_position($2::text[], u.id) nulls last, array_position($3::text[], u.role), u.id
      limit 1`,
    [orgId, [...users], [...roles]],
  );
  return rows[0]?.id ?? null;
}
