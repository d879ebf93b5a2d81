import { z } from 'zod';
import { entityIdSchema, isoTimestampSchema, principalSchema } from '../shared/schemas.js';

/** A reviewer's decision on an item. */
export const reviewDecisionSchema = z.strictObject({
  /** `request_changes`: the draft went back with `reason`; the subject's next draft opens a new item. */
  action: z.enum(['approve', 'reject', 'request_changes']),
  by: principalSchema,
  reason: z.string().nullable(),
  /** Whether the reviewer's edits were applied with it (absent: none were). */
  edited: z.boolean().optional(),
  at: isoTimestampSchema,
});

/** A reviewer's decision on an item. */
export type ReviewDecision = z.infer<typeof reviewDecisionSchema>;

/** What the policy in force says of an item's deadline (decisions §16), resolved when it opens. */
export const reviewDeadlinePolicySchema = z.strictObject({
  /** How long after opening the item is due (and how much later again after an escalation). */
  dueInMs: z.number().int().positive(),
  /** How long before `dueAt` the `due_soon` reminder goes out; null: no reminder. */
  remindBeforeMs: z.number().int().positive().nullable(),
  onTimeout: z.enum(['none', 'escalate', 'reject']),
  /** The user an escalation assigns the item to (the first of the policy's `escalateTo`); null: none. */
  escalateTo: principalSchema.nullable(),
});

/** What the policy in force says of an item's deadline. */
export type ReviewDeadlinePolicy = z.infer<typeof reviewDeadlinePolicySchema>;

/**
 * Where an item's deadline stands: `pending` (not due yet, no reminder sent), `reminded` (the
 * `due_soon` reminder went out), `escalated` (assigned to `escalateTo`, due again one `dueIn` later),
 * `overdue` (due, nothing more to do), `timed_out` (due, and rejected as `system:timeout`).
 */
export const REVIEW_DEADLINE_STAGES = ['pending', 'reminded', 'escalated', 'overdue', 'timed_out'] as const;

/** Where an item's deadline stands. */
export type ReviewDeadlineStage = (typeof REVIEW_DEADLINE_STAGES)[number];

/** An item's deadline: the policy's terms, when it is due and where it stands. */
export const reviewDeadlineSchema = reviewDeadlinePolicySchema.extend({
  dueAt: isoTimestampSchema,
  stage: z.enum(REVIEW_DEADLINE_STAGES),
});

/** An item's deadline. */
export type ReviewDeadline = z.infer<typeof reviewDeadlineSchema>;
/** One approval of an item that needs several (a review policy's `required`). */
export const reviewApprovalSchema = z.strictObject({
  /** The approving user's id. */
  by: principalSchema,
  at: isoTimestampSchema,
});

/** One approval of an item that needs several. */
export type ReviewApproval = z.infer<typeof reviewApprovalSchema>;

/**
 * A decision taken with a delay (decisions.md §15 "Undo"): what the reviewer decided, kept while the
 * item is `deciding` and dispatched to the subject's owner at `effectiveAt` (the `decide` timer)
 * exactly as it would have been at once — attributed to the reviewer, with their edits, reason and
 * request — unless undone before.
 */
export const deferredDecisionSchema = z.strictObject({
  action: z.enum(['approve', 'reject']),
  by: principalSchema,
  /** The decider's API token (the owner's transition at `effectiveAt` is attributed to it); null: none. */
  apiTokenId: z.string().nullable(),
  /** The review's note (approve) or reason (reject). */
  reason: z.string().nullable(),
  /** The human the caller acted for. */
  reviewedBy: z.string().nullable(),
  /** The approval's edits, as the choke point checked them; null: none. */
  edits: z.record(z.string(), z.json()).nullable(),
  /** How the audit row of the owner's transition names the call (`review.decide`, `run.approve`, …). */
  auditAction: z.string().min(1),
  requestId: z.string().nullable(),
  /** When the reviewer decided. */
  at: isoTimestampSchema,
  /** When the decision takes effect (the `decide` timer's due time). */
  effectiveAt: isoTimestampSchema,
});

/** A decision taken with a delay. */
export type DeferredDecision = z.infer<typeof deferredDecisionSchema>;

/** The context of a review item, for validating snapshots loaded from the database. */
export const reviewItemContextSchema = z.strictObject({
  kind: z.enum(['skill', 'workflow', 'mission', 'action']),
  runId: entityIdSchema,
  title: z.string().min(1),
  /**
   * What the item is about in one line (the draft's first 200 characters, the action's description);
   * null when there is nothing to show yet (absent on items opened before summaries).
   */
  summary: z.string().nullable().optional(),
  createdAt: isoTimestampSchema,
  /** Change requests made on the subject before this item opened (absent: none; decisions.md §15). */
  rounds: z.number().int().min(0).optional(),
  assignedTo: principalSchema.nullable(),
  /** The note of the latest routing (an ASSIGN without a note clears it). */
  note: z.string().nullable(),
  /** Set only while snoozed. */
  snoozedUntil: isoTimestampSchema.nullable(),
  decision: reviewDecisionSchema.nullable(),
  /**
   * The decision waiting for its `effectiveAt` while the item is `deciding`; once it took effect, kept
   * as the record of when it was asked for (null, or absent on older items: none).
   */
  deciding: deferredDecisionSchema.nullable().optional(),
  /** The last decision undone before it took effect (null, or absent: none). */
  undone: deferredDecisionSchema.nullable().optional(),
  /** When the item was decided or cancelled. */
  closedAt: isoTimestampSchema.nullable(),
  /** The item's deadline; null when its policy sets no `dueIn` (absent on items opened before deadlines). */
  deadline: reviewDeadlineSchema.nullable().optional(),
  /**
   * How many distinct users must approve (the review policy's `required`, as the item opened; absent
   * on items opened before policies: 1).
   */
  required: z.number().int().min(1).max(5).optional(),
  /** The approvals so far of an item that needs several, oldest first (absent: none). */
  approvals: z.array(reviewApprovalSchema).optional(),
});

/** The context of a review item. */
export type ReviewItemContext = z.infer<typeof reviewItemContextSchema>;
