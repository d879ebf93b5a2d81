import { z } from 'zod';
import {
  attemptSchema,
  entityIdSchema,
  isoTimestampSchema,
  jsonObjectSchema,
  principalSchema,
} from '../shared/schemas.js';
import { proposalErrorSchema } from './context.js';

/** What the host passes to `initialTransition(proposalMachine, input)` when `propose_action` is called. */
export const proposalInputSchema = z.strictObject({
  proposalId: entityIdSchema,
  action: z.string().min(1),
  source: z.string().min(1),
  at: isoTimestampSchema,
});

/** Input of a proposal. */
export type ProposalInput = z.infer<typeof proposalInputSchema>;

/**
 * A reviewer approved it (decide approve): it is to be executed — with `params` when the reviewer
 * edited them (the whole params, already merged and checked by the review queue's choke point).
 */
export const proposalApproveEventSchema = z.strictObject({
  type: z.literal('APPROVE'),
  by: principalSchema,
  onBehalfOf: z.string().nullish(),
  note: z.string().nullish(),
  params: jsonObjectSchema.optional(),
  at: isoTimestampSchema,
});

/** A reviewer rejected it (decide reject): it is never executed. */
export const proposalRejectEventSchema = z.strictObject({
  type: z.literal('REJECT'),
  by: principalSchema,
  onBehalfOf: z.string().nullish(),
  reason: z.string().nullish(),
  at: isoTimestampSchema,
});

/** Withdrawn before a decision (`POST /proposals/:id/cancel`): never executed. */
export const proposalCancelEventSchema = z.strictObject({
  type: z.literal('CANCEL'),
  by: principalSchema,
  reason: z.string().nullish(),
  at: isoTimestampSchema,
});

/** A worker starts execution attempt `attempt` (the next one). */
export const executionStartedEventSchema = z.strictObject({
  type: z.literal('EXECUTION_STARTED'),
  attempt: attemptSchema,
  at: isoTimestampSchema,
});

/** The connector carried the current attempt out; `result` is what it recorded. */
export const executionSucceededEventSchema = z.strictObject({
  type: z.literal('EXECUTION_SUCCEEDED'),
  attempt: attemptSchema,
  result: jsonObjectSchema,
  at: isoTimestampSchema,
});

/**
 * The current attempt failed. `retry: true` (the upstream was down, slow or busy and attempts are
 * left): the job tries again later and the proposal stays `executing` with the error shown;
 * otherwise it is `failed`.
 */
export const executionFailedEventSchema = z.strictObject({
  type: z.literal('EXECUTION_FAILED'),
  attempt: attemptSchema,
  error: proposalErrorSchema,
  retry: z.boolean(),
  at: isoTimestampSchema,
});

/** Every event a proposal understands (whether a state accepts it is the machine's call). */
export const proposalEventSchema = z.discriminatedUnion('type', [
  proposalApproveEventSchema,
  proposalRejectEventSchema,
  proposalCancelEventSchema,
  executionStartedEventSchema,
  executionSucceededEventSchema,
  executionFailedEventSchema,
]);

/** An event of a proposal. */
export type ProposalEvent = z.infer<typeof proposalEventSchema>;
