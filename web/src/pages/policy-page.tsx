/**
 * A review policy's page (/review/policies/:slug, linked from every review screen of an item that
 * follows it): what it requires — who may approve, how many must, whether whoever started a run may
 * approve it, the due time, the reminder, what happens at the due time and to whom it escalates —
 * and which skills, workflow gates, missions and agents name it (`GET /review-policies/:slug`).
 */
import { when } from '../format.js';
import { approversText, peopleText, timeoutText } from '../review/policy-words.js';
import { useRead } from '../use-read.js';
import type { ReviewPolicy } from '../wire.js';
import { LoadingPage } from './loading-page.js';
import { NotFoundPage } from './not-found-page.js';

/** What names a policy, in words: "skill invoice", "workflow payout, gate 2". */
function userText(user: ReviewPolicy['usedBy'][number]): string {
  const step = /^steps\.(\d+)\./.exec(user.field);
  return step ? `gate at step ${Number(step[1]) + 1}` : user.kind;
}

function UsedBy({ policy }: { policy: ReviewPolicy }) {
  if (policy.usedBy.length === 0) {
    return (
      <p class="muted">
        {policy.isDefault
          ? 'Nothing names it: it applies to every item whose skill, gate, mission or agent names no policy.'
          : 'Nothing names it yet.'}
      </p>
    );
  }
  return (
    <ul class="used-by">
      {policy.usedBy.map((user) => (
        <li key={`${user.kind}:${user.slug}:${user.field}`}>
          <span class="tag">{user.kind}</span>{' '}
          {user.kind === 'skill' ? (
            <a href={`/skills/${encodeURIComponent(user.slug)}`}>{user.name}</a>
          ) : (
            user.name
          )}{' '}
          <span class="muted">
            ({user.slug}
            {user.kind === 'workflow' && `, ${userText(user)}`})
          </span>
        </li>
      ))}
    </ul>
  );
}

export function PolicyPage({ slug }: { slug: string }) {
  const {
    value: policy,
    missing,
    error,
  } = useRead<ReviewPolicy>(`/review-policies/${encodeURIComponent(slug)}`);
  if (missing) return <NotFoundPage what="review policy" />;
  if (!policy) return <LoadingPage error={error} />;
  const p = policy;
  return (
    <main id="main" class="policy-page">
      <p>
        <a href="/review">← Queue</a> · <a href="/review/policies">All review policies</a>
      </p>
      <h1>
        Review policy {p.name} <span class="muted">({p.slug})</span>
      </h1>
      {p.isDefault && (
        <p>The org’s default: it applies wherever a skill, gate, mission or agent names no policy.</p>
      )}
      {p.description && <p class="description">{p.description}</p>}
      <h2>What it requires</h2>
      <dl class="facts">
        <dt>Approvers</dt>
        <dd>{approversText(p.approvers)}</dd>
        <dt>Approvals needed</dt>
        <dd>{p.required === 1 ? 'one' : `${p.required}, by distinct people`}</dd>
        <dt>Self-approval</dt>
        <dd>
          {p.selfApproval
            ? 'allowed: whoever started a run may approve it'
            : 'not allowed: whoever started a run may not approve it'}
        </dd>
        <dt>Due</dt>
        <dd>{p.dueIn ? `${p.dueIn} after the item opens` : 'no due time'}</dd>
        <dt>Reminder</dt>
        <dd>{p.remindBefore ? `${p.remindBefore} before it is due` : 'none'}</dd>
        <dt>When overdue</dt>
        <dd>{p.dueIn ? timeoutText(p) : '—'}</dd>
        {p.escalateTo && p.onTimeout !== 'escalate' && (
          <>
            <dt>Escalate to</dt>
            <dd>{peopleText(p.escalateTo, '—')}</dd>
          </>
        )}
        <dt>Changed</dt>
        <dd>{when(p.updatedAt)}</dd>
      </dl>
      <h2>Used by</h2>
      <UsedBy policy={p} />
      <p class="muted">
        An item follows the policy of the workspace version its run started on: a change here applies to later
        runs.
      </p>
    </main>
  );
}
