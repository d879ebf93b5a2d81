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
  /** When the item was decided or cancelled. */
  closedAt: isoTimestampSchema.nullable(),
  /** The item's deadline; null when its policy sets no `dueIn` (absent on items opened before deadlines). */
  deadline: reviewDeadlineSchema.nullable().optional(),
});

/** The context of a review item. */
export type ReviewItemContext = z.infer<typeof reviewItemContextSchema>;
