/**
 * The two decision forms every review screen shows to a reviewer who may approve: approve with an
 * optional note, reject with a required reason. The screen says what a decision does.
 */
import { useState } from 'preact/hooks';

export function DecideForms(props: {
  busy: boolean;
  /** The approve button's label (default "Approve"). */
  approveLabel?: string;
  approveDisabled?: boolean;
  onApprove(note: string): void;
  onReject(reason: string): void;
}) {
  const [note, setNote] = useState('');
  const [reason, setReason] = useState('');
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
        <button type="submit" class="primary" disabled={props.busy || props.approveDisabled}>
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
    </>
  );
}
