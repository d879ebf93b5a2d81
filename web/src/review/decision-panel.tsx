/**
 * Deciding on a review screen: approve with a note, or reject with a reason. When the reviewer edited
 * what is approved, approving takes two steps: first the changes are shown as a diff, then "Approve
 * with these changes" sends them (or "Back to editing"). A stale notice (the item changed elsewhere)
 * shows above the forms; the screen has then read the item again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { DecideForms } from './decide-forms.js';
import { type Change, DiffView } from './diff-view.js';

export function DecisionPanel(props: {
  title: string;
  busy: boolean;
  /** What the reviewer's edits change (empty: approve as it is). */
  changes: Change[];
  /** Some edit does not parse: no approval until it does. */
  invalid: boolean;
  stale: string | null;
  /**
   * The id of the words saying why the review policy does not let this reviewer approve (Approve is
   * disabled and points at them); absent: they may.
   */
  approveRefusedBy?: string | undefined;
  onApprove(note: string): void;
  onReject(reason: string): void;
  /** Sends the draft back with what must change; absent: this subject takes no change requests now. */
  onRequestChanges?: ((reason: string) => void) | undefined;
}) {
  const [confirming, setConfirming] = useState<{ note: string } | null>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const edited = props.changes.length > 0;
  useEffect(() => {
    if (confirming) confirm.current?.focus();
  }, [confirming !== null]);
  // The edits went away (undone, or the item was read again): nothing left to confirm.
  useEffect(() => {
    if (!edited) setConfirming(null);
  }, [edited]);
  return (
    <section class="actions" aria-labelledby="decide-title">
      <h2 id="decide-title">{props.title}</h2>
      {props.stale && (
        <p class="notice stale" role="alert">
          {props.stale}
        </p>
      )}
      {confirming ? (
        <section class="stack confirm-edits" aria-labelledby="changes-title">
          <h3 id="changes-title">Your changes</h3>
          <DiffView changes={props.changes} />
          <div class="row">
            <button
              ref={confirm}
              type="button"
              class="primary"
              disabled={props.busy || props.invalid}
              onClick={() => props.onApprove(confirming.note)}
            >
              Approve with these changes
            </button>
            <button type="button" onClick={() => setConfirming(null)}>
              Back to editing
            </button>
          </div>
        </section>
      ) : (
        <>
          {props.invalid && (
            <p class="error" role="alert">
              An edit is not valid JSON: fix it before approving.
            </p>
          )}
          <DecideForms
            busy={props.busy}
            approveLabel={edited ? 'Review changes…' : 'Approve'}
            approveDisabled={props.invalid || props.approveRefusedBy !== undefined}
            approveDescribedBy={props.approveRefusedBy}
            onApprove={(note) => (edited ? setConfirming({ note }) : props.onApprove(note))}
            onReject={props.onReject}
            onRequestChanges={edited ? undefined : props.onRequestChanges}
          />
        </>
      )}
    </section>
  );
}
