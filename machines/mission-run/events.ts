import { z } from 'zod';
import {
  runApproveEventSchema,
  runCancelEventSchema,
  runRejectEventSchema,
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

/** Task `task`'s child run `runId` was created (in the transaction that started the task). */
export const taskStartedEventSchema = z.strictObject({
  type: z.literal('TASK_STARTED'),
  task: z.string().min(1),
  runId: entityIdSchema,
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
  runCancelEventSchema,
]);

/** An event of a mission run. */
export type MissionRunEvent = z.infer<typeof missionRunEventSchema>;
