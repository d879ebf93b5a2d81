/**
 * What a reviewer can do to a waiting run: approve with a note, reject with a reason, assign, snooze.
 * Shown only with the approve capability (the server refuses without it anyway).
 */
import { useState } from 'preact/hooks';
import { AssignDialog, SnoozeDialog } from '../queue/queue-dialogs.js';
import { peopleStore } from '../stores/people-store.js';
import type { Run } from '../stores/review-store.js';
import { useSelector } from '../stores/use-selector.js';
import { DecideForms } from './decide-forms.js';
import { approveRun, assignRun, rejectRun, snoozeRun } from './review-data.js';

export function ReviewActions(props: { run: Run; me: string; busy: boolean }) {
  const { run } = props;
  const [dialog, setDialog] = useState<null | 'assign' | 'snooze'>(null);
  const users = useSelector(peopleStore, (c) => c.users);
  return (
    <section class="actions" aria-labelledby="decide-title">
      <h2 id="decide-title">Decide</h2>
      <DecideForms
        busy={props.busy}
        onApprove={(note) => void approveRun(run, note)}
        onReject={(reason) => void rejectRun(run, reason)}
      />
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
          users={users}
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
