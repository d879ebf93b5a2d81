/**
 * What a reviewer can do to a waiting run: approve with a note, reject with a reason, assign, snooze.
 * Shown only with the approve capability (the server refuses without it anyway).
 */
import { useState } from 'preact/hooks';
import { AssignDialog, SnoozeDialog } from '../queue/queue-dialogs.js';
import type { Run } from '../stores/review-store.js';
import { approveRun, assignRun, rejectRun, snoozeRun } from './review-data.js';

export function ReviewActions(props: { run: Run; me: string; busy: boolean }) {
  const { run } = props;
  const [note, setNote] = useState('');
  const [reason, setReason] = useState('');
  const [dialog, setDialog] = useState<null | 'assign' | 'snooze'>(null);
  return (
    <section class="actions" aria-labelledby="decide-title">
      <h2 id="decide-title">Decide</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void approveRun(run, note.trim());
        }}
      >
        <label for="approve-note">Note (optional)</label>
        <input id="approve-note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={props.busy}>
          Approve
        </button>
      </form>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim()) void rejectRun(run, reason.trim());
        }}
      >
        <label for="reject-reason-input">Reason</label>
        <input
          id="reject-reason-input"
          required
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
        <button type="submit" class="danger" disabled={props.busy}>
          Reject
        </button>
      </form>
      <div class="row">
        <button type="button" disabled={props.busy} onClick={() => setDialog('assign')}>
          Assign…
        </button>
        <button type="button" disabled={props.busy} onClick={() => setDialog('snooze')}>
          Snooze…
        </button>
      </div>
      {dialog === 'assign' && (
        <AssignDialog
          me={props.me}
          onClose={() => setDialog(null)}
          onAssign={(userId) => {
            setDialog(null);
            void assignRun(run, userId);
          }}
        />
      )}
      {dialog === 'snooze' && (
        <SnoozeDialog
          onClose={() => setDialog(null)}
          onSnooze={(until) => {
            setDialog(null);
            void snoozeRun(run, until);
          }}
        />
      )}
    </section>
  );
}
