/**
 * What needs review, per resource: a skill's `requiresApproval`, a workflow's approve steps (where
 * they stand among its steps), a mission's `review` (plan, result or both). Changing it — switching review off or on, moving or removing an
 * approve step, deleting a resource under review (deleting and re-creating it would switch review
 * off) — needs the approve capability, as deciding reviews does: otherwise anyone who may write
 * resources could let their next run skip the queue. Creating a resource, whatever its policy, and
 * edits that leave the policy as it was need only `write:resources`.
 */
import type { Attribution } from '../../platform/auth/attribution.js';
import { forbidden } from '../../platform/errors.js';
import type { WorkspaceResource } from './manifests.js';

/** No review: what a resource without a policy has. */
const NONE = 'none';

/** The review policy of `resource` as comparable text (`none` when nothing of it is reviewed). */
export function reviewPolicyOf(resource: WorkspaceResource): string {
  switch (resource.kind) {
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
            ? { approve: step.name, assignTo: step.assignTo ?? null }
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
  for (const resource of before) {
    const was = reviewPolicyOf(resource);
    const now = next.get(keyOf(resource));
    // Deleted: a change when it was under review.
    if (now === undefined ? was !== NONE : now !== was) changed.push(keyOf(resource));
  }
  if (changed.length === 0) return;
  throw forbidden(
    `Changing what needs review (${changed.join(', ')}) needs the approve capability (role owner or ` +
      'reviewer with run:approve), as deciding reviews does.',
    { resources: changed, requiredScope: ['run:approve'] },
  );
}
