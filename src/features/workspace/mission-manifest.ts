/**
 * The mission manifest (`missions/<slug>.yaml`, docs/api.md#missions): a goal for a team of agents, planned
 * by one of them (the planner) into a task graph, reviewed at the plan, the result (the default) or both.
 * Cross-resource rules (team agents exist and are active) are
 * `validateWorkspace`'s; the rules within one manifest (a member at most once, the planner a member,
 * limits in range) are here.
 */
import { z } from 'zod';
import { descriptionSchema, jsonSchemaSchema, nameSchema, slugSchema } from './manifest-fields.js';

/** Default and largest number of tasks a plan may have. */
export const DEFAULT_MAX_TASKS = 20;
export const MAX_MAX_TASKS = 100;
/** Default and largest number of tasks executing at once. */
export const DEFAULT_MAX_PARALLEL = 3;
export const MAX_MAX_PARALLEL = 20;
/**
 * Default and largest tool-call budget of one task (docs/api.md#authored-resources-the-workspace: at most
 * 50).
 */
export const DEFAULT_MAX_TOOL_CALLS = 50;
export const MAX_MAX_TOOL_CALLS = 50;

/** Where a mission run waits for a reviewer. */
export const MISSION_REVIEW_MODES = ['plan', 'result', 'both'] as const;

/** One member of a mission's team: an agent and what it does there. */
export const teamMemberSchema = z.strictObject({
  agent: slugSchema,
  role: z.string().max(500).default(''),
});

/** A team: 1–20 agents, each at most once. */
export const teamSchema = z
  .array(teamMemberSchema)
  .min(1)
  .max(20)
  .superRefine((team, ctx) => {
    const seen = new Set<string>();
    team.forEach((member, index) => {
      if (seen.has(member.agent)) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'agent'],
          message: `"${member.agent}" is listed twice`,
        });
      }
      seen.add(member.agent);
    });
  });

/** A mission's limits; each defaults when omitted. */
export const missionLimitsSchema = z.strictObject({
  maxTasks: z.number().int().min(1).max(MAX_MAX_TASKS).default(DEFAULT_MAX_TASKS),
  maxParallel: z.number().int().min(1).max(MAX_MAX_PARALLEL).default(DEFAULT_MAX_PARALLEL),
  maxToolCalls: z.number().int().min(1).max(MAX_MAX_TOOL_CALLS).default(DEFAULT_MAX_TOOL_CALLS),
});
/** A mission's limits. */
export type MissionLimits = z.output<typeof missionLimitsSchema>;

const missionFields = {
  name: nameSchema,
  description: descriptionSchema,
  /** A template over `{{input.x}}`. */
  goal: z.string().min(1).max(20_000),
  inputSchema: jsonSchemaSchema,
  team: teamSchema,
  planner: slugSchema,
  review: z.enum(MISSION_REVIEW_MODES),
  limits: missionLimitsSchema,
  reviewPolicy: slugSchema,
};

function checkPlanner(
  mission: { planner?: string | undefined; team: { agent: string }[] },
  ctx: z.RefinementCtx,
) {
  if (mission.planner !== undefined && !mission.team.some((m) => m.agent === mission.planner)) {
    ctx.addIssue({
      code: 'custom',
      path: ['planner'],
      message: `the planner "${mission.planner}" is not a member of the team`,
    });
  }
}

/**
 * A mission manifest. Required: `slug`, `name`, `goal`, `team`. Defaults: description `''`,
 * inputSchema `{type: 'object'}`, planner the first member, review `result`, limits
 * `{maxTasks: 20, maxParallel: 3, maxToolCalls: 50}`.
 */
export const missionManifestSchema = z
  .strictObject({
    slug: slugSchema,
    name: missionFields.name,
    description: missionFields.description.default(''),
    goal: missionFields.goal,
    inputSchema: missionFields.inputSchema.default(() => ({ type: 'object' })),
    team: missionFields.team,
    planner: missionFields.planner.optional(),
    review: missionFields.review.default('result'),
    limits: missionFields.limits.default(() => ({
      maxTasks: DEFAULT_MAX_TASKS,
      maxParallel: DEFAULT_MAX_PARALLEL,
      maxToolCalls: DEFAULT_MAX_TOOL_CALLS,
    })),
    /** The review policy of its runs' items (`review-policies/<slug>.yaml`); absent: the org's `default`. */
    reviewPolicy: missionFields.reviewPolicy.optional(),
  })
  .superRefine(checkPlanner);
/** A validated mission manifest (see {@link plannerOf} for its planner). */
export type MissionManifest = z.output<typeof missionManifestSchema>;

/** Any subset of a mission's fields (body of `PATCH /missions/:slug`). */
export const missionManifestPatchSchema = z
  .strictObject({ ...missionFields, slug: slugSchema, reviewPolicy: missionFields.reviewPolicy.nullable() })
  .partial();

/** The mission's planner: `planner`, or the first member of the team. */
export function plannerOf(mission: Pick<MissionManifest, 'planner' | 'team'>): string {
  return mission.planner ?? (mission.team[0]?.agent as string);
}
