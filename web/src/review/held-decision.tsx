/**
 * A review screen's item while a decision waits for its `effectiveAt` (`status: "deciding"`,
 * decisions.md §15 "Undo"): what was decided, by whom, when it takes effect (counting down), and Undo
 * — which opens the item again. Shown in place of the decision forms (nothing else may be decided
 * meanwhile). When the reviewer decided here (the form they were in went away), or the focus was
 * lost, Undo takes it. `onElapsed` runs a second after `effectiveAt` (the screen reads the subject again, in case its
 * stream told nothing).
 */
import { useEffect, useRef } from 'preact/hooks';
import { Countdown } from '../components/countdown.js';
import { PersonName } from '../components/person-name.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';
import type { ReviewItem } from '../wire.js';
import { heldHere } from './screen-decisions.js';

const VERB = { approve: 'Approval', reject: 'Rejection' } as const;

export function HeldDecision(props: {
  review: ReviewItem;
  busy: boolean;
  onUndo(): void;
  onElapsed(): void;
}) {
  const { decision, effectiveAt } = props.review;
  // Any holder of the approve capability may undo (docs/api.md, Undo).
  const canUndo = useSelector(sessionStore, (c) => c.session?.canApprove ?? false);
  const undo = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    // Not while the screen is still busy with the decision: a disabled button takes no focus.
    if (props.busy) return;
    const active = document.activeElement;
    const here = heldHere.delete(`${props.review.kind}:${props.review.id}`);
    if (here || !active || active === document.body) undo.current?.focus();
  }, [effectiveAt, props.busy]);
  if (!decision || !effectiveAt) return null;
  const at = Date.parse(effectiveAt);
  return (
    <section class="actions held" aria-labelledby="held-title">
      <h2 id="held-title">{VERB[decision.action]} on its way</h2>
      <p role="status">
        {VERB[decision.action]} by <PersonName actor={decision.by} /> takes effect at{' '}
        {new Date(at).toLocaleTimeString()}
        {decision.reason && (
          <>
            {' '}
            — {decision.action === 'approve' ? 'note' : 'reason'}: {decision.reason}
          </>
        )}
        {decision.edits && <> — with changes</>}. Until then nothing is done and it can be undone.
      </p>
      {canUndo && (
        <p class="row">
          <button ref={undo} type="button" disabled={props.busy} onClick={props.onUndo}>
            Undo
          </button>
          <Countdown until={at} onDone={() => setTimeout(props.onElapsed, 1_000)} />
        </p>
      )}
    </section>
  );
}
