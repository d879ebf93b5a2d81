/**
 * What a review policy demands of a decision (decisions.md §16), as the choke point's `checkPolicy`
 * stage (decisions.ts) applies it to every decision path:
 *
 * - `approvers`: only those roles or users may decide (approve, reject, or anything else) — 403
 *   `FORBIDDEN`, `details.reason: "not_an_approver"` — or be assigned the item (400);
 * - `selfApproval: false`: the user who started the run (for an action: the run that proposed it)
 *   may not approve it — 403, `details.reason: "self_approval"`; no role is exempt;
 * - `required: N`: N distinct users approve; each approval but the last is recorded on the item
 *   (`quorumStep` → `record`), the last decides; the same user again is 409 `CONFLICT`,
 *   `details.reason: "already_approved"`. A reject by any approver rejects.
 */
import type { LoadedActor } from '../../../platform/actors/host.js';
import { canApprove, type Principal } from '../../../platform/auth/principal.js';
import { type ApiError, conflict, forbidden, validationFailed } from '../../../platform/errors.js';
import type { ReviewPolicyRules } from '../../workspace/index.js';
import type { PolicyInForce } from './in-force.js';

/** Why a policy refused a decision (`details.reason` of the 403). */
export type PolicyRefusal = 'not_an_approver' | 'self_approval';

/** "roles pm, owner; users ann" — who the policy lets decide. */
export function approversText(approvers: NonNullable<ReviewPolicyRules['approvers']>): string {
  return [...approvers.roles, ...approvers.users].join(', ');
}

/** Whether `user` (its id and role) is one of the policy's approvers (anyone, when it names none). */
export function isApprover(rules: ReviewPolicyRules, user: { id: string; role: string }): boolean {
  const approvers = rules.approvers;
  if (!approvers) return true;
  return (approvers.roles as readonly string[]).includes(user.role) || approvers.users.includes(user.id);
}

const policyName = (policy: PolicyInForce) =>
  policy.slug === null ? 'the built-in policy' : `review policy "${policy.slug}"`;

/** A refusal by the policy: the 403's `details.reason`, its message and its `details`. */
export interface Refusal {
  reason: PolicyRefusal;
  message: string;
  details: Record<string, unknown>;
}

/**
 * Why `policy` does not let `principal` take `action` on the item — not an approver (any action), or
 * the run's own starter approving under `selfApproval: false` — or null when it does. The one text
 * of a refusal: the choke point's 403 and the review page's "you may not" say the same.
 */
export function policyRefusal(principal: Principal, policy: PolicyInForce, action: string): Refusal | null {
  const { rules } = policy;
  if (rules.approvers && !isApprover(rules, { id: principal.userId, role: principal.role })) {
    const text = approversText(rules.approvers);
    return {
      reason: 'not_an_approver',
      message: `Only the approvers of ${policyName(policy)} may decide this item (approvers: ${text}).`,
      details: { reason: 'not_an_approver', policy: policy.slug, approvers: rules.approvers },
    };
  }
  if (action === 'approve' && !rules.selfApproval && policy.startedBy === principal.userId) {
    return {
      reason: 'self_approval',
      message: `You started this run: ${policyName(policy)} does not let whoever started a run approve it (selfApproval: false).`,
      details: { reason: 'self_approval', policy: policy.slug },
    };
  }
  return null;
}

/** Throws 403 FORBIDDEN when `policy` does not let `principal` take `action` on the item (`policyRefusal`). */
export function checkPolicy(principal: Principal, policy: PolicyInForce, action: string): void {
  const refusal = policyRefusal(principal, policy, action);
  if (refusal) throw forbidden(refusal.message, refusal.details);
}

/** A policy in force as the API shows it on an item (`GET /reviews/:kind/:id`'s `policy`). */
export function policyView(policy: PolicyInForce, caller: CallerView) {
  const m = policy.manifest;
  return {
    slug: policy.slug,
    name: policy.name,
    source: policy.source,
    namedBy: policy.namedBy,
    workspaceSha: policy.workspaceSha,
    approvers: policy.rules.approvers,
    required: policy.rules.required,
    selfApproval: policy.rules.selfApproval,
    dueIn: m?.dueIn ?? null,
    remindBefore: m?.remindBefore ?? null,
    escalateTo: policy.rules.escalateTo,
    onTimeout: policy.rules.onTimeout,
    ...caller,
  };
}

/** Why the caller may not decide or approve an item (`policy.refusal.reason` of `GET /reviews/:kind/:id`). */
export type CallerRefusal = 'no_approve_capability' | PolicyRefusal | 'already_approved';

/** What the caller may do on an item under its policy, and if not, why (the words a decision's 403/409 say). */
export interface CallerView {
  /** May decide the item at all (reject, request changes): the approve capability and an approver. */
  canDecide: boolean;
  /** May approve it now: `canDecide`, not the run's starter under `selfApproval: false`, no approval of theirs yet. */
  canApprove: boolean;
  /** The first reason that applies, or null when the caller may approve. */
  refusal: { reason: CallerRefusal; message: string } | null;
}

/**
 * What `principal` may do on an item that follows `policy` and has `approvals` so far — known before
 * clicking, the same checks (and words) as the choke point's.
 */
export function callerView(
  principal: Principal,
  policy: PolicyInForce,
  approvals: ReadonlyArray<{ by: string }>,
): CallerView {
  if (!canApprove(principal)) {
    const message =
      'You may not decide reviews: that needs a user whose role is owner, pm or client_reviewer and a token with the run:approve scope.';
    return { canDecide: false, canApprove: false, refusal: { reason: 'no_approve_capability', message } };
  }
  const refusal = policyRefusal(principal, policy, 'approve');
  if (refusal) {
    const canDecide = refusal.reason !== 'not_an_approver';
    return { canDecide, canApprove: false, refusal: { reason: refusal.reason, message: refusal.message } };
  }
  if (approvals.some((a) => a.by === principal.userId)) {
    return {
      canDecide: true,
      canApprove: false,
      refusal: {
        reason: 'already_approved',
        message: 'You approved this item already: another approver must.',
      },
    };
  }
  return { canDecide: true, canApprove: true, refusal: null };
}

/** The approvals so far of an open item, and how many it needs. */
export function approvalsOf(item: LoadedActor): {
  required: number;
  approvals: Array<{ by: string; at: string }>;
} {
  const context = item.snapshot.context as {
    required?: number;
    approvals?: Array<{ by: string; at: string }>;
  };
  return { required: context.required ?? 1, approvals: context.approvals ?? [] };
}

/** 409: `userId` approved the item already. */
export function alreadyApproved(ref: { kind: string; id: number }, userId: string): ApiError {
  return conflict(
    `Review item ${ref.kind} ${ref.id}: ${userId} has approved it already; another approver must.`,
    {
      reason: 'already_approved',
      by: userId,
    },
  );
}

/**
 * What `principal`'s approval does to `item`: `decide` when it is the last one needed, `record`
 * while more are needed. 409 when the user approved it already; 400 for edits with an approval that
 * is not the last (edits go with the approval that decides).
 */
export function quorumStep(
  item: LoadedActor,
  principal: Principal,
  ref: { kind: string; id: number },
  edits: unknown,
): 'decide' | 'record' {
  const { required, approvals } = approvalsOf(item);
  if (approvals.some((a) => a.by === principal.userId)) throw alreadyApproved(ref, principal.userId);
  if (approvals.length + 1 >= required) return 'decide';
  if (edits != null) {
    throw validationFailed([
      {
        field: 'body.edits',
        message: `this item needs ${required} approvals (${approvals.length} so far): edits go with the last one`,
      },
    ]);
  }
  return 'record';
}
