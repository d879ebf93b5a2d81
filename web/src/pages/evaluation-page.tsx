/**
 * An evaluation (/review/evaluations/:id): a skill's reviewed runs replayed on a candidate version,
 * each pair side by side — what the reviewer approved (or the draft they rejected) and the replay's
 * output — with a word diff of the two, and, for a reviewer with the approve capability, a mark per
 * pair: better, same or worse (recorded at once; the pressed button says which). Read again every
 * 2 s while the evaluation runs.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import { PageMessages } from '../components/page-messages.js';
import { PersonName } from '../components/person-name.js';
import { when } from '../format.js';
import { diffText, wordDiff } from '../review/line-diff.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';
import type { Evaluation, EvaluationPair } from '../wire.js';
import { LoadingPage } from './loading-page.js';
import { NotFoundPage } from './not-found-page.js';

const MARKS = ['better', 'same', 'worse'] as const;
type Mark = (typeof MARKS)[number];

/** How often a running evaluation is read again. */
const POLL_MS = 2_000;

/** What the two columns compare: the approved output, or for a rejected run its rejected draft. */
function WordDiff({ before, after }: { before: string; after: string }) {
  const words = useMemo(() => wordDiff(before, after), [before, after]);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region (axe: scrollable-region-focusable)
    <pre class="bounded word-diff" tabIndex={0}>
      {words.map((word, index) =>
        word.op === ' ' ? (
          word.text
        ) : word.op === '-' ? (
          <del key={index}>
            <span class="visually-hidden">removed: </span>
            {word.text}
          </del>
        ) : (
          <ins key={index}>
            <span class="visually-hidden">added: </span>
            {word.text}
          </ins>
        ),
      )}
    </pre>
  );
}

function Pair({
  pair,
  index,
  canMark,
  onMark,
  busy,
}: {
  pair: EvaluationPair;
  index: number;
  canMark: boolean;
  onMark: (pair: EvaluationPair, mark: Mark | null) => void;
  busy: boolean;
}) {
  const approved = pair.originalStatus === 'approved';
  const before = diffText(approved ? pair.approvedOutput : null);
  const after = diffText(pair.shadowOutput);
  const heading = `pair-${pair.originalRunId}`;
  return (
    <section class="pair" aria-labelledby={heading} data-original={pair.originalRunId}>
      <h2 id={heading}>
        {index + 1}. Run {pair.originalRunId} ({pair.originalStatus}){' '}
        <span class={`status ${pair.changed ? 'status-changed' : 'status-same'}`}>
          {pair.shadowStatus !== 'completed' ? pair.shadowStatus : pair.changed ? 'changed' : 'unchanged'}
        </span>
      </h2>
      <div class="side-by-side">
        <figure>
          <figcaption>
            {approved ? 'Approved' : 'Rejected (no approved output)'} —{' '}
            <a href={`/review/runs/${pair.originalRunId}`}>run {pair.originalRunId}</a>
          </figcaption>
          <pre class="bounded">{before}</pre>
        </figure>
        <figure>
          <figcaption>
            Replay — <a href={`/inspect/skill-run/${pair.shadowRunId}`}>shadow run {pair.shadowRunId}</a>
          </figcaption>
          {pair.shadowStatus === 'completed' ? (
            <pre class="bounded">{after}</pre>
          ) : pair.shadowStatus === 'failed' ? (
            <p class="error">Failed: {JSON.stringify(pair.shadowError)}</p>
          ) : (
            <p class="muted">{pair.shadowStatus}…</p>
          )}
        </figure>
      </div>
      {pair.shadowStatus === 'completed' && approved && (
        <figure class="diff">
          <figcaption>Word diff (approved → replay)</figcaption>
          <WordDiff before={before} after={after} />
        </figure>
      )}
      {canMark && (
        <fieldset class="marks">
          <legend>The replay is</legend>
          {MARKS.map((mark) => (
            <button
              key={mark}
              type="button"
              aria-pressed={pair.mark === mark}
              disabled={busy}
              onClick={() => onMark(pair, pair.mark === mark ? null : mark)}
            >
              {mark}
            </button>
          ))}
        </fieldset>
      )}
      {!canMark && pair.mark && <p>Marked {pair.mark}.</p>}
    </section>
  );
}

export function EvaluationPage({ id }: { id: number }) {
  const session = useSelector(sessionStore, (c) => c.session);
  const [evaluation, setEvaluation] = useState<Evaluation | null>(null);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const read = await api<Evaluation>('GET', `/evaluations/${id}`);
        if (stopped) return;
        setEvaluation(read);
        if (read.status === 'running') timer = setTimeout(load, POLL_MS);
      } catch (e) {
        if (stopped) return;
        if (e instanceof ApiError && e.status === 404) setMissing(true);
        else setError((e as Error).message);
      }
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id]);

  const onMark = async (pair: EvaluationPair, mark: Mark | null) => {
    setBusy(true);
    setError(null);
    try {
      const read = await api<Evaluation>('POST', `/evaluations/${id}/marks`, {
        originalRunId: pair.originalRunId,
        mark,
      });
      setEvaluation(read);
      setNotice(
        mark ? `Run ${pair.originalRunId} marked ${mark}.` : `Mark of run ${pair.originalRunId} cleared.`,
      );
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (missing) return <NotFoundPage what="evaluation" />;
  if (!evaluation) return <LoadingPage error={error} />;
  const e = evaluation;
  const marked = e.runs.filter((r) => r.mark !== null).length;
  return (
    <main id="main" class="review-page evaluation-page">
      <p>
        <a href="/review">← Queue</a> · <a href={`/skills/${e.skillSlug}`}>Skill {e.skillSlug}</a>
      </p>
      <h1>
        Evaluation {e.evaluationId}: {e.skillSlug} on <code>{e.workspace.slice(0, 12)}</code>
      </h1>
      <PageMessages error={error} notice={notice} />
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status status-${e.status}`}>{e.status}</span>
        </dd>
        <dt>Runs</dt>
        <dd>
          {e.summary.total} replayed: {e.summary.changed} changed, {e.summary.failed} failed
        </dd>
        <dt>Marked</dt>
        <dd>
          {marked} of {e.summary.total}
          {MARKS.map((m) => ` · ${e.runs.filter((r) => r.mark === m).length} ${m}`).join('')}
        </dd>
        <dt>Started by</dt>
        <dd>
          <PersonName actor={e.createdBy} />, {when(e.createdAt)}
        </dd>
      </dl>
      {e.runs.map((pair, index) => (
        <Pair
          key={pair.originalRunId}
          pair={pair}
          index={index}
          canMark={!!session?.canApprove}
          onMark={onMark}
          busy={busy}
        />
      ))}
    </main>
  );
}
