/**
 * What needs review, per resource: a skill's `requiresApproval`, a workflow's approve steps (where
 * they stand among its steps), a mission's `review` (plan, result or both). Changing it — switching review off or on, moving or removing an
 * approve step, deleting a resource under review (deleting and re-creating it would switch review
 * off) — needs the approve capability, as deciding reviews does: otherwise anyone who may write
 * resources could let their next run skip the queue. So does writing a review policy
 * (`review-policies/<slug>.yaml`: who may approve, how many must) and changing, or creating a resource
 * with, the `reviewPolicy` it names (decisions.md §16: a specialist may not). Creating a resource
 * that names no policy, whatever its requiresApproval, and edits that leave the policy as it was need
 * only `write:resources`.
 */
import type { Attribution } from '../../platform/auth/attribution.js';
import { forbidden } from '../../platform/errors.js';
import type { WorkspaceResource } from './manifests.js';

/** No review: what a resource without a policy has. */
const NONE = 'none';

/**
 * The review policy of `resource` as comparable text (`none` when nothing of it is reviewed): with the
 * review policy it names (`reviewPolicy`, decisions.md §16), and for a review policy itself, all of it.
 */
export function reviewPolicyOf(resource: WorkspaceResource): string {
  const own = reviewPolicyOfOwn(resource);
  const named = 'reviewPolicy' in resource.manifest ? resource.manifest.reviewPolicy : undefined;
  return named === undefined ? own : `${own} policy:${named}`;
}

function reviewPolicyOfOwn(resource: WorkspaceResource): string {
  switch (resource.kind) {
    case 'review_policy':
      return JSON.stringify(resource.manifest);
    case 'skill':
      return resource.manifest.requiresApproval ? 'skill:requiresApproval' : NONE;
    case 'workflow': {
      const steps = resource.manifest.steps;
      if (!steps.some((step) => step.type === 'approve')) return NONE;
      // Where each approve step stands among the others: adding, moving or removing a step around
      // one changes what the reviewer sees before the run goes on.
      return JSON.stringify(
        steps.map((step) =>
          step.type === 'approve'
            ? { approve: step.name, assignTo: step.assignTo ?? null, policy: step.reviewPolicy ?? null }
            : { step: step.name },
        ),
      );
    }
    case 'mission':
      // Every mission is reviewed somewhere (plan, result or both): which is the policy.
      return `mission:${resource.manifest.review}`;
    default:
      return NONE;
  }
}

const keyOf = (resource: WorkspaceResource) => `${resource.kind}:${resource.manifest.slug}`;

/**
 * Throws 403 FORBIDDEN when going from `before` to `after` changes what needs review and `by` may not
 * change it; the details name each resource.
 */
export function assertReviewPolicyKept(
  before: readonly WorkspaceResource[],
  after: readonly WorkspaceResource[],
  by: Attribution,
): void {
  if (by.mayChangeReview === true) return;
  const next = new Map(after.map((resource) => [keyOf(resource), reviewPolicyOf(resource)]));
  const changed: string[] = [];
  const was = new Set<string>();
  for (const resource of before) {
    was.add(keyOf(resource));
    const policy = reviewPolicyOf(resource);
    const now = next.get(keyOf(resource));
    // Deleted: a change when it was under review.
    if (now === undefined ? policy !== NONE : now !== policy) changed.push(keyOf(resource));
  }
  // A new review policy, or a new resource naming one, decides who may approve: as a change does.
  for (const resource of after) {
    if (was.has(keyOf(resource))) continue;
    if (
      resource.kind === 'review_policy' ||
      ('reviewPolicy' in resource.manifest && resource.manifest.reviewPolicy !== undefined)
    ) {
      changed.push(keyOf(resource));
    }
  }
  if (changed.length === 0) return;
  throw forbidden(
    `Changing what needs review (${changed.join(', ')}) needs the approve capability (role owner or ` +
      'reviewer with run:approve), as deciding reviews does.',
    { resources: changed, requiredScope: ['run:approve'] },
  );
}
