import { z } from 'zod';
import {
  runApproveEventSchema,
  runCancelEventSchema,
  runRejectEventSchema,
  stepFailedEventSchema,
  stepResultsSchema,
  stepSucceededEventSchema,
  toolCompletedEventSchema,
  toolsRequestedEventSchema,
} from '../shared/run.js';
import {
  entityIdSchema,
  isoTimestampSchema,
  principalSchema,
  slugSchema,
  stepNameSchema,
} from '../shared/schemas.js';

/**
 * One step as the machine needs it: its name and type, plus an approve gate's review routing. (What
 * a skill step runs, and with which input, is the worker's business.)
 */
export const workflowStepSchema = z.strictObject({
  name: stepNameSchema,
  type: z.enum(['skill', 'approve']),
  title: z.string().min(1).optional(),
  assignTo: principalSchema.nullish(),
});

/** One step of a workflow run. */
export type WorkflowStep = z.infer<typeof workflowStepSchema>;

/** What the host passes to `initialTransition(workflowRunMachine, input)` when a workflow run is created. */
export const workflowRunInputSchema = z.strictObject({
  runId: entityIdSchema,
  slug: slugSchema,
  steps: z
    .array(workflowStepSchema)
    .min(1)
    .refine((steps) => new Set(steps.map((step) => step.name)).size === steps.length, {
      message: 'step names must be unique',
    }),
  at: isoTimestampSchema,
  /**
   * A fork's starting point (docs/api.md "Fork a run"): the index of the step it executes from, and
   * the results of every step before it, copied from the run it forks (`copied: true`).
   */
  from: z.strictObject({ index: z.number().int().nonnegative(), stepResults: stepResultsSchema }).optional(),
});

/** Input of a workflow run. */
export type WorkflowRunInput = z.infer<typeof workflowRunInputSchema>;

/**
 * A worker brought the run to the approve gate `step` (only for a gate the run starts at: a run
 * starts `running`, docs/api.md "Runs", and reaches its first gate through the worker).
 */
export const gateReachedEventSchema = z.strictObject({
  type: z.literal('GATE_REACHED'),
  step: stepNameSchema,
  at: isoTimestampSchema,
});

/** A worker brought the run to its first gate. */
export type GateReachedEvent = z.infer<typeof gateReachedEventSchema>;

/** Every event a workflow run understands (whether a state accepts it is the machine's call). */
export const workflowRunEventSchema = z.discriminatedUnion('type', [
  stepSucceededEventSchema,
  stepFailedEventSchema,
  gateReachedEventSchema,
  toolsRequestedEventSchema,
  toolCompletedEventSchema,
  runApproveEventSchema,
  runRejectEventSchema,
  runCancelEventSchema,
]);

/** An event of a workflow run. */
export type WorkflowRunEvent = z.infer<typeof workflowRunEventSchema>;
