import { z } from 'zod';
import {
  runApproveEventSchema,
  runCancelEventSchema,
  runRejectEventSchema,
  runRequestChangesEventSchema,
  stepFailedEventSchema,
  stepSucceededEventSchema,
  toolCompletedEventSchema,
  toolsRequestedEventSchema,
} from '../shared/run.js';
import { entityIdSchema, isoTimestampSchema, jsonObjectSchema, slugSchema } from '../shared/schemas.js';

/** What the host passes to `initialTransition(skillRunMachine, input)` when a skill run is created. */
export const skillRunInputSchema = z.strictObject({
  runId: entityIdSchema,
  slug: slugSchema,
  requiresApproval: z.boolean(),
  /** What the run's review items are called (the skill's `titleTemplate` rendered over the input). */
  title: z.string().min(1).max(200).optional(),
  /** Turns to ask the model with after the prompt (a mission planner asked again): see the context's. */
  conversation: z.array(z.strictObject({ draft: jsonObjectSchema, reason: z.string().min(1) })).optional(),
  at: isoTimestampSchema,
});

/** Input of a skill run. */
export type SkillRunInput = z.infer<typeof skillRunInputSchema>;

/** Every event a skill run understands (whether a state accepts it is the machine's call). */
export const skillRunEventSchema = z.discriminatedUnion('type', [
  stepSucceededEventSchema,
  stepFailedEventSchema,
  toolsRequestedEventSchema,
  toolCompletedEventSchema,
  runApproveEventSchema,
  runRejectEventSchema,
  runRequestChangesEventSchema,
  runCancelEventSchema,
]);

/** An event of a skill run. */
export type SkillRunEvent = z.infer<typeof skillRunEventSchema>;
