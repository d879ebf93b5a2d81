import { z } from 'zod';
import {
  runApproveEventSchema,
  runCancelEventSchema,
  runRejectEventSchema,
  runRequestChangesEventSchema,
  stepErrorSchema,
} from '../shared/run.js';
import { entityIdSchema, isoTimestampSchema, jsonObjectSchema, slugSchema } from '../shared/schemas.js';
import { MISSION_REVIEW_MODES } from './context.js';

/** What the host passes to `initialTransition(missionRunMachine, input)` when a mission run starts. */
export const missionRunInputSchema = z.strictObject({
  missionRunId: entityIdSchema,
  review: z.enum(MISSION_REVIEW_MODES),
  team: z.array(slugSchema).min(1),
  maxTasks: z.number().int().positive(),
  maxParallel: z.number().int().positive(),
  at: isoTimestampSchema,
});

/** Input of a mission run. */
export type MissionRunInput = z.infer<typeof missionRunInputSchema>;

/** The planner's run of attempt `attempt` completed with `output` (a plan, or not). */
export const planProposedEventSchema = z.strictObject({
  type: z.literal('PLAN_PROPOSED'),
  attempt: z.number().int().positive(),
  output: jsonObjectSchema,
  at: isoTimestampSchema,
});

/** The planner's run of attempt `attempt` failed, or was cancelled. */
export const plannerFailedEventSchema = z.strictObject({
  type: z.literal('PLANNER_FAILED'),
  attempt: z.number().int().positive(),
  error: stepErrorSchema,
  at: isoTimestampSchema,
});

/**
 * The child runs of tasks a transition started were created (in that transition's transaction): one
 * event for all of them, each `task` with its `runId`.
 */
export const taskStartedEventSchema = z.strictObject({
  type: z.literal('TASK_STARTED'),
  tasks: z.array(z.strictObject({ task: z.string().min(1), runId: entityIdSchema })).min(1),
  at: isoTimestampSchema,
});

/** Task `task`'s child run finished with `output`. */
export const taskSucceededEventSchema = z.strictObject({
  type: z.literal('TASK_SUCCEEDED'),
  task: z.string().min(1),
  output: jsonObjectSchema,
  at: isoTimestampSchema,
});

/** Task `task` failed: its child run failed or was cancelled, or it could not start (its agent inactive). */
export const taskFailedEventSchema = z.strictObject({
  type: z.literal('TASK_FAILED'),
  task: z.string().min(1),
  error: stepErrorSchema,
  at: isoTimestampSchema,
});

/** Every event a mission run understands. */
export const missionRunEventSchema = z.discriminatedUnion('type', [
  planProposedEventSchema,
  plannerFailedEventSchema,
  taskStartedEventSchema,
  taskSucceededEventSchema,
  taskFailedEventSchema,
  runApproveEventSchema,
  runRejectEventSchema,
  runRequestChangesEventSchema,
  runCancelEventSchema,
]);

/** An event of a mission run. */
export type MissionRunEvent = z.infer<typeof missionRunEventSchema>;
