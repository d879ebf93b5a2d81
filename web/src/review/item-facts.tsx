/**
 * The review item on every review screen: who it is assigned to, the note, until when it is snoozed,
 * when it is due (once the item carries `dueAt`), the review policy it follows (linking to the
 * policy's page), who may approve, and for an item needing several approvals how many it has and
 * whose ("1 of 2 approved, by ann"); for a reviewer the policy does not let approve, why (known
 * before clicking); and — for a reviewer, while it is open — Assign and Snooze. People read by name
 * (the assignee's user; who decided as user and token name).
 */
import { useState } from 'preact/hooks';
import { when } from '../format.js';
import { AssignDialog, SnoozeDialog } from '../queue/queue-dialogs.js';
import { peopleStore } from '../stores/people-store.js';
import { useSelector } from '../stores/use-selector.js';
import type { PolicyInForce, ReviewItem } from '../wire.js';
import { approvalsText, approversText } from './policy-words.js';

/** `dueAt` once the item carries it (review deadlines), else null. */
function dueOf(review: ReviewItem): string | null {
  const due = (review as { dueAt?: unknown }).dueAt;
  return typeof due === 'string' ? due : null;
}

/** Where the policy in force comes from, in words. */
function sourceText(policy: PolicyInForce): string {
  if (policy.source === 'default') return 'the org’s default';
  if (policy.source === 'built_in') return 'built in: no policy named, and the org has no default';
  const by = policy.namedBy;
  if (!by) return 'named';
  return by.kind === 'workflow' ? `named by workflow ${by.slug}’s gate` : `named by ${by.kind} ${by.slug}`;
}

/** The id of the words saying why the reviewer may not approve (the Approve button points at them). */
export const REFUSAL_ID = 'approve-refusal';

/** The policy's lines of the item's facts. */
/** (Approvals while the item is open: once decided, the decision and the record say who.) */
function PolicyLines({ policy, review }: { policy: PolicyInForce; review: ReviewItem }) {
  return (
    <>
      <dt>Review policy</dt>
      <dd>
        {policy.slug === null ? (
          'Built-in'
        ) : (
          <a href={`/review/policies/${encodeURIComponent(policy.slug)}`}>{policy.name}</a>
        )}{' '}
        <span class="muted">({sourceText(policy)})</span>
      </dd>
      <dt>Approvers</dt>
      <dd>
        {approversText(policy.approvers)}
        {!policy.selfApproval && ', not whoever started it'}
      </dd>
      {review.required > 1 && review.revision !== null && (
        <>
          <dt>Approvals</dt>
          <dd class="approvals">{approvalsText(review)}</dd>
        </>
      )}
    </>
  );
}

export function ItemFacts(props: {
  review: ReviewItem | null;
  /** The policy in force (`GET /reviews/:kind/:id`'s), null when not read. */
  policy: PolicyInForce | null;
  /** Whether the reviewer may assign and snooze (the approve capability). */
  canAct: boolean;
  busy: boolean;
  me: string;
  onAssign(userId: string | null): void;
  onSnooze(until: Date): void;
}) {
  const { review } = props;
  const [dialog, setDialog] = useState<null | 'assign' | 'snooze'>(null);
  const users = useSelector(peopleStore, (c) => c.users);
  if (!review) return null;
  const open = review.revision !== null;
  const snoozed =
    review.snoozedUntil && Date.parse(review.snoozedUntil) > Date.now() ? review.snoozedUntil : null;
  const due = dueOf(review);
  return (
    <section class="item-facts" aria-labelledby="item-title">
      <h2 id="item-title">Review item</h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>{open ? 'open' : review.status}</dd>
        <dt>Assignee</dt>
        <dd>{review.assignedTo ?? 'nobody (unassigned)'}</dd>
        <dt>Note</dt>
        <dd>{review.note ?? '—'}</dd>
        <dt>Snoozed until</dt>
        <dd>{snoozed ? when(snoozed) : 'not snoozed'}</dd>
        <dt>Due</dt>
        <dd>{due ? when(due) : 'no due time'}</dd>
        {props.policy && <PolicyLines policy={props.policy} review={review} />}
      </dl>
      {open && props.policy?.refusal && props.policy.refusal.reason !== 'no_approve_capability' && (
        <p class="notice refusal" id={REFUSAL_ID}>
          {props.policy.refusal.message}
        </p>
      )}
      {open && props.canAct && (
        <div class="row">
          <button type="button" disabled={props.busy} onClick={() => setDialog('assign')}>
            Assign…
          </button>
          <button type="button" disabled={props.busy} onClick={() => setDialog('snooze')}>
            Snooze…
          </button>
        </div>
      )}
      {dialog === 'assign' && (
        <AssignDialog
          me={props.me}
          users={users}
          onClose={() => setDialog(null)}
          onAssign={(userId) => {
            setDialog(null);
            props.onAssign(userId);
          }}
        />
      )}
      {dialog === 'snooze' && (
        <SnoozeDialog
          onClose={() => setDialog(null)}
          onSnooze={(until) => {
            setDialog(null);
            props.onSnooze(until);
          }}
        />
      )}
    </section>
  );
}
