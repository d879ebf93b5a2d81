/**
 * The review screen of a mission run (/review/missions/:id, the run's `reviewUrl`): the mission (slug
 * or ad hoc), goal, status, the plan's tasks (agent, skill, dependencies, status, the child run, an
 * excerpt of its output), artifacts, error, the last decision (headed by the stage it decided: "Plan
 * review" or "Result review"); the task graph drawn; its review item (assignee, note, snooze, due
 * time); and — with the approve capability, while it awaits review (of its plan or its result) —
 * approve (at plan review after editing the plan if need be: each task's title, agent, instructions
 * and dependencies, the diff before confirming) or reject, bound to the revision shown. Live while it
 * moves (its stream), so tasks starting and finishing, and the outcome of a decision, show without a
 * reload.
 */
import { useEffect, useState } from 'preact/hooks';

import { MISSION_EVENT_NAMES } from '../../../machines/shared/effects.js';
import { PageMessages } from '../components/page-messages.js';
import { PersonName } from '../components/person-name.js';
import { when } from '../format.js';
import { loadUsers } from '../people/people-data.js';
import { DecisionPanel } from '../review/decision-panel.js';
import { JsonBlock } from '../review/draft-view.js';
import { HeldDecision } from '../review/held-decision.js';
import { ItemFacts, REFUSAL_ID } from '../review/item-facts.js';
import { ItemLedger } from '../review/item-ledger.js';
import { ledgerVersion, useItemLedger } from '../review/ledger-data.js';
import { PlanEditor, type PlanTask, plannedTasks } from '../review/plan-editor.js';
import { useSubjectReview } from '../review/subject-review.js';
import { TaskGraph } from '../review/task-graph.js';
import { sessionStore } from '../stores/session-store.js';
import { useSelector } from '../stores/use-selector.js';
import type { MissionRun } from '../wire.js';

/** A task of a mission run's plan. */
type MissionTask = NonNullable<MissionRun['plan']>['tasks'][number];

import { LoadingPage } from './loading-page.js';
import { NotFoundPage } from './not-found-page.js';

/** The heading of the last decision, by the stage it decided. */
const DECISION_HEADINGS = { plan: 'Plan review', result: 'Result review' } as const;

/** How much of a task's output the screen shows. */
const EXCERPT = 600;

/** The first `EXCERPT` characters of a task's output: its `text`, else its JSON. */
function excerpt(output: Record<string, unknown>): string {
  const text = typeof output.text === 'string' ? output.text : JSON.stringify(output, null, 2);
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function TaskItem({ task }: { task: MissionTask }) {
  return (
    <li class="task" data-task={task.id}>
      <h3>
        {task.title} <span class="muted">({task.id})</span>
      </h3>
      <p class="instructions">{task.instructions}</p>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status status-${task.status}`}>{task.status}</span>
        </dd>
        <dt>Agent</dt>
        <dd>{task.agent}</dd>
        <dt>Skill</dt>
        <dd>{task.skill ?? '—'}</dd>
        <dt>Depends on</dt>
        <dd>{task.dependsOn.length > 0 ? task.dependsOn.join(', ') : '—'}</dd>
        <dt>Run</dt>
        <dd>
          {task.runId !== null ? (
            <a href={`/inspect/skill-run/${task.runId}`}>skill run {task.runId}</a>
          ) : (
            '—'
          )}
        </dd>
      </dl>
      {task.output && (
        <details open>
          <summary>Output</summary>
          <pre class="excerpt">{excerpt(task.output)}</pre>
        </details>
      )}
    </li>
  );
}

export function MissionReviewPage({ id }: { id: number }) {
  const session = useSelector(sessionStore, (c) => c.session);
  // The plan's tasks as the reviewer edits them at plan review (null: not editing).
  const [edited, setEdited] = useState<PlanTask[] | null>(null);
  useEffect(() => {
    if (session?.canApprove) void loadUsers();
  }, []);
  const { loaded, error, notice, stale, busy, decide, assign, snooze, undo, reload } =
    useSubjectReview<MissionRun>({
      kind: 'mission',
      id,
      path: `/mission-runs/${id}`,
      events: MISSION_EVENT_NAMES,
      people: (subject) => [subject.createdBy, subject.review?.by],
    });
  const review = loaded.state === 'loaded' ? loaded.review : null;
  const ledger = useItemLedger(review && 'mission', id, ledgerVersion(review));

  if (loaded.state === 'missing') return <NotFoundPage what="mission run" />;
  if (loaded.state === 'loading') return <LoadingPage error={error} />;
  const m = loaded.subject;
  const { policy } = loaded;
  // A decision taken with a delay waits for its effectiveAt: it may be undone, nothing else decided.
  const held = loaded.review?.status === 'deciding' ? loaded.review : null;
  const canDecide =
    !!session?.canApprove && m.status === 'awaiting_review' && (policy?.canDecide ?? true) && !held;
  const tasks = m.plan?.tasks ?? [];
  const atPlanReview = canDecide && m.reviewStage === 'plan' && m.plan !== null;
  const planned = plannedTasks(m);
  const planEdited =
    atPlanReview && edited !== null && JSON.stringify(edited) !== JSON.stringify(planned) ? edited : null;
  const edits = planEdited ? { plan: { tasks: planEdited } } : null;
  const changes = planEdited
    ? [{ label: 'Plan', before: { tasks: planned }, after: { tasks: planEdited } }]
    : [];
  const graphTasks = atPlanReview && edited ? edited : tasks;
  return (
    <main id="main" class="review-page">
      <p>
        <a href="/review">← Queue</a> · <a href={`/inspect/mission-run/${m.id}`}>Inspect the mission run</a>
      </p>
      <h1>
        {m.mission ?? 'Ad hoc mission'} <span class="muted">(mission run {m.id})</span>
      </h1>
      <PageMessages error={error} notice={notice} />
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status status-${m.status}`}>{m.status}</span>
          {m.status === 'awaiting_review' && m.reviewStage && ` (the ${m.reviewStage})`}
        </dd>
        <dt>Mission</dt>
        <dd>{m.mission ?? 'ad hoc'}</dd>
        <dt>Team</dt>
        <dd>
          {m.team
            .map((member) => (member.role ? `${member.agent} (${member.role})` : member.agent))
            .join(', ')}
        </dd>
        <dt>Started by</dt>
        <dd>
          <PersonName actor={m.createdBy} />
        </dd>
        <dt>Started</dt>
        <dd>{when(m.createdAt)}</dd>
        {m.completedAt && (
          <>
            <dt>Finished</dt>
            <dd>{when(m.completedAt)}</dd>
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
      <section aria-labelledby="goal-title">
        <h2 id="goal-title">Goal</h2>
        <p class="goal">{m.goal}</p>
        {Object.keys(m.input).length > 0 && (
          <details>
            <summary>Input</summary>
            <JsonBlock value={m.input} />
          </details>
        )}
      </section>
      {canDecide && (
        <DecisionPanel
          title={`Decide on the ${m.reviewStage ?? 'run'}`}
          busy={busy}
          changes={changes}
          invalid={false}
          stale={stale}
          approveRefusedBy={policy && !policy.canApprove ? REFUSAL_ID : undefined}
          onApprove={(note) =>
            void decide('approve', note, edits ? 'Approved with your plan.' : 'Approved.', edits).then(
              (decided) => decided && setEdited(null),
            )
          }
          onReject={(reason) => void decide('reject', reason, 'Rejected.')}
          onRequestChanges={
            m.reviewStage === 'plan'
              ? (reason) =>
                  void decide(
                    'request_changes',
                    reason,
                    'Sent back to the planner: a new plan is on its way.',
                  )
              : undefined
          }
        />
      )}
      {held && <HeldDecision review={held} busy={busy} onUndo={undo} onElapsed={reload} />}
      {!canDecide && stale && (
        <p class="notice stale" role="alert">
          {stale}
        </p>
      )}
      {m.error && (
        <section aria-labelledby="error-title">
          <h2 id="error-title">Error</h2>
          <p role="status">
            <code>{m.error.code}</code>
            {m.error.task && <> (task {m.error.task})</>}: {m.error.message}
          </p>
        </section>
      )}
      <section aria-labelledby="plan-title">
        <h2 id="plan-title">Plan</h2>
        {m.plan === null ? (
          <p class="muted">Not planned yet.</p>
        ) : (
          <>
            <TaskGraph tasks={graphTasks} />
            {atPlanReview && (
              <button type="button" onClick={() => setEdited(edited ? null : planned)}>
                {edited ? 'Discard changes to the plan' : 'Edit the plan before approving'}
              </button>
            )}
            {atPlanReview && edited ? (
              <PlanEditor tasks={edited} team={m.team.map((member) => member.agent)} onChange={setEdited} />
            ) : (
              <ol class="tasks">
                {tasks.map((task) => (
                  <TaskItem key={task.id} task={task} />
                ))}
              </ol>
            )}
          </>
        )}
      </section>
      <section aria-labelledby="artifacts-title">
        <h2 id="artifacts-title">Artifacts</h2>
        {m.artifacts.length === 0 ? (
          <p class="muted">None.</p>
        ) : (
          <ul class="artifacts">
            {m.artifacts.map((a) => (
              <li key={a.id}>
                <a href={`/api/v1/artifacts/${a.id}/content`}>{a.name}</a>{' '}
                <span class="muted">
                  ({a.mediaType}, {size(a.bytes)})
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      {review && <ItemLedger ledger={ledger} />}
      {m.review && (
        <section aria-labelledby="review-title">
          <h2 id="review-title">{m.review.stage ? DECISION_HEADINGS[m.review.stage] : 'Review'}</h2>
          <p>
            <strong>{m.review.decision}</strong> by <PersonName actor={m.review.by} />
            {m.review.onBehalfOf && <> for {m.review.onBehalfOf}</>} on {when(m.review.at)}
            {m.review.note && <> — note: {m.review.note}</>}
            {m.review.reason && <> — reason: {m.review.reason}</>}
          </p>
        </section>
      )}
    </main>
  );
}
