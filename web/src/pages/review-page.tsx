/**
 * The review screen (/review/runs/:id, the run's `reviewUrl`): the draft rendered safely beside the
 * input; what it ran on (skill or workflow, workspace version, agent); step results, tool calls and
 * anything else the run carries; earlier review and feedback; its history; and — with the approve
 * capability, while the run waits — the decision. Live while the run moves (a tool call shows as it
 * completes).
 */
import { useEffect } from 'preact/hooks';
import { PersonName } from '../components/person-name.js';
import { when } from '../format.js';
import { loadUsers } from '../people/people-data.js';
import { DraftView, JsonBlock } from '../review/draft-view.js';
import { FeedbackButtons } from '../review/feedback-buttons.js';
import { ReviewActions } from '../review/review-actions.js';
import { followRun, loadRun } from '../review/review-data.js';
import { ToolCalls } from '../review/tool-calls.js';
import { type Run, reviewStore } from '../stores/review-store.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';
import { LoadingPage } from './loading-page.js';
import { NotFoundPage } from './not-found-page.js';

/** Fields the screen shows in their own place; any other field of the run is shown as data. */
const KNOWN = new Set([
  'id',
  'kind',
  'slug',
  'name',
  'status',
  'reviewState',
  'pausedAt',
  'input',
  'output',
  'stepResults',
  'error',
  'review',
  'agentSlug',
  'workspaceSha',
  'traceId',
  'rating',
  'feedbackNote',
  'feedbackAt',
  'createdBy',
  'createdAt',
  'completedAt',
  'pollUrl',
  'reviewUrl',
  'toolCalls',
]);

const waiting = (run: Run) => run.status === 'pending' || run.status === 'paused';

function RunFacts({ run }: { run: Run }) {
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <span class={`status status-${run.status}`}>{run.status}</span>
        {run.pausedAt && ` at ${run.pausedAt}`}
      </dd>
      <dt>{run.kind === 'skill' ? 'Skill' : 'Workflow'}</dt>
      <dd>{run.slug}</dd>
      <dt>Workspace version</dt>
      <dd>
        <code>{run.workspaceSha ? run.workspaceSha.slice(0, 12) : '—'}</code>
      </dd>
      {run.agentSlug && (
        <>
          <dt>Agent</dt>
          <dd>{run.agentSlug}</dd>
        </>
      )}
      <dt>Started by</dt>
      <dd>
        <PersonName actor={run.createdBy} />
      </dd>
      <dt>Created</dt>
      <dd>{when(run.createdAt)}</dd>
      {run.completedAt && (
        <>
          <dt>Finished</dt>
          <dd>{when(run.completedAt)}</dd>
        </>
      )}
    </dl>
  );
}

export function ReviewPage({ runId }: { runId: number }) {
  const state = useSelector(reviewStore, (c) => c);
  const session = useSelector(sessionStore, (c) => c.session);

  useEffect(() => {
    reviewStore.trigger.opened({ runId });
    void loadRun(runId);
    if (session?.canApprove) void loadUsers();
    return followRun(runId);
  }, [runId]);

  if (state.notFound) return <NotFoundPage what="run" />;
  const { run } = state;
  if (!run) {
    return <LoadingPage />;
  }
  const others = Object.entries(run).filter(([key, value]) => !KNOWN.has(key) && value !== null);
  const canDecide = !!session?.canApprove && waiting(run);
  return (
    <main id="main" class="review-page">
      <p>
        <a href="/review">← Queue</a> · <a href={`/inspect/${run.kind}-run/${run.id}`}>Inspect the run</a>
      </p>
      <h1>
        {run.name} <span class="muted">(run {run.id})</span>
      </h1>
      {state.error && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      <p class="visually-hidden" aria-live="polite">
        {state.notice}
      </p>
      <RunFacts run={run} />
      <div class="review-grid">
        <section aria-labelledby="draft-title">
          <h2 id="draft-title">Draft</h2>
          <DraftView output={run.output} runId={run.id} />
        </section>
        <section aria-labelledby="input-title">
          <h2 id="input-title">Input</h2>
          <JsonBlock value={run.input} />
        </section>
      </div>
      {canDecide && <ReviewActions run={run} me={session?.userId ?? ''} busy={state.busy} />}
      {run.review && (
        <section aria-labelledby="review-title">
          <h2 id="review-title">Review</h2>
          <p>
            <strong>{run.review.decision}</strong> by <PersonName actor={run.review.by} /> on{' '}
            {when(run.review.at)}
            {run.review.note && <> — note: {run.review.note}</>}
            {run.review.reason && <> — reason: {run.review.reason}</>}
          </p>
        </section>
      )}
      {session?.scopes.includes('run:invoke') && <FeedbackButtons run={run} busy={state.busy} />}
      {run.error !== null && run.error !== undefined && (
        <section aria-labelledby="error-title">
          <h2 id="error-title">Error</h2>
          <JsonBlock value={run.error} />
        </section>
      )}
      {run.kind === 'workflow' && run.stepResults && Object.keys(run.stepResults).length > 0 && (
        <section aria-labelledby="steps-title">
          <h2 id="steps-title">Steps</h2>
          {Object.entries(run.stepResults).map(([step, result]) => (
            <details key={step}>
              <summary>{step}</summary>
              <JsonBlock value={result.output} />
            </details>
          ))}
        </section>
      )}
      <ToolCalls calls={run.toolCalls} />
      {others.map(([key, value]) => (
        <section key={key} aria-label={key}>
          <h2>{key}</h2>
          <JsonBlock value={value} />
        </section>
      ))}
      <section aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        <ol class="history">
          {state.transitions.map((t) => (
            <li key={t.id}>
              {when(t.at)} · <a href={`/inspect/${t.actorKind}/${t.actorId}`}>{t.actorKind}</a> ·{' '}
              {t.from ?? '∅'} → {t.to} · {eventName(t.event)} · <PersonName actor={t.actor} />
            </li>
          ))}
        </ol>
      </section>
    </main>
  );
}

function eventName(event: unknown): string {
  if (event && typeof event === 'object' && 'type' in event) return String((event as { type: unknown }).type);
  return String(event);
}
