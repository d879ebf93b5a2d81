/**
 * A review policy in words, as the review screens, the queue and the policy page say it: how many
 * approvals an item has of how many it needs, who may approve, what happens at the due time. Pure:
 * no DOM, no store.
 */

/** Roles and users a policy names (approvers, escalateTo). */
export interface People {
  roles?: readonly string[] | undefined;
  users?: readonly string[] | undefined;
}

/** "1 of 2 approved, by ann" (ids are the users' names); "0 of 2 approved" before any. */
export function approvalsText(item: { required: number; approvals: ReadonlyArray<{ by: string }> }): string {
  const { required, approvals } = item;
  const by = approvals.map((a) => a.by).join(', ');
  return `${approvals.length} of ${required} approved${by ? `, by ${by}` : ''}`;
}

/** "roles pm, client_reviewer; users ann" — or `none` for no one named. */
export function peopleText(people: People | null | undefined, none: string): string {
  const roles = people?.roles ?? [];
  const users = people?.users ?? [];
  const parts = [
    roles.length > 0 ? `${roles.length === 1 ? 'role' : 'roles'} ${roles.join(', ')}` : '',
    users.length > 0 ? `${users.length === 1 ? 'user' : 'users'} ${users.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join('; ') : none;
}

/** Who may approve under a policy naming `approvers` (none: the approve capability decides). */
export const approversText = (approvers: People | null | undefined) =>
  peopleText(approvers, 'anyone who may approve reviews');

/** What the policy does when nobody decided by the due time. */
export function timeoutText(policy: { onTimeout: string; escalateTo?: People | null | undefined }): string {
  if (policy.onTimeout === 'reject') return 'rejected by r3';
  if (policy.onTimeout === 'escalate') return `escalated to ${peopleText(policy.escalateTo, 'nobody')}`;
  return 'nothing more (it stays in the queue, overdue)';
}
