/**
 * The review screen of a mission run (/review/missions/:id, the run's `reviewUrl`): the mission (slug
 * or ad hoc), goal, status, the plan's tasks (agent, skill, dependencies, status, the child run, an
 * excerpt of its output), artifacts, error, the last decision (headed by the stage it decided: "Plan
 * review" or "Result review"); and — with the approve capability, while it awaits review (of its plan
 * or its result) — approve or reject. Live while it moves (its stream), so tasks starting and
 * finishing, and the outcome of a decision, show without a reload.
 */

import { MISSION_EVENT_NAMES } from '../../../machines/shared/effects.js';
import { PersonName } from '../components/person-name.js';
import { when } from '../format.js';
import { DecideForms } from '../review/decide-forms.js';
import { JsonBlock } from '../review/draft-view.js';
import { useSubjectReview } from '../review/subject-review.js';
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
  const { loaded, error, notice, busy, decide } = useSubjectReview<MissionRun>({
    kind: 'mission',
    id,
    path: `/mission-runs/${id}`,
    events: MISSION_EVENT_NAMES,
    people: (subject) => [subject.createdBy, subject.review?.by],
  });

  if (loaded.state === 'missing') return <NotFoundPage what="mission run" />;
  if (loaded.state === 'loading') return <LoadingPage error={error} />;
  const m = loaded.subject;
  const canDecide = !!session?.canApprove && m.status === 'awaiting_review';
  const tasks = m.plan?.tasks ?? [];
  return (
    <main id="main" class="review-page">
      <p>
        <a href="/review">← Queue</a> · <a href={`/inspect/mission-run/${m.id}`}>Inspect the mission run</a>
      </p>
      <h1>
        {m.mission ?? 'Ad hoc mission'} <span class="muted">(mission run {m.id})</span>
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
        <section class="actions" aria-labelledby="decide-title">
          <h2 id="decide-title">Decide on the {m.reviewStage ?? 'run'}</h2>
          <DecideForms
            busy={busy}
            onApprove={(note) => void decide('approve', note, 'Approved.')}
            onReject={(reason) => void decide('reject', reason, 'Rejected.')}
          />
        </section>
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
          <ol class="tasks">
            {tasks.map((task) => (
              <TaskItem key={task.id} task={task} />
            ))}
          </ol>
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
