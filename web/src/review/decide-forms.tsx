/**
 * The decision forms every review screen shows to a reviewer who may approve: approve with an
 * optional note, reject with a required reason, and — where the subject may go back to its model (a
 * skill draft, a mission plan) — request changes with a required reason. The screen says what a
 * decision does.
 */
import { useState } from 'preact/hooks';

export function DecideForms(props: {
  busy: boolean;
  /** The approve button's label (default "Approve"). */
  approveLabel?: string;
  approveDisabled?: boolean;
  /** The id of words saying why Approve is disabled (the review policy's refusal), if any. */
  approveDescribedBy?: string | undefined;
  onApprove(note: string): void;
  onReject(reason: string): void;
  /** Sends the draft back with what must change; absent: the subject takes no change requests. */
  onRequestChanges?: ((reason: string) => void) | undefined;
}) {
  const [note, setNote] = useState('');
  const [reason, setReason] = useState('');
  const [changes, setChanges] = useState('');
  const requestChanges = props.onRequestChanges;
  return (
    <>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          props.onApprove(note.trim());
        }}
      >
        <label for="approve-note">Note (optional)</label>
        <input id="approve-note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button
          type="submit"
          class="primary"
          disabled={props.busy || props.approveDisabled}
          aria-describedby={props.approveDescribedBy}
        >
          {props.approveLabel ?? 'Approve'}
        </button>
      </form>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim()) props.onReject(reason.trim());
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
      {requestChanges && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            if (changes.trim()) requestChanges(changes.trim());
          }}
        >
          <label for="request-changes-reason">What must change (sent to the model for a new draft)</label>
          <textarea
            id="request-changes-reason"
            required
            rows={3}
            value={changes}
            onInput={(e) => setChanges(e.currentTarget.value)}
          />
          <button type="submit" disabled={props.busy}>
            Request changes
          </button>
        </form>
      )}
    </>
  );
}
