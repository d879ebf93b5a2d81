/**
 * The review screen of a proposed connector action (/review/actions/:id, the proposal's
 * `reviewUrl`): exactly what would be done — the email, the deal's properties now and after, the
 * note (action-effect.tsx) — why (the rationale), who proposed it, and — with the approve
 * capability, while it is pending — approve or reject. Live while it moves (its stream, and every
 * 2 s while it executes: retries send no event), so the execution (attempts, the next one, the last
 * error) and its outcome show without a reload.
 */

import { PROPOSAL_EVENT_NAMES } from '../../../machines/shared/effects.js';
import { PersonName } from '../components/person-name.js';
import { when } from '../format.js';
import { ActionEffect, ExecutionStatus } from '../review/action-effect.js';
import { DecideForms } from '../review/decide-forms.js';
import { JsonBlock } from '../review/draft-view.js';
import { useSubjectReview } from '../review/subject-review.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';
import type { Proposal } from '../wire.js';
import { LoadingPage } from './loading-page.js';
import { NotFoundPage } from './not-found-page.js';

/** The events of a proposal's stream. */
const EVENTS = PROPOSAL_EVENT_NAMES.map((name) => `proposal.${name}`);

export function ActionReviewPage({ id }: { id: number }) {
  const session = useSelector(sessionStore, (c) => c.session);
  const { loaded, error, notice, busy, decide } = useSubjectReview<Proposal>({
    kind: 'action',
    id,
    path: `/proposals/${id}`,
    events: EVENTS,
    people: (subject) => [subject.createdBy, subject.review?.by],
    pollEvery: (subject) => (subject.status === 'executing' ? 2_000 : null),
  });

  if (loaded.state === 'missing') return <NotFoundPage what="proposal" />;
  if (loaded.state === 'loading') return <LoadingPage error={error} />;
  const p = loaded.subject;
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
        <dd>
          <PersonName actor={p.createdBy} />
        </dd>
        <dt>Proposed</dt>
        <dd>{when(p.createdAt)}</dd>
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
        <section aria-labelledby="effect-title">
          <h2 id="effect-title">What will happen</h2>
          <ActionEffect proposal={p} />
          <details>
            <summary>Params as sent</summary>
            <JsonBlock value={p.params} />
          </details>
        </section>
      </div>
      <ExecutionStatus proposal={p} />
      {canDecide && (
        <section class="actions" aria-labelledby="decide-title">
          <h2 id="decide-title">Decide</h2>
          <DecideForms
            busy={busy}
            onApprove={(note) => void decide('approve', note, 'Approved.')}
            onReject={(reason) => void decide('reject', reason, 'Rejected.')}
          />
        </section>
      )}
      {p.review && (
        <section aria-labelledby="review-title">
          <h2 id="review-title">Review</h2>
          <p>
            <strong>{p.review.decision}</strong> by <PersonName actor={p.review.by} /> on {when(p.review.at)}
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
    </main>
  );
}
