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
});

/** The context of a review item. */
export type ReviewItemContext = z.infer<typeof reviewItemContextSchema>;
