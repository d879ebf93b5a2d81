import { z } from 'zod';
import { reviewRoundSchema, runErrorSchema, runReviewSchema } from '../shared/run.js';
import { entityIdSchema, isoTimestampSchema, jsonObjectSchema, slugSchema } from '../shared/schemas.js';

/** Where a mission run is reviewed. */
export const MISSION_REVIEW_MODES = ['plan', 'result', 'both'] as const;

/** What a mission run's review decides: its plan (before any task starts) or its result. */
export const MISSION_REVIEW_STAGES = ['plan', 'result'] as const;

/**
 * A review decision on a mission run (the mission run object's `review`): a run's decision and the
 * stage it decided. Decisions persisted before the stage was recorded have none: they load as null.
 */
const missionReviewSchema = runReviewSchema.extend({
  stage: z.enum(MISSION_REVIEW_STAGES).nullable().default(null),
});

/** A review decision on a mission run, with the stage it decided. */
export type MissionReview = z.infer<typeof missionReviewSchema>;

/** A task's statuses: waiting for its dependencies (or a slot), executing, and how it ended. */
export const MISSION_TASK_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;

/** One task of a mission run's plan, with its state. */
export const missionTaskSchema = z.strictObject({
  id: z.string().min(1),
  title: z.string(),
  agent: slugSchema,
  skill: slugSchema.nullable(),
  instructions: z.string(),
  dependsOn: z.array(z.string()),
  status: z.enum(MISSION_TASK_STATUSES),
  /** The task's child skill run, once started. */
  runId: entityIdSchema.nullable(),
  output: jsonObjectSchema.nullable(),
});

/** One task of a mission run. */
export type MissionTask = z.infer<typeof missionTaskSchema>;

/** The context of a mission run, for validating snapshots loaded from the database. */
export const missionRunContextSchema = z.strictObject({
  missionRunId: entityIdSchema,
  createdAt: isoTimestampSchema,
  review: z.enum(MISSION_REVIEW_MODES),
  /** The team's agents, in order (a plan may use these only). */
  team: z.array(slugSchema).min(1),
  maxTasks: z.number().int().positive(),
  maxParallel: z.number().int().positive(),
  /** The planner attempt in progress or last made (1, or 2 after an invalid plan was sent back). */
  planAttempt: z.number().int().positive(),
  /**
   * The rounds of plan review that sent the plan back (decisions.md §15 "Request changes"), oldest
   * first: each plan (`{tasks}` as the planner proposed it) and the reviewer's reason. Absent: none.
   */
  planRounds: z.array(reviewRoundSchema).optional(),
  /** The first planner attempt of the current round (absent: 1); an invalid plan is retried once per round. */
  planRoundStart: z.number().int().positive().optional(),
  /** Why the last proposed plan was refused (sent back to the planner with attempt 2). */
  planErrors: z.array(z.string()).nullable(),
  /** The accepted plan with each task's state; null while planning. */
  plan: z.strictObject({ tasks: z.array(missionTaskSchema) }).nullable(),
  /** The planner's plan, kept when a reviewer approved an edit of it (`plan` is then the edit). */
  draftPlan: z
    .strictObject({ tasks: z.array(missionTaskSchema) })
    .nullable()
    .optional(),
  /** What the run waits for in `awaiting_review`: the plan or the result; null otherwise. */
  reviewStage: z.enum(MISSION_REVIEW_STAGES).nullable(),
  error: runErrorSchema.extend({ task: z.string().optional() }).nullable(),
  /** The last review decision, with the stage it decided. */
  decision: missionReviewSchema.nullable(),
  completedAt: isoTimestampSchema.nullable(),
});

/** The context of a mission run. */
export type MissionRunContext = z.infer<typeof missionRunContextSchema>;
