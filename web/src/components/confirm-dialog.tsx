/** Asks before something that cannot be undone. */
import { ModalDialog } from './modal-dialog.js';

export function ConfirmDialog(props: {
  title: string;
  message: string;
  confirm: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <ModalDialog title={props.title} onClose={props.onClose}>
      <p>{props.message}</p>
      <div class="row">
        <button type="button" class="danger" onClick={props.onConfirm}>
          {props.confirm}
        </button>
        {/* Focused first: Enter on an accidental open cancels. */}
        <button type="button" autofocus onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </ModalDialog>
  );
}
