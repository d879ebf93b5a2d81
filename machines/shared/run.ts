import { z } from 'zod';
import {
  attemptSchema,
  isoTimestampSchema,
  jsonObjectSchema,
  principalSchema,
  stepNameSchema,
} from './schemas.js';

/*
 * Events and context pieces shared by the two run machines (skill-run and workflow-run). A skill run
 * is a one-step run whose step is named after the skill's slug.
 */

/** A worker finished executing a step. */
export const stepSucceededEventSchema = z.strictObject({
  type: z.literal('STEP_SUCCEEDED'),
  step: stepNameSchema,
  attempt: attemptSchema,
  output: jsonObjectSchema,
  at: isoTimestampSchema,
});

/** A worker finished executing a step. */
export type StepSucceededEvent = z.infer<typeof stepSucceededEventSchema>;

/** The error a step reports. */
export const stepErrorSchema = z.strictObject({ code: z.string().min(1), message: z.string() });

/** A worker gave up on a step (its retries, if any, are the worker's business). */
export const stepFailedEventSchema = z.strictObject({
  type: z.literal('STEP_FAILED'),
  step: stepNameSchema,
  attempt: attemptSchema,
  error: stepErrorSchema,
  at: isoTimestampSchema,
});

/** A worker gave up on a step. */
export type StepFailedEvent = z.infer<typeof stepFailedEventSchema>;

/**
 * The step's model asked for tool calls (one turn of the tool loop); the worker records them as
 * `running` with this transition, before executing any.
 */
export const toolsRequestedEventSchema = z.strictObject({
  type: z.literal('TOOLS_REQUESTED'),
  step: stepNameSchema,
  attempt: attemptSchema,
  turn: z.number().int().min(1),
  calls: z.array(z.strictObject({ id: z.string().min(1).max(200), tool: z.string().min(1).max(200) })).min(1),
  at: isoTimestampSchema,
});

/** The step's model asked for tool calls. */
export type ToolsRequestedEvent = z.infer<typeof toolsRequestedEventSchema>;

/**
 * One call of the current turn finished (its result or error is recorded with this transition);
 * `remaining` calls of the turn are still executing (0: the model is asked next).
 */
export const toolCompletedEventSchema = z.strictObject({
  type: z.literal('TOOL_COMPLETED'),
  step: stepNameSchema,
  attempt: attemptSchema,
  callId: z.string().min(1).max(200),
  tool: z.string().min(1).max(200),
  status: z.enum(['ok', 'error']),
  errorCode: z.string().min(1).nullable(),
  remaining: z.number().int().min(0),
  at: isoTimestampSchema,
});

/** One tool call finished. */
export type ToolCompletedEvent = z.infer<typeof toolCompletedEventSchema>;

/**
 * A reviewer approved (a pending skill run, a paused workflow's gate, a mission run awaiting review),
 * maybe with edits, already checked by the review queue's choke point (decisions.md §15): a skill
 * run's `output` replaces its draft, a workflow's `stepOutputs` replace completed steps' outputs, a
 * mission's `plan` replaces the planner's at plan review.
 */
export const runApproveEventSchema = z.strictObject({
  type: z.literal('APPROVE'),
  by: principalSchema,
  onBehalfOf: principalSchema.nullish(),
  note: z.string().nullish(),
  output: jsonObjectSchema.optional(),
  stepOutputs: z.record(stepNameSchema, jsonObjectSchema).optional(),
  plan: jsonObjectSchema.optional(),
  at: isoTimestampSchema,
});

/** A reviewer approved. */
export type RunApproveEvent = z.infer<typeof runApproveEventSchema>;

/** A reviewer rejected (a pending skill run, or a paused workflow, which cancels it). */
export const runRejectEventSchema = z.strictObject({
  type: z.literal('REJECT'),
  by: principalSchema,
  onBehalfOf: principalSchema.nullish(),
  reason: z.string().nullish(),
  at: isoTimestampSchema,
});

/** A reviewer rejected. */
export type RunRejectEvent = z.infer<typeof runRejectEventSchema>;

/** How many times a reviewer may send one subject's draft back (decisions.md §15: at most 5 rounds). */
export const MAX_REVIEW_ROUNDS = 5;

/**
 * A reviewer sent the draft back with a reason (decisions.md §15 "Request changes"), already checked
 * by the review queue's choke point: the model is asked again with its draft and the reason as turns.
 */
export const runRequestChangesEventSchema = z.strictObject({
  type: z.literal('REQUEST_CHANGES'),
  by: principalSchema,
  onBehalfOf: principalSchema.nullish(),
  reason: z.string().min(1).max(10_000),
  at: isoTimestampSchema,
});

/** A reviewer sent the draft back. */
export type RunRequestChangesEvent = z.infer<typeof runRequestChangesEventSchema>;

/**
 * One round of review that ended in a change request: the draft sent back and the reviewer's reason
 * (the run object's `rounds`). The next draft is asked for with these as conversation turns.
 */
export const reviewRoundSchema = z.strictObject({
  draft: jsonObjectSchema,
  reason: z.string().min(1),
  by: principalSchema,
  onBehalfOf: principalSchema.nullable(),
  at: isoTimestampSchema,
});

/** One round of review that ended in a change request. */
export type ReviewRound = z.infer<typeof reviewRoundSchema>;

/** The round a REQUEST_CHANGES event records about `draft`. */
export function roundFrom(event: RunRequestChangesEvent, draft: Record<string, unknown>): ReviewRound {
  return {
    draft: draft as ReviewRound['draft'],
    reason: event.reason,
    by: event.by,
    onBehalfOf: event.onBehalfOf ?? null,
    at: event.at,
  };
}

/** A caller cancelled the run: a hard stop that cannot be resumed. */
export const runCancelEventSchema = z.strictObject({
  type: z.literal('CANCEL'),
  by: principalSchema,
  at: isoTimestampSchema,
});

/** A caller cancelled the run. */
export type RunCancelEvent = z.infer<typeof runCancelEventSchema>;

/** The last review decision on a run (the run object's `review`). */
export const runReviewSchema = z.strictObject({
  decision: z.enum(['approved', 'rejected']),
  by: principalSchema,
  onBehalfOf: principalSchema.nullable(),
  note: z.string().nullable(),
  reason: z.string().nullable(),
  /** The reviewer edited what they approved (absent: not edited). */
  edited: z.boolean().optional(),
  at: isoTimestampSchema,
});

/** The last review decision on a run. */
export type RunReview = z.infer<typeof runReviewSchema>;

/** The `error` of a failed run; `step` is set by workflow runs. */
export const runErrorSchema = z.strictObject({
  code: z.string().min(1),
  message: z.string(),
  step: stepNameSchema.optional(),
});

/** The `error` of a failed run. */
export type RunError = z.infer<typeof runErrorSchema>;

/**
 * A run's `stepResults`: step name → `{output}`; `copied: true` on a fork's results taken from the run
 * it forks (never executed by the fork).
 */
export const stepResultsSchema = z.record(
  stepNameSchema,
  z.strictObject({ output: jsonObjectSchema, copied: z.literal(true).optional() }),
);

/** A run's `stepResults`. */
export type StepResults = z.infer<typeof stepResultsSchema>;

/** The review decision an APPROVE or REJECT event carries, in the run object's `review` shape. */
export function reviewFrom(event: RunApproveEvent | RunRejectEvent): RunReview {
  const approved = event.type === 'APPROVE';
  return {
    decision: approved ? 'approved' : 'rejected',
    by: event.by,
    onBehalfOf: event.onBehalfOf ?? null,
    note: approved ? (event.note ?? null) : null,
    reason: approved ? null : (event.reason ?? null),
    ...(approved && isEdit(event) ? { edited: true } : {}),
    at: event.at,
  };
}

/** Whether an APPROVE carries edits. */
export function isEdit(event: RunApproveEvent): boolean {
  return event.output !== undefined || event.stepOutputs !== undefined || event.plan !== undefined;
}
