import { z } from 'zod';
import { entityIdSchema, isoTimestampSchema, jsonObjectSchema, principalSchema } from '../shared/schemas.js';

/** Why an execution attempt failed: the connector's error code and its own words. */
export const proposalErrorSchema = z.strictObject({
  code: z.string().min(1).max(100),
  message: z.string().max(10_000),
});

/** Why an execution attempt failed. */
export type ProposalError = z.infer<typeof proposalErrorSchema>;

/** The reviewer's decision on a proposal (the shape of a run's `review`). */
export const proposalReviewSchema = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  by: principalSchema,
  onBehalfOf: z.string().nullable(),
  note: z.string().nullable(),
  reason: z.string().nullable(),
  /** The reviewer edited the params (absent: not edited). */
  edited: z.boolean().optional(),
  at: isoTimestampSchema,
});

/** The reviewer's decision on a proposal. */
export type ProposalReview = z.infer<typeof proposalReviewSchema>;

/** The context of a proposal, for validating snapshots loaded from the database. */
export const proposalContextSchema = z.strictObject({
  proposalId: entityIdSchema,
  /** The action's name (`crm.update_deal`, …); its params live in the row, fixed at creation. */
  action: z.string().min(1),
  /** The slug of the source whose connector executes it. */
  source: z.string().min(1),
  createdAt: isoTimestampSchema,
  review: proposalReviewSchema.nullable(),
  /** The params a reviewer approved, when they edited the proposed ones (which the row keeps). */
  approvedParams: jsonObjectSchema.nullable().optional(),
  /** Who cancelled it and why, once cancelled. */
  cancelled: z
    .strictObject({ by: principalSchema, reason: z.string().nullable(), at: isoTimestampSchema })
    .nullable(),
  /** Execution attempts started so far. */
  attempts: z.number().int().nonnegative(),
  /** When the first attempt started: the same on every retry (connectors date their effect with it). */
  firstAttemptAt: isoTimestampSchema.nullable(),
  /** What the executed action recorded. */
  result: jsonObjectSchema.nullable(),
  /** The last attempt's failure (kept while a retry is due, final once `failed`). */
  error: proposalErrorSchema.nullable(),
  /** When it reached executed, failed, rejected or cancelled. */
  completedAt: isoTimestampSchema.nullable(),
});

/** The context of a proposal. */
export type ProposalContext = z.infer<typeof proposalContextSchema>;
