/**
 * The org's review policies (/review/policies): each with who may approve, how many must, and its
 * due time, linking to its page (`GET /review-policies`, the first 200 by slug).
 */
import { approversText } from '../review/policy-words.js';
import { useRead } from '../use-read.js';
import type { ReviewPolicyRow } from '../wire.js';
import { LoadingPage } from './loading-page.js';

export function PoliciesPage() {
  const { value, error } = useRead<{ reviewPolicies: ReviewPolicyRow[] }>('/review-policies?limit=200');
  if (!value) return <LoadingPage error={error} />;
  const policies = value.reviewPolicies;
  return (
    <main id="main" class="policies-page">
      <p>
        <a href="/review">← Queue</a>
      </p>
      <h1>Review policies</h1>
      {policies.length === 0 ? (
        <p class="muted">
          None: every item follows the built-in policy (anyone who may approve reviews, one approval).
        </p>
      ) : (
        <ul class="used-by policies">
          {policies.map((p) => (
            <li key={p.slug}>
              <a href={`/review/policies/${encodeURIComponent(p.slug)}`}>{p.name}</a>
              {p.isDefault && (
                <>
                  {' '}
                  <span class="tag">default</span>
                </>
              )}{' '}
              <span class="muted">
                {approversText(p.approvers)} · {p.required === 1 ? 'one approval' : `${p.required} approvals`}
                {p.dueIn ? ` · due in ${p.dueIn}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
