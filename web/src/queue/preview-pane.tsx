/**
 * Beside the queue's list: the item open (the cursor's) as the reviewer will decide it — its review
 * policy and, when it needs several approvals, how many it has and whose; why this reviewer may not
 * approve it, if so (Approve is then disabled: the policy would refuse it) — what it is about, the
 * draft rendered and the input (skill and workflow runs), the action and what it will do
 * (proposals), the plan's tasks (missions) — with Approve, Reject and (a draft or a plan) Request
 * changes, and the notice shown when the item changed or was decided elsewhere while it was open.
 */
import { PersonName } from '../components/person-name.js';
import { ActionEffect } from '../review/action-effect.js';
import { DraftView, JsonBlock } from '../review/draft-view.js';
import { approvalsText } from '../review/policy-words.js';
import { MAX_ROUNDS } from '../review/screen-decisions.js';
import type { PreviewContext } from '../stores/preview-store.js';
import type { MissionRun, Proposal, ReviewItem, Run } from '../wire.js';
import { reviewPath } from './queue-list.js';

export function PreviewPane(props: {
  preview: PreviewContext;
  canAct: boolean;
  shortcuts: boolean;
  onApprove: () => void;
  onReject: () => void;
  onRequestChanges: () => void;
}) {
  const { review, subject, stale, error, policy } = props.preview;
  const refusal = policy?.refusal?.reason === 'no_approve_capability' ? null : (policy?.refusal ?? null);
  return (
    <section class="preview" aria-labelledby="preview-title" aria-busy={review === null && !error}>
      {stale && (
        <p class="notice stale" role="alert">
          {stale}
        </p>
      )}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : review === null ? (
        <p class="muted" id="preview-title">
          {props.preview.key ? 'Loading…' : 'Nothing to preview.'}
        </p>
      ) : (
        <>
          <h2 id="preview-title">
            <a href={reviewPath(review)}>{review.title}</a>
          </h2>
          <p class="meta muted">
            <span class="tag">{review.kind}</span>{' '}
            {review.assignedTo ? (
              <>
                assigned to <PersonName actor={review.assignedTo} />
              </>
            ) : (
              'unassigned'
            )}
            {review.note && <> · note: {review.note}</>}
            {policy?.slug && (
              <>
                {' '}
                · policy <a href={`/review/policies/${encodeURIComponent(policy.slug)}`}>{policy.name}</a>
              </>
            )}
          </p>
          {review.required > 1 && <p class="approvals">{approvalsText(review)}</p>}
          {review.revision !== null && refusal && (
            <p class="notice refusal" id="preview-refusal">
              {refusal.message}
            </p>
          )}
          {review.summary && <p class="summary">{review.summary}</p>}
          <SubjectPreview review={review} subject={subject} />
          {props.canAct && review.revision !== null && policy?.canDecide !== false && (
            <div class="row">
              <button
                type="button"
                class="primary"
                disabled={refusal !== null}
                aria-describedby={refusal ? 'preview-refusal' : undefined}
                onClick={props.onApprove}
              >
                Approve{props.shortcuts ? ' (a)' : ''}
              </button>
              <button type="button" class="danger" onClick={props.onReject}>
                Reject{props.shortcuts ? ' (r)' : ''}
              </button>
              {takesChanges(review, subject) && (
                <button type="button" onClick={props.onRequestChanges}>
                  Request changes{props.shortcuts ? ' (c)' : ''}
                </button>
              )}
            </div>
          )}
        </>
      )}
    </section>
  );
}

/**
 * Whether the item open may be sent back with a reason: a skill run's draft that is in (under the
 * rounds' limit), or a mission's plan at plan review.
 */
export function takesChanges(review: ReviewItem, subject: unknown): boolean {
  if (review.revision === null || subject === null || subject === undefined) return false;
  if (review.kind === 'skill') {
    const output = (subject as Run).output;
    return output !== null && output !== undefined && review.rounds < MAX_ROUNDS;
  }
  return review.kind === 'mission' && (subject as MissionRun).reviewStage === 'plan';
}

/** What the decision is about, by kind. */
function SubjectPreview(props: { review: ReviewItem; subject: unknown }) {
  const { review, subject } = props;
  if (subject === null || subject === undefined) return null;
  if (review.kind === 'skill' || review.kind === 'workflow') {
    const run = subject as Run;
    return (
      <>
        <h3>{review.kind === 'workflow' ? `Output before the gate “${run.pausedAt ?? ''}”` : 'Draft'}</h3>
        <DraftView output={run.output} runId={run.id} />
        <h3>Input</h3>
        <JsonBlock value={run.input} bounded />
      </>
    );
  }
  if (review.kind === 'action') {
    const proposal = subject as Proposal;
    return (
      <>
        <h3>What will happen</h3>
        <p>
          <code>{proposal.action}</code> on <code>{proposal.source}</code>
        </p>
        <ActionEffect proposal={proposal} />
        {proposal.rationale && <p class="rationale">Why: {proposal.rationale}</p>}
      </>
    );
  }
  const mission = subject as MissionRun;
  const tasks = mission.plan?.tasks ?? [];
  return (
    <>
      <h3>Plan</h3>
      {tasks.length === 0 ? (
        <p class="muted">No plan yet.</p>
      ) : (
        <ol class="tasks">
          {tasks.map((task) => (
            <li key={task.id}>
              <strong>{task.title}</strong> ({task.agent}): {task.instructions}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
