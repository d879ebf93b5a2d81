/**
 * The review screen of a proposed connector action (/review/actions/:id, the proposal's
 * `reviewUrl`): what would be done (action, source, params), why (the rationale), who proposed it,
 * and — with the approve capability, while it is pending — approve or reject. Live while it moves
 * (its stream), so the outcome of an approval (executed with its result, or failed with the error)
 * shows without a reload.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import { when } from '../format.js';
import { JsonBlock } from '../review/draft-view.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';
import { NotFoundPage } from './not-found-page.js';

/** A proposal as `GET /api/v1/proposals/:id` answers it. */
interface Proposal {
  id: number;
  action: string;
  source: string;
  agentSlug: string | null;
  params: Record<string, unknown>;
  rationale: string;
  status: string;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  attempts: number;
  review: { decision: string; by: string; note: string | null; reason: string | null; at: string } | null;
  createdBy: string;
  createdAt: string;
  completedAt: string | null;
}

/** The events of a proposal's stream. */
const EVENTS = ['created', 'approved', 'rejected', 'cancelled', 'executed', 'failed'];

type Loaded = { state: 'loading' } | { state: 'missing' } | { state: 'loaded'; proposal: Proposal };

export function ActionReviewPage({ id }: { id: number }) {
  const session = useSelector(sessionStore, (c) => c.session);
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const [reason, setReason] = useState('');

  const load = async () => {
    try {
      setLoaded({ state: 'loaded', proposal: await api<Proposal>('GET', `/proposals/${id}`) });
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setLoaded({ state: 'missing' });
      else setError((e as Error).message);
    }
  };

  useEffect(() => {
    setLoaded({ state: 'loading' });
    void load();
    const source = new EventSource(`/api/v1/proposals/${id}/stream`);
    const reload = () => void load();
    for (const name of EVENTS) source.addEventListener(`proposal.${name}`, reload);
    source.onerror = () => {
      // The server ends the stream once the proposal is settled: close rather than reconnect.
      if (source.readyState === EventSource.CONNECTING) source.close();
    };
    return () => source.close();
  }, [id]);

  const decide = async (action: 'approve' | 'reject', text: string, done: string) => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/reviews/decide?limit=1', {
        kind: 'action',
        id,
        action,
        ...(text ? { reason: text } : {}),
      });
      setNotice(done);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
      await load();
    }
  };

  if (loaded.state === 'missing') return <NotFoundPage what="proposal" />;
  if (loaded.state === 'loading') {
    return (
      <main id="main" aria-busy="true">
        <p>Loading…</p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </main>
    );
  }
  const p = loaded.proposal;
  const canDecide = !!session?.canApprove && p.status === 'pending';
  return (
    <main id="main" class="review-page">
      <p>
        <a href="/review">← Queue</a> · <a href={`/inspect/proposal/${p.id}`}>Inspect the proposal</a>
      </p>
      <h1>
        {p.action} <span class="muted">(proposal {p.id})</span>
      </h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p class="visually-hidden" aria-live="polite">
        {notice}
      </p>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status status-${p.status}`}>{p.status}</span>
        </dd>
        <dt>Action</dt>
        <dd>
          <code>{p.action}</code>
        </dd>
        <dt>Source</dt>
        <dd>{p.source}</dd>
        {p.agentSlug && (
          <>
            <dt>Agent</dt>
            <dd>{p.agentSlug}</dd>
          </>
        )}
        <dt>Proposed by</dt>
        <dd>{p.createdBy}</dd>
        <dt>Proposed</dt>
        <dd>{when(p.createdAt)}</dd>
        {p.attempts > 0 && (
          <>
            <dt>Attempts</dt>
            <dd>{p.attempts}</dd>
          </>
        )}
        {p.completedAt && (
          <>
            <dt>Finished</dt>
            <dd>{when(p.completedAt)}</dd>
          </>
        )}
      </dl>
      <div class="review-grid">
        <section aria-labelledby="rationale-title">
          <h2 id="rationale-title">Rationale</h2>
          <p class="rationale">{p.rationale}</p>
        </section>
        <section aria-labelledby="params-title">
          <h2 id="params-title">Params</h2>
          <JsonBlock value={p.params} />
        </section>
      </div>
      {canDecide && (
        <section class="actions" aria-labelledby="decide-title">
          <h2 id="decide-title">Decide</h2>
          <form
            class="stack"
            onSubmit={(e) => {
              e.preventDefault();
              void decide('approve', note.trim(), 'Approved.');
            }}
          >
            <label for="approve-note">Note (optional)</label>
            <input id="approve-note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
            <button type="submit" class="primary" disabled={busy}>
              Approve
            </button>
          </form>
          <form
            class="stack"
            onSubmit={(e) => {
              e.preventDefault();
              if (reason.trim()) void decide('reject', reason.trim(), 'Rejected.');
            }}
          >
            <label for="reject-reason-input">Reason</label>
            <input
              id="reject-reason-input"
              required
              value={reason}
              onInput={(e) => setReason(e.currentTarget.value)}
            />
            <button type="submit" class="danger" disabled={busy}>
              Reject
            </button>
          </form>
        </section>
      )}
      {p.review && (
        <section aria-labelledby="review-title">
          <h2 id="review-title">Review</h2>
          <p>
            <strong>{p.review.decision}</strong> by {p.review.by} on {when(p.review.at)}
            {p.review.note && <> — note: {p.review.note}</>}
            {p.review.reason && <> — reason: {p.review.reason}</>}
          </p>
        </section>
      )}
      {p.result && (
        <section aria-labelledby="result-title">
          <h2 id="result-title">Result</h2>
          <JsonBlock value={p.result} />
        </section>
      )}
      {p.error && (
        <section aria-labelledby="error-title">
          <h2 id="error-title">Error</h2>
          <p role="status">
            <code>{p.error.code}</code>: {p.error.message}
          </p>
        </section>
      )}
    </main>
  );
}
