/**
 * The review item on every review screen: who it is assigned to, the note, until when it is snoozed,
 * when it is due (once the item carries `dueAt`); and — for a reviewer, while it is open — Assign and
 * Snooze. People read by name (the assignee's user; who decided as user and token name).
 */
import { useState } from 'preact/hooks';
import { when } from '../format.js';
import { AssignDialog, SnoozeDialog } from '../queue/queue-dialogs.js';
import { peopleStore } from '../stores/people-store.js';
import { useSelector } from '../stores/use-selector.js';
import type { ReviewItem } from '../wire.js';

/** `dueAt` once the item carries it (review deadlines), else null. */
function dueOf(review: ReviewItem): string | null {
  const due = (review as { dueAt?: unknown }).dueAt;
  return typeof due === 'string' ? due : null;
}

export function ItemFacts(props: {
  review: ReviewItem | null;
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
      </dl>
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
