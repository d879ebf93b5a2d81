import { z } from 'zod';
import { runErrorSchema, runReviewSchema, stepResultsSchema } from '../shared/run.js';
import {
  entityIdSchema,
  isoTimestampSchema,
  jsonObjectSchema,
  slugSchema,
  stepNameSchema,
} from '../shared/schemas.js';
import { workflowStepSchema } from './events.js';

/** The context of a workflow run, for validating snapshots loaded from the database. */
export const workflowRunContextSchema = z.strictObject({
  runId: entityIdSchema,
  slug: slugSchema,
  steps: z.array(workflowStepSchema).min(1),
  createdAt: isoTimestampSchema,
  /** The current step; `steps.length` once the run completed. */
  index: z.number().int().nonnegative(),
  stepResults: stepResultsSchema,
  /** The gate the run waits at; null when not paused (kept on a run cancelled while paused). */
  pausedAt: stepNameSchema.nullable(),
  /** The last skill step's output. */
  output: jsonObjectSchema.nullable(),
  /**
   * What the steps a reviewer edited at a gate had output before (step → output), kept beside the
   * edited `stepResults`; absent while none was edited.
   */
  draftOutput: z.record(stepNameSchema, jsonObjectSchema).nullable().optional(),
  error: runErrorSchema.nullable(),
  /** The last review decision. */
  review: runReviewSchema.nullable(),
  /** Tool calls its skill steps' models asked for so far (absent until the first). */
  toolCalls: z.number().int().min(0).optional(),
  /** When the run reached a final status (completed, failed or cancelled). */
  completedAt: isoTimestampSchema.nullable(),
});

/** The context of a workflow run. */
export type WorkflowRunContext = z.infer<typeof workflowRunContextSchema>;
