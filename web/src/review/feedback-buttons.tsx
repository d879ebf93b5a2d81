/** Thumbs up or down on a run's result (any status), with an optional note; again to clear it. */
import { useState } from 'preact/hooks';
import type { Run } from '../stores/review-store.js';
import { rateRun } from './review-data.js';

export function FeedbackButtons(props: { run: Run; busy: boolean }) {
  const { run } = props;
  const [note, setNote] = useState(run.feedbackNote ?? '');
  const rate = (rating: 'up' | 'down') =>
    void rateRun(run, run.rating === rating ? null : rating, note.trim());
  return (
    <section aria-labelledby="feedback-title">
      <h2 id="feedback-title">Feedback</h2>
      <div class="stack">
        <label for="feedback-note">Feedback note (optional)</label>
        <input id="feedback-note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <div class="row">
          <button
            type="button"
            aria-pressed={run.rating === 'up'}
            disabled={props.busy}
            onClick={() => rate('up')}
          >
            Thumbs up
          </button>
          <button
            type="button"
            aria-pressed={run.rating === 'down'}
            disabled={props.busy}
            onClick={() => rate('down')}
          >
            Thumbs down
          </button>
        </div>
      </div>
    </section>
  );
}
