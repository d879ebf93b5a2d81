/** The queue's dialogs: reject with a reason, request changes, snooze, assign, and the keyboard help. */
import { useState } from 'preact/hooks';
import { ModalDialog } from '../components/modal-dialog.js';
import type { User } from '../stores/people-store.js';
import { QUEUE_KEYS } from './queue-keys.js';

/**
 * A decision that needs a reason (required): reject, or request changes (the draft or plan goes back
 * to its model with the reason; the new round comes back to the queue).
 */
function ReasonDialog(props: {
  title: string;
  /** What the item is (shown above the field), if one item. */
  about?: string;
  label: string;
  submit: string;
  danger: boolean;
  long: boolean;
  onSubmit: (reason: string) => void;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  const onInput = (e: { currentTarget: { value: string } }) => setReason(e.currentTarget.value);
  return (
    <ModalDialog title={props.title} onClose={props.onClose}>
      <form
        method="dialog"
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim()) props.onSubmit(reason.trim());
        }}
      >
        {props.about && <p>{props.about}</p>}
        <label for="decision-reason">{props.label}</label>
        {props.long ? (
          <textarea id="decision-reason" required rows={4} value={reason} onInput={onInput} />
        ) : (
          <input id="decision-reason" required value={reason} onInput={onInput} />
        )}
        <div class="row">
          <button type="submit" class={props.danger ? 'danger' : undefined}>
            {props.submit}
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}

/** Reject: the reason is required. */
export function RejectDialog(props: {
  count: number;
  onReject: (reason: string) => void;
  onClose: () => void;
}) {
  return (
    <ReasonDialog
      title={props.count > 1 ? `Reject ${props.count} items` : 'Reject'}
      label="Reason"
      submit="Reject"
      danger
      long={false}
      onSubmit={props.onReject}
      onClose={props.onClose}
    />
  );
}

/** Request changes of one item (`title`): what must change is required. */
export function ChangesDialog(props: {
  title: string;
  onSend: (reason: string) => void;
  onClose: () => void;
}) {
  return (
    <ReasonDialog
      title="Request changes"
      about={props.title}
      label="What must change (sent to the model for a new draft)"
      submit="Request changes"
      danger={false}
      long
      onSubmit={props.onSend}
      onClose={props.onClose}
    />
  );
}

const SNOOZES = [
  { label: '1 hour', ms: 3_600_000 },
  { label: '4 hours', ms: 4 * 3_600_000 },
  { label: '1 day', ms: 24 * 3_600_000 },
  { label: '1 week', ms: 7 * 24 * 3_600_000 },
];

/** Snooze: how long (1 hour unless chosen). */
export function SnoozeDialog(props: { onSnooze: (until: Date) => void; onClose: () => void }) {
  const [ms, setMs] = useState(SNOOZES[0]?.ms ?? 3_600_000);
  return (
    <ModalDialog title="Snooze" onClose={props.onClose}>
      <form
        method="dialog"
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          props.onSnooze(new Date(Date.now() + ms));
        }}
      >
        <label for="snooze-for">Hide it for</label>
        <select id="snooze-for" value={String(ms)} onChange={(e) => setMs(Number(e.currentTarget.value))}>
          {SNOOZES.map((s) => (
            <option key={s.ms} value={String(s.ms)}>
              {s.label}
            </option>
          ))}
        </select>
        <div class="row">
          {/* Focused first, so Enter snoozes for the default hour. */}
          <button type="submit" class="primary" autofocus>
            Snooze
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}

/** Assign: a user of the org from the list (or nobody: back to the unassigned lane). */
export function AssignDialog(props: {
  me: string;
  /** The org's users; null while they are read (then a user id is typed). */
  users: User[] | null;
  onAssign: (userId: string | null) => void;
  onClose: () => void;
}) {
  const [userId, setUserId] = useState(props.me);
  return (
    <ModalDialog title="Assign" onClose={props.onClose}>
      <form
        method="dialog"
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          props.onAssign(userId.trim() || null);
        }}
      >
        <label for="assign-to">Assign to</label>
        {props.users ? (
          <select id="assign-to" value={userId} onChange={(e) => setUserId(e.currentTarget.value)}>
            <option value="">Nobody (unassigned)</option>
            {props.users.map((user) => (
              <option key={user.id} value={user.id}>
                {user.id === props.me ? `${user.id} (me)` : user.id} · {user.role}
              </option>
            ))}
          </select>
        ) : (
          <input id="assign-to" value={userId} onInput={(e) => setUserId(e.currentTarget.value)} />
        )}
        <div class="row">
          <button type="submit" class="primary">
            Assign
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}

/** The keys, and the switch that turns single-character ones off. */
export function HelpDialog(props: {
  shortcuts: boolean;
  onShortcuts: (on: boolean) => void;
  onClose: () => void;
}) {
  return (
    <ModalDialog title="Keyboard" onClose={props.onClose}>
      <p>The keys work while the focus is in the list.</p>
      <dl class="keys">
        {QUEUE_KEYS.map(({ keys, what, single }) => (
          <div key={keys} class={single && !props.shortcuts ? 'off' : undefined}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <p>
        <label>
          <input
            type="checkbox"
            checked={props.shortcuts}
            onChange={(e) => props.onShortcuts(e.currentTarget.checked)}
          />{' '}
          Single-key shortcuts (j, k, x, a, r, s, g, ?)
        </label>
      </p>
      <button type="button" onClick={props.onClose}>
        Close
      </button>
    </ModalDialog>
  );
}
