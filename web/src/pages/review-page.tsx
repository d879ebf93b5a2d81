/**
 * The review screen (/review/runs/:id, the run's `reviewUrl`): the draft rendered safely beside the
 * input; what it ran on (skill or workflow, workspace version, agent); its review item (assignee,
 * note, snooze, due time); a workflow's gate and step timeline, and what was approved at the gate
 * (frozen: later steps do not change it); its lineage and the objects it used, as links; tool calls; earlier
 * review (with what the reviewer changed) and feedback; its history; and — with the approve
 * capability, while the run waits — the decision: edit before approving (a Markdown draft in an
 * editor beside its live preview, other fields as a form from the skill's outputSchema), the diff of
 * the edit before confirming, bound to the revision shown. Live while the run moves.
 */
import { useEffect } from 'preact/hooks';
import { PageMessages } from '../components/page-messages.js';
import { PersonName } from '../components/person-name.js';
import { when } from '../format.js';
import { loadUsers } from '../people/people-data.js';
import { DecisionPanel } from '../review/decision-panel.js';
import type { Change } from '../review/diff-view.js';
import { DiffView } from '../review/diff-view.js';
import { DraftView, JsonBlock } from '../review/draft-view.js';
import { FeedbackButtons } from '../review/feedback-buttons.js';
import { HeldDecision } from '../review/held-decision.js';
import { ItemFacts, REFUSAL_ID } from '../review/item-facts.js';
import { ItemLedger } from '../review/item-ledger.js';
import { ledgerVersion, useItemLedger } from '../review/ledger-data.js';
import { OutputEditor } from '../review/output-editor.js';
import { assignRun, decideRun, followRun, loadRun, snoozeRun, undoRun } from '../review/review-data.js';
import { CopiedFrom, RunLineage } from '../review/run-lineage.js';
import { MAX_ROUNDS } from '../review/screen-decisions.js';
import { StepTimeline } from '../review/step-timeline.js';
import { ToolCalls } from '../review/tool-calls.js';
import { type ReviewContext, type ReviewStep, type Run, reviewStore } from '../stores/review-store.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';
import { LoadingPage } from './loading-page.js';
import { NotFoundPage } from './not-found-page.js';

/**
 * Where the screen shows each field of the run, checked by the compiler only (hence unused): every
 * field, so a field the API adds is a type error here until it is given a place (or said to be
 * hidden), never dumped as raw JSON. The authored work (draft, input, step results, error, tool calls,
 * rounds) has its sections; the run's metadata is rendered as facts or links (lineage and objects:
 * run-lineage.tsx, shared with the inspector); plumbing is hidden.
 */
const _RUN_FIELDS = {
  id: 'heading',
  name: 'heading',
  kind: 'facts',
  slug: 'facts',
  status: 'facts',
  pausedAt: 'facts',
  agentSlug: 'facts',
  workspaceSha: 'facts',
  createdBy: 'facts',
  createdAt: 'facts',
  completedAt: 'facts',
  forkOf: 'lineage',
  forks: 'lineage',
  replayOf: 'lineage',
  shadow: 'lineage',
  missionRunId: 'lineage',
  objects: 'lineage',
  input: 'section',
  output: 'section',
  draftOutput: 'section',
  stepResults: 'section',
  rounds: 'section',
  error: 'section',
  review: 'section',
  toolCalls: 'section',
  reviewState: 'decision',
  rating: 'feedback',
  feedbackNote: 'feedback',
  feedbackAt: 'feedback',
  traceId: 'hidden',
  pollUrl: 'hidden',
  reviewUrl: 'hidden',
} as const satisfies Record<
  keyof Run,
  'heading' | 'facts' | 'lineage' | 'section' | 'decision' | 'feedback' | 'hidden'
>;

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
      <RunLineage run={run} />
    </dl>
  );
}

/** What the reviewer's edits change: each edited step's output before and after. */
function changesOf(run: Run, edited: ReviewContext['edited']): Change[] {
  return Object.entries(edited).map(([step, after]) => ({
    label: run.kind === 'skill' ? 'Draft' : `Step ${step}`,
    before: run.stepResults?.[step]?.output ?? (run.kind === 'skill' ? run.output : null),
    after,
  }));
}

/**
 * What a reviewer changed when approving, from the run: a skill run's model draft beside its approved
 * output; a workflow's edited steps (`draftOutput` by step) beside what later steps read.
 */
function approvedChanges(run: Run): Change[] {
  if (!run.review?.edited || run.draftOutput === null || run.draftOutput === undefined) return [];
  if (run.kind === 'skill') return [{ label: 'Draft', before: run.draftOutput, after: run.output }];
  return Object.entries(run.draftOutput as Record<string, unknown>).map(([step, before]) => ({
    label: `Step ${step}`,
    before,
    after: run.stepResults?.[step]?.output ?? null,
  }));
}

/** The gate a workflow run waits at, else the last one it passed (gates record their approval as a result). */
function gateOf(state: ReviewContext): ReviewStep | null {
  const { run, steps } = state;
  if (!run || !steps) return null;
  const gates = steps.filter((step) => step.type === 'approve');
  if (run.pausedAt) return gates.find((step) => step.name === run.pausedAt) ?? null;
  return gates.findLast((step) => run.stepResults && step.name in run.stepResults) ?? null;
}

/** The output a gate was asked to approve: the last skill step's before it (what later steps cannot change). */
function contentAt(
  run: Run,
  steps: ReviewStep[],
  gate: ReviewStep,
): { step: string; output: unknown } | null {
  const before = steps.slice(0, steps.indexOf(gate)).findLast((step) => step.type === 'skill');
  if (!before) return null;
  return { step: before.name, output: run.stepResults?.[before.name]?.output ?? null };
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
  const ledger = useItemLedger(
    state.review && state.run ? state.run.kind : null,
    runId,
    ledgerVersion(state.review),
  );

  if (state.notFound) return <NotFoundPage what="run" />;
  const { run } = state;
  if (!run) {
    return <LoadingPage />;
  }
  const { policy } = state;
  // A decision taken with a delay waits for its effectiveAt: it may be undone, nothing else decided.
  const held = state.review?.status === 'deciding' ? state.review : null;
  const canDecide = !!session?.canApprove && waiting(run) && (policy?.canDecide ?? true) && !held;
  const revision = state.review?.revision ?? null;
  const edited = state.edited;
  const onEdit = (step: string, output: unknown) => reviewStore.trigger.edited({ step, output });
  const onInvalid = (control: string, bad: boolean) => reviewStore.trigger.invalidated({ control, bad });
  const gate = run.kind === 'workflow' ? gateOf(state) : null;
  const frozen = gate && state.steps ? contentAt(run, state.steps, gate) : null;
  const skillStep = run.kind === 'skill' ? state.steps?.[0] : undefined;
  const draftReady = run.kind === 'skill' && run.output !== null && run.output !== undefined;
  const editingDraft = run.kind === 'skill' && run.slug in edited;
  const changed = approvedChanges(run);
  return (
    <main id="main" class="review-page">
      <p>
        <a href="/review">← Queue</a> · <a href={`/inspect/${run.kind}-run/${run.id}`}>Inspect the run</a>
      </p>
      <h1>
        {run.name} <span class="muted">(run {run.id})</span>
      </h1>
      <PageMessages error={state.error} notice={state.notice} />
      <RunFacts run={run} />
      <ItemFacts
        review={state.review}
        policy={policy}
        canAct={!!session?.canApprove}
        busy={state.busy}
        me={session?.userId ?? ''}
        onAssign={(userId) => void assignRun(run, userId)}
        onSnooze={(until) => void snoozeRun(run, until)}
      />
      {run.kind === 'skill' ? (
        <div class="review-grid">
          <section aria-labelledby="draft-title">
            <h2 id="draft-title">Draft</h2>
            {(run.rounds?.length ?? 0) > 0 && (
              <p class="round">
                Round {(run.rounds?.length ?? 0) + 1}
                {run.status === 'running' ? ': the model is writing a new draft…' : ''}
              </p>
            )}
            {editingDraft ? (
              <OutputEditor
                id="edit-draft"
                value={edited[run.slug]}
                schema={skillStep?.outputSchema ?? null}
                onChange={(output) => onEdit(run.slug, output)}
                onInvalid={onInvalid}
              />
            ) : (
              <DraftView output={run.output} runId={run.id} />
            )}
            {canDecide && draftReady && (
              <button
                type="button"
                onClick={() => onEdit(run.slug, editingDraft ? undefined : structuredClone(run.output))}
              >
                {editingDraft ? 'Discard changes' : 'Edit before approving'}
              </button>
            )}
          </section>
          <section aria-labelledby="input-title">
            <h2 id="input-title">Input</h2>
            <JsonBlock value={run.input} />
          </section>
        </div>
      ) : (
        <>
          {gate && (
            <section aria-labelledby="gate-title">
              <h2 id="gate-title">
                {run.status === 'paused' ? 'Waiting at the gate' : 'Gate'} “{gate.title ?? gate.name}”
              </h2>
              <p>
                {gate.assignTo ? (
                  <>Assigned by the workflow to {gate.assignTo}.</>
                ) : (
                  'Any reviewer may decide.'
                )}
              </p>
              {frozen ? (
                <>
                  <h3>
                    {run.status === 'paused' ? 'To approve' : 'What was approved'}: the output of step{' '}
                    <code>{frozen.step}</code>
                  </h3>
                  <DraftView output={frozen.output} runId={run.id} />
                </>
              ) : (
                <p class="muted">No step ran before this gate: it approves going on.</p>
              )}
            </section>
          )}
          <section aria-labelledby="input-title">
            <h2 id="input-title">Input</h2>
            <JsonBlock value={run.input} />
          </section>
          {state.steps && (
            <section aria-labelledby="steps-title">
              <h2 id="steps-title">Steps</h2>
              <StepTimeline
                run={run}
                steps={state.steps}
                canEdit={canDecide}
                edited={edited}
                onEdit={onEdit}
                onInvalid={onInvalid}
              />
            </section>
          )}
        </>
      )}
      {canDecide && (
        <DecisionPanel
          title="Decide"
          busy={state.busy}
          changes={changesOf(run, edited)}
          invalid={state.invalid.size > 0}
          stale={state.stale}
          approveRefusedBy={policy && !policy.canApprove ? REFUSAL_ID : undefined}
          onApprove={(note) => void decideRun(run, revision, 'approve', note)}
          onReject={(reason) => void decideRun(run, revision, 'reject', reason)}
          onRequestChanges={
            draftReady && (state.review?.rounds ?? 0) < MAX_ROUNDS
              ? (reason) => void decideRun(run, revision, 'request_changes', reason)
              : undefined
          }
        />
      )}
      {held && (
        <HeldDecision
          review={held}
          busy={state.busy}
          onUndo={() => void undoRun(run)}
          onElapsed={() => void loadRun(run.id)}
        />
      )}
      {run.kind === 'skill' && (run.rounds?.length ?? 0) > 0 && <RoundHistory run={run} />}
      {!canDecide && state.stale && (
        <p class="notice stale" role="alert">
          {state.stale}
        </p>
      )}
      {run.review && (
        <section aria-labelledby="review-title">
          <h2 id="review-title">Review</h2>
          <p>
            <strong>{run.review.decision}</strong> by <PersonName actor={run.review.by} /> on{' '}
            {when(run.review.at)}
            {run.review.note && <> — note: {run.review.note}</>}
            {run.review.reason && <> — reason: {run.review.reason}</>}
          </p>
          {changed.length > 0 && (
            <>
              <h3>What the reviewer changed</h3>
              <DiffView changes={changed} />
            </>
          )}
        </section>
      )}
      {session?.scopes.includes('run:invoke') && <FeedbackButtons run={run} busy={state.busy} />}
      {run.error !== null && run.error !== undefined && (
        <section aria-labelledby="error-title">
          <h2 id="error-title">Error</h2>
          <JsonBlock value={run.error} />
        </section>
      )}
      {run.kind === 'workflow' &&
        !state.steps &&
        run.stepResults &&
        Object.keys(run.stepResults).length > 0 && (
          <section aria-labelledby="results-title">
            <h2 id="results-title">Step results</h2>
            {Object.entries(run.stepResults).map(([step, result]) => (
              <details key={step}>
                <summary>
                  {step}
                  <CopiedFrom run={run} step={step} />
                </summary>
                <JsonBlock value={result.output} />
              </details>
            ))}
          </section>
        )}
      <ToolCalls calls={run.toolCalls} />
      {state.review && <ItemLedger ledger={ledger} />}
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

/** The rounds that sent the draft back: each round's draft and the reviewer's reason, oldest first. */
function RoundHistory({ run }: { run: Run }) {
  const rounds = run.rounds ?? [];
  return (
    <section aria-labelledby="rounds-title">
      <h2 id="rounds-title">Rounds of review</h2>
      <ol class="rounds">
        {rounds.map((round, index) => (
          <li key={round.at}>
            <h3>Round {index + 1}</h3>
            <DraftView output={round.draft} runId={run.id} />
            <p>
              Sent back by <PersonName actor={round.by} /> on {when(round.at)}: <q>{round.reason}</q>
            </p>
          </li>
        ))}
      </ol>
    </section>
  );
}

function eventName(event: unknown): string {
  if (event && typeof event === 'object' && 'type' in event) return String((event as { type: unknown }).type);
  return String(event);
}
