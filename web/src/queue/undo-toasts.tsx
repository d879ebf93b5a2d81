/**
 * The queue's undo toasts: each decision taken here that waits for its effectiveAt says what was
 * decided, counts down, and offers Undo (also `u` in the list while shortcuts are on). A toast leaves
 * when undone or when its time has come; the newest three show, the others as a count. The region is a polite live region: a new toast is read out
 * once (the countdown is not).
 */
import { Countdown } from '../components/countdown.js';
import { UNDO_SECONDS } from '../review/screen-decisions.js';
import { heldStore } from '../stores/held-store.js';
import { useSelector } from '../stores/use-selector.js';
import { undo } from './queue-data.js';

/** How many toasts show at once (the newest); the others wait in order behind a count. */
const SHOWN = 3;

export function UndoToasts(props: { shortcuts: boolean }) {
  const held = useSelector(heldStore, (c) => c.held);
  return (
    <div class="toasts" role="status" aria-label="Decisions you can undo">
      {held.slice(0, SHOWN).map((h) => (
        <p key={`${h.kind}:${h.id}:${h.effectiveAt}`} class="toast">
          <span>
            {h.action === 'approve' ? 'Approved' : 'Rejected'} “{h.title}”.{' '}
            <span aria-hidden="true">Takes effect in </span>
            <Countdown
              until={h.effectiveAt}
              onDone={() => heldStore.trigger.released({ key: `${h.kind}:${h.id}` })}
            />
            <span class="visually-hidden">It takes effect in {UNDO_SECONDS} seconds unless undone.</span>
          </span>
          <button
            type="button"
            class="toast-undo"
            onClick={() =>
              void undo(h).then(() => {
                // The toast went with the focus: back to the list, on the item that came back.
                const active = document.activeElement;
                if (!active || active === document.body) {
                  document.querySelector<HTMLElement>('ol.queue li.current a.title')?.focus();
                }
              })
            }
          >
            Undo{props.shortcuts ? ' (u)' : ''}
          </button>
        </p>
      ))}
      {held.length > SHOWN && (
        <p class="toast">
          {held.length - SHOWN} more waiting{props.shortcuts ? ' (u undoes the newest first)' : ''}
        </p>
      )}
    </div>
  );
}
