import { z } from 'zod';
import { reviewRoundSchema, runErrorSchema, runReviewSchema, stepResultsSchema } from '../shared/run.js';
import { entityIdSchema, isoTimestampSchema, jsonObjectSchema, slugSchema } from '../shared/schemas.js';

/** A skill run's review lane: `auto` when it never entered the review queue. */
export const SKILL_RUN_REVIEW_STATES = ['auto', 'pending', 'approved', 'rejected'] as const;

/** A skill run's review lane. */
export type SkillRunReviewState = (typeof SKILL_RUN_REVIEW_STATES)[number];

/** The context of a skill run, for validating snapshots loaded from the database. */
export const skillRunContextSchema = z.strictObject({
  runId: entityIdSchema,
  slug: slugSchema,
  requiresApproval: z.boolean(),
  /** What the run's review items are called, when its skill names them (`titleTemplate`). */
  title: z.string().min(1).max(200).optional(),
  createdAt: isoTimestampSchema,
  /** The step reported success: `output` and `stepResults[slug]` are set. */
  draftReady: z.boolean(),
  output: jsonObjectSchema.nullable(),
  /** The model's draft, kept when a reviewer approved an edit of it (`output` is then the edit). */
  draftOutput: jsonObjectSchema.nullable().optional(),
  stepResults: stepResultsSchema,
  error: runErrorSchema.nullable(),
  review: runReviewSchema.nullable(),
  reviewState: z.enum(SKILL_RUN_REVIEW_STATES),
  /**
   * The rounds of review that ended in a change request, oldest first (absent: none). The step's
   * attempt is one more than their number; its model is asked with each draft and reason as turns.
   */
  rounds: z.array(reviewRoundSchema).optional(),
  /**
   * Turns the run was created with, before its own rounds (a mission planner's earlier plans and the
   * reviewers' reasons): each draft an assistant turn, each reason a user turn.
   */
  conversation: z.array(z.strictObject({ draft: jsonObjectSchema, reason: z.string().min(1) })).optional(),
  /** Tool calls the step's model asked for so far (absent on runs created before the tool loop). */
  toolCalls: z.number().int().min(0).optional(),
  /** When the run reached its final status (approved, rejected, completed, failed or cancelled). */
  completedAt: isoTimestampSchema.nullable(),
});

/** The context of a skill run. */
export type SkillRunContext = z.infer<typeof skillRunContextSchema>;
