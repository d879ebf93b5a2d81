/**
 * The review screen of a proposed connector action (/review/actions/:id, the proposal's
 * `reviewUrl`): exactly what would be done — the email, the deal's properties now and after, the
 * note (action-effect.tsx) — why (the rationale), who proposed it, its review item (assignee, note,
 * snooze, due time), and — with the approve capability, while it is pending — edit what may change
 * (the email's recipients, subject and text; the deal's new values; the note), see the diff, and
 * approve bound to the revision shown, or reject. Live while it moves (its stream, and every 2 s
 * while it executes: retries send no event), so the execution (attempts, the next one, the last
 * error) and its outcome show without a reload.
 */
import { useEffect, useState } from 'preact/hooks';

import { PROPOSAL_EVENT_NAMES } from '../../../machines/shared/effects.js';
import { PageMessages } from '../components/page-messages.js';
import { PersonName } from '../components/person-name.js';
import { when } from '../format.js';
import { loadUsers } from '../people/people-data.js';
import { ActionEditor, actionEdits, editable } from '../review/action-editor.js';
import { ActionEffect, ExecutionStatus } from '../review/action-effect.js';
import { DecisionPanel } from '../review/decision-panel.js';
import { JsonBlock } from '../review/draft-view.js';
import { HeldDecision } from '../review/held-decision.js';
import { ItemFacts, REFUSAL_ID } from '../review/item-facts.js';
import { ItemLedger } from '../review/item-ledger.js';
import { ledgerVersion, useItemLedger } from '../review/ledger-data.js';
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
  // The params as the reviewer edits them (null: not editing).
  const [edited, setEdited] = useState<Record<string, unknown> | null>(null);
  useEffect(() => {
    if (session?.canApprove) void loadUsers();
  }, []);
  const { loaded, error, notice, stale, busy, decide, assign, snooze, undo, reload } =
    useSubjectReview<Proposal>({
      kind: 'action',
      id,
      path: `/proposals/${id}`,
      events: EVENTS,
      people: (subject) => [subject.createdBy, subject.review?.by],
      pollEvery: (subject) => (subject.status === 'executing' ? 2_000 : null),
    });
  const review = loaded.state === 'loaded' ? loaded.review : null;
  const ledger = useItemLedger(review && 'action', id, ledgerVersion(review));

  if (loaded.state === 'missing') return <NotFoundPage what="proposal" />;
  if (loaded.state === 'loading') return <LoadingPage error={error} />;
  const p = loaded.subject;
  const { policy } = loaded;
  // A decision taken with a delay waits for its effectiveAt: it may be undone, nothing else decided.
  const held = loaded.review?.status === 'deciding' ? loaded.review : null;
  const canDecide = !!session?.canApprove && p.status === 'pending' && (policy?.canDecide ?? true) && !held;
  const edits = canDecide ? actionEdits(p, edited) : null;
  const params = (edits?.params ?? {}) as Record<string, unknown>;
  const changes = Object.keys(params).map((key) => ({
    label: key,
    before: (p.params as Record<string, unknown>)[key],
    after: params[key],
  }));
  // What will happen: the edited params while editing.
  const shown = canDecide && edited ? { ...p, params: edited } : p;
  return (
    <main id="main" class="review-page">
      <p>
        <a href="/review">← Queue</a> · <a href={`/inspect/proposal/${p.id}`}>Inspect the proposal</a>
      </p>
      <h1>
        {p.action} <span class="muted">(proposal {p.id})</span>
      </h1>
      <PageMessages error={error} notice={notice} />
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
      <ItemFacts
        review={loaded.review}
        policy={loaded.policy}
        canAct={!!session?.canApprove}
        busy={busy}
        me={session?.userId ?? ''}
        onAssign={(userId) => void assign(userId)}
        onSnooze={(until) => void snooze(until)}
      />
      <div class="review-grid">
        <section aria-labelledby="rationale-title">
          <h2 id="rationale-title">Rationale</h2>
          <p class="rationale">{p.rationale}</p>
        </section>
        <section aria-labelledby="effect-title">
          <h2 id="effect-title">What will happen</h2>
          <ActionEffect proposal={shown} />
          {canDecide && edited && <ActionEditor proposal={p} params={edited} onChange={setEdited} />}
          {canDecide && editable(p) && (
            <button
              type="button"
              onClick={() => setEdited(edited ? null : structuredClone(p.params as Record<string, unknown>))}
            >
              {edited ? 'Discard changes' : 'Edit before approving'}
            </button>
          )}
          <details>
            <summary>Params as sent</summary>
            <JsonBlock value={p.params} />
          </details>
        </section>
      </div>
      <ExecutionStatus proposal={p} />
      {canDecide && (
        <DecisionPanel
          title="Decide"
          busy={busy}
          changes={changes}
          invalid={false}
          stale={stale}
          approveRefusedBy={policy && !policy.canApprove ? REFUSAL_ID : undefined}
          onApprove={(note) =>
            void decide('approve', note, edits ? 'Approved with your changes.' : 'Approved.', edits).then(
              (decided) => decided && setEdited(null),
            )
          }
          onReject={(reason) => void decide('reject', reason, 'Rejected.')}
        />
      )}
      {held && <HeldDecision review={held} busy={busy} onUndo={undo} onElapsed={reload} />}
      {!canDecide && stale && (
        <p class="notice stale" role="alert">
          {stale}
        </p>
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
      {review && <ItemLedger ledger={ledger} />}
      {p.result && (
        <section aria-labelledby="result-title">
          <h2 id="result-title">Result</h2>
          <JsonBlock value={p.result} />
        </section>
      )}
    </main>
  );
}
