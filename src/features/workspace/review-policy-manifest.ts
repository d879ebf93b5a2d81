/**
 * The review policy manifest (`review-policies/<slug>.yaml`, decisions.md §16, docs/api.md "Review
 * policies"): who may decide a review item (`approvers`), whether the user who started the run may
 * approve it (`selfApproval`), how many distinct users must approve (`required`), and the item's
 * deadline (`dueIn`, `remindBefore`, `escalateTo`, `onTimeout`). Skills, workflow approve steps,
 * missions and agents (for their proposals) name one with `reviewPolicy: <slug>`; the org's policy
 * `default` applies where none is named, and {@link BUILT_IN_POLICY} where the org has no `default`.
 *
 * The rules within one policy (durations in range, `remindBefore` not longer than `dueIn`, `escalate`
 * with somewhere to escalate to) are here; that each user it names exists in the org is checked by
 * the workspace's write path (`policyUserIssues`), which can read the users table.
 */
import { z } from 'zod';
import { ROLES, type Role } from '../../platform/auth/principal.js';
import { parseDuration } from '../../platform/util/duration.js';
import { descriptionSchema, nameSchema, slugSchema, uniqueItems } from './manifest-fields.js';

/** The policy an org's items follow where no resource names one (when the org has one). */
export const DEFAULT_POLICY_SLUG = 'default';

/** Most approvals a policy may require. */
export const MAX_REQUIRED = 5;

/** Shortest and longest duration a policy may set. */
export const MIN_POLICY_DURATION_MS = 1_000;
export const MAX_POLICY_DURATION_MS = 365 * 24 * 3_600_000;

/** What becomes of an item nobody decided by its due time. */
export const ON_TIMEOUT = ['none', 'escalate', 'reject'] as const;
export type OnTimeout = (typeof ON_TIMEOUT)[number];

/** A duration as the configuration writes it (`30s`, `15m`, `4h`), between 1 s and 365 days. */
export const policyDurationSchema = z
  .string()
  .max(32)
  .superRefine((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be a duration such as "30s", "15m" or "4h"' });
    } else if (ms < MIN_POLICY_DURATION_MS || ms > MAX_POLICY_DURATION_MS) {
      ctx.addIssue({ code: 'custom', message: 'must be at least 1s and at most 8760h (365 days)' });
    }
  });

/** A user id as tokens name it (`--user`). */
const userIdSchema = z.string().min(1).max(128);

/** Users and roles (who may approve; whom to escalate to): each listed at most once. */
const peopleSchema = z
  .strictObject({
    roles: z.array(z.enum(ROLES)).max(ROLES.length).superRefine(uniqueItems).optional(),
    users: z.array(userIdSchema).max(100).superRefine(uniqueItems).optional(),
  })
  .superRefine((people, ctx) => {
    if ((people.roles?.length ?? 0) + (people.users?.length ?? 0) === 0) {
      ctx.addIssue({ code: 'custom', message: 'must name at least one role or user' });
    }
  });
/** Roles and users. */
export type PolicyPeople = z.output<typeof peopleSchema>;

const policyFields = {
  name: nameSchema,
  description: descriptionSchema,
  approvers: peopleSchema,
  required: z.number().int().min(1).max(MAX_REQUIRED),
  selfApproval: z.boolean(),
  dueIn: policyDurationSchema,
  remindBefore: policyDurationSchema,
  escalateTo: peopleSchema,
  onTimeout: z.enum(ON_TIMEOUT),
};

/** The rules between a policy's fields (each reported at the field to change). */
function checkPolicy(
  policy: {
    dueIn?: string | undefined;
    remindBefore?: string | undefined;
    escalateTo?: PolicyPeople | undefined;
    onTimeout?: OnTimeout | undefined;
  },
  ctx: z.RefinementCtx,
) {
  const dueIn = policy.dueIn === undefined ? undefined : parseDuration(policy.dueIn);
  const remindBefore = policy.remindBefore === undefined ? undefined : parseDuration(policy.remindBefore);
  if (policy.remindBefore !== undefined && policy.dueIn === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['remindBefore'],
      message: 'needs dueIn: a reminder is before a due time',
    });
  } else if (dueIn !== undefined && remindBefore !== undefined && remindBefore > dueIn) {
    ctx.addIssue({
      code: 'custom',
      path: ['remindBefore'],
      message: `must not be longer than dueIn (${policy.dueIn})`,
    });
  }
  const onTimeout = policy.onTimeout ?? 'none';
  if (onTimeout !== 'none' && policy.dueIn === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['onTimeout'],
      message: `"${onTimeout}" needs dueIn: a timeout is at a due time`,
    });
  }
  if (onTimeout === 'escalate' && policy.escalateTo === undefined) {
    ctx.addIssue({ code: 'custom', path: ['escalateTo'], message: 'onTimeout "escalate" needs escalateTo' });
  }
}

/**
 * A review policy (`review-policies/<slug>.yaml`, body of `POST /review-policies`). Required: `slug`,
 * `name`. Defaults: description `''`, required 1, selfApproval true, onTimeout `none`; `approvers`
 * absent: whoever has the approve capability.
 */
export const reviewPolicyManifestSchema = z
  .strictObject({
    slug: slugSchema,
    name: policyFields.name,
    description: policyFields.description.default(''),
    approvers: policyFields.approvers.optional(),
    required: policyFields.required.default(1),
    selfApproval: policyFields.selfApproval.default(true),
    dueIn: policyFields.dueIn.optional(),
    remindBefore: policyFields.remindBefore.optional(),
    escalateTo: policyFields.escalateTo.optional(),
    onTimeout: policyFields.onTimeout.default('none'),
  })
  .superRefine(checkPolicy);
/** A validated review policy manifest. */
export type ReviewPolicyManifest = z.output<typeof reviewPolicyManifestSchema>;

/** Any subset of a policy's fields (body of `PATCH /review-policies/:slug`); `null` removes an optional one. */
export const reviewPolicyManifestPatchSchema = z
  .strictObject({
    ...policyFields,
    slug: slugSchema,
    approvers: policyFields.approvers.nullable(),
    dueIn: policyFields.dueIn.nullable(),
    remindBefore: policyFields.remindBefore.nullable(),
    escalateTo: policyFields.escalateTo.nullable(),
  })
  .partial();

/** A policy as enforcement and timers use it: defaults filled, durations in milliseconds. */
export interface ReviewPolicyRules {
  /** null: whoever has the approve capability may decide. */
  approvers: { roles: Role[]; users: string[] } | null;
  required: number;
  selfApproval: boolean;
  dueInMs: number | null;
  remindBeforeMs: number | null;
  escalateTo: { roles: Role[]; users: string[] } | null;
  onTimeout: OnTimeout;
}

/** What applies where neither a resource nor the org names a policy: one approval by anyone who may approve. */
export const BUILT_IN_POLICY: Readonly<ReviewPolicyRules> = Object.freeze({
  approvers: null,
  required: 1,
  selfApproval: true,
  dueInMs: null,
  remindBeforeMs: null,
  escalateTo: null,
  onTimeout: 'none',
});

const people = (p: PolicyPeople | undefined) => (p ? { roles: p.roles ?? [], users: p.users ?? [] } : null);
const ms = (text: string | undefined) => (text === undefined ? null : (parseDuration(text) ?? null));

/** The rules of a validated manifest. */
export function policyRules(manifest: ReviewPolicyManifest): ReviewPolicyRules {
  return {
    approvers: people(manifest.approvers),
    required: manifest.required,
    selfApproval: manifest.selfApproval,
    dueInMs: ms(manifest.dueIn),
    remindBeforeMs: ms(manifest.remindBefore),
    escalateTo: people(manifest.escalateTo),
    onTimeout: manifest.onTimeout,
  };
}

/** The users a policy names (approvers and escalateTo), each with the field that names it. */
export function policyUsers(
  manifest: ReviewPolicyManifest,
): Array<{ path: (string | number)[]; user: string }> {
  const found: Array<{ path: (string | number)[]; user: string }> = [];
  for (const field of ['approvers', 'escalateTo'] as const) {
    (manifest[field]?.users ?? []).forEach((user, index) => {
      found.push({ path: [field, 'users', index], user });
    });
  }
  return found;
}
