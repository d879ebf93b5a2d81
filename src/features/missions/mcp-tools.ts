/**
 * The missions group of MCP tools (docs/api.md#missions): `mission_list`, `mission_start`,
 * `mission_list_runs`, `mission_get_run`, `mission_approve`, `mission_cancel`, `mission_promote`.
 * Each runs under the caller's principal with the REST route's access; errors are the REST ones,
 * with body fields named `arguments.*`.
 */
import { z } from 'zod';
import { attributionOf } from '../../platform/auth/attribution.js';
import { access } from '../../platform/auth/guard.js';
import type { Bus } from '../../platform/bus/bus.js';
import { missionEventsPattern } from '../../platform/bus/subjects.js';
import { conflict, validationFailed } from '../../platform/errors.js';
import type { Logger } from '../../platform/log.js';
import { runTaskKind, type TaskKind, type TaskState } from '../../platform/mcp/tasks.js';
import {
  bodyFieldsAsArguments,
  defineTool,
  READ_ONLY,
  type ToolContext,
  type ToolDef,
} from '../../platform/mcp/tool.js';
import { activeTraceId } from '../../platform/tracing/tracing.js';
import { delaySecondsSchema, type ReviewDecisions } from '../reviews/index.js';
import {
  missionDetailSchema,
  slugSchema,
  type WorkspaceServices,
  workflowManifestSchema,
  writeResultSchema,
} from '../workspace/index.js';
import { promotedResources } from './promote.js';
import { adHocTeamSchema, MISSION_RUN_STATUS_FILTERS } from './routes/mission-runs.js';
import { MissionService, type StartBody } from './service.js';
import { type MissionRunView, missionRunViewSchema } from './view.js';

const missionRunIdSchema = z
  .number()
  .int()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .describe('The mission run id (missionRunId).');

const PAGE = 200;

/** A mission as `mission_list` lists it. */
const missionListedSchema = missionDetailSchema.pick({
  slug: true,
  name: true,
  description: true,
  goal: true,
  team: true,
  planner: true,
  review: true,
});

/** The arguments of `mission_start`. */
const startArgsSchema = z.strictObject({
  missionSlug: slugSchema.optional(),
  team: adHocTeamSchema.optional(),
  goal: z.string().min(1).max(20_000).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  idempotencyKey: z.string().min(1).max(255).optional(),
});

/** The prefix of mission run tasks' ids (`mission-7`). */
const MISSION_TASK = 'mission';

/** A mission run as a task (tasks.ts): planning and executing are working; awaiting review needs input. */
export function missionTaskState(run: MissionRunView, lastUpdatedAt: string): TaskState {
  const stamps = { createdAt: run.createdAt, lastUpdatedAt };
  switch (run.status) {
    case 'awaiting_review':
      return {
        status: 'input_required',
        statusMessage: `The ${run.reviewStage ?? 'run'} waits for review: ${run.reviewUrl}`,
        ...stamps,
      };
    case 'completed':
    case 'cancelled':
      return { status: run.status, ...stamps };
    case 'failed': {
      const error = run.error as { code?: string; message?: string } | null;
      return {
        status: 'failed',
        statusMessage: `${error?.code ?? 'FAILED'}: ${error?.message ?? ''}`,
        ...stamps,
      };
    }
    default:
      return {
        status: 'working',
        statusMessage: run.status === 'planning' ? 'Planning.' : 'Executing.',
        ...stamps,
      };
  }
}

/** Mission runs as tasks (`mission-<id>`): started by mission_start; the result is its answer, final. */
export function missionTasks(missions: MissionService, deps: { bus: Bus; log: Logger }): TaskKind {
  return runTaskKind(deps, {
    prefix: MISSION_TASK,
    readAccess: access.read,
    cancelAccess: access.invoke,
    read: (principal, id) => missions.get(principal, id),
    updatedAt: (principal, id) => missions.updatedAt(principal, id),
    stateOf: missionTaskState,
    events: (orgId, id) => missionEventsPattern(String(orgId), id),
    answer: (run) => ({ missionRunId: run.id, status: run.status }),
    cancel: (principal, id, requestId) => missions.cancel(principal, id, { requestId }),
  });
}

export function missionTools(
  missions: MissionService,
  s: Pick<WorkspaceServices, 'resources' | 'workspace'>,
  decisions: ReviewDecisions,
): ToolDef[] {
  /** Starts a mission run as POST /mission-runs does; its id. */
  const start = async (args: z.output<typeof startArgsSchema>, ctx: ToolContext) => {
    let body: StartBody;
    if (args.missionSlug !== undefined) {
      if (args.team !== undefined || args.goal !== undefined) {
        throw validationFailed([
          { field: 'arguments.missionSlug', message: 'give either missionSlug, or team and goal, not both' },
        ]);
      }
      body = { missionSlug: args.missionSlug, input: args.input, idempotencyKey: args.idempotencyKey };
    } else if (args.team !== undefined && args.goal !== undefined) {
      body = { team: args.team, goal: args.goal, input: args.input, idempotencyKey: args.idempotencyKey };
    } else {
      throw validationFailed([
        {
          field: args.team === undefined ? 'arguments.team' : 'arguments.goal',
          message: 'is required without missionSlug (an ad hoc mission needs team and goal)',
        },
      ]);
    }
    try {
      const { answer } = await missions.start(ctx.principal, body, {
        method: 'POST',
        path: '/api/v1/mission-runs',
        requestId: ctx.requestId,
        traceId: activeTraceId(),
      });
      return { missionRunId: answer.missionRunId, status: answer.status };
    } catch (error) {
      throw bodyFieldsAsArguments(error);
    }
  };
  return [
    defineTool({
      name: 'mission_list',
      title: 'List missions',
      group: 'missions',
      description: 'The missions of the organization (slug, name, description, goal, team, review), by slug.',
      input: z.strictObject({}),
      output: z.object({ missions: z.array(missionListedSchema) }),
      access: access.read,
      hints: READ_ONLY,
      async run(_args, { principal }) {
        const list = [];
        let after: string | undefined;
        do {
          const page = await s.resources.listMissions(principal.orgId, { limit: PAGE, after });
          for (const item of page.items) {
            const detail = await s.resources.mission(principal.orgId, item.slug);
            if (detail) {
              list.push({
                slug: detail.slug,
                name: detail.name,
                description: detail.description,
                goal: detail.goal,
                team: detail.team,
                planner: detail.planner,
                review: detail.review,
              });
            }
          }
          after = page.nextAfter ?? undefined;
        } while (after !== undefined);
        return { missions: list };
      },
    }),
    defineTool({
      name: 'mission_start',
      title: 'Start a mission run',
      group: 'missions',
      description:
        'Starts a mission run from a mission (`missionSlug`, with `input` matching its inputSchema) or ad ' +
        'hoc (`team`: agent slugs or [{agent, role}], and `goal`). Answers {missionRunId, status} at once; ' +
        'follow it with mission_get_run. As a task: the task is the mission run (input_required while it ' +
        'waits for review); its result is {missionRunId, status} once the run is over.',
      input: startArgsSchema,
      output: z.object({
        missionRunId: missionRunViewSchema.shape.id,
        status: missionRunViewSchema.shape.status,
      }),
      access: access.invoke,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: start,
      task: { kind: MISSION_TASK, start: async (args, ctx) => (await start(args, ctx)).missionRunId },
    }),
    defineTool({
      name: 'mission_list_runs',
      title: 'List mission runs',
      group: 'missions',
      description:
        'Mission runs of the organization, newest first, optionally of one status. Answers {missionRuns}.',
      input: z.strictObject({
        status: z.enum(MISSION_RUN_STATUS_FILTERS).optional(),
        limit: z.number().int().min(1).max(200).default(50).describe('At most this many (default 50).'),
      }),
      output: z.object({ missionRuns: z.array(missionRunViewSchema) }),
      access: access.read,
      hints: READ_ONLY,
      async run({ status, limit }, { principal }) {
        const page = await missions.list(principal, { status, limit });
        return { missionRuns: page.missionRuns };
      },
    }),
    defineTool({
      name: 'mission_get_run',
      title: 'Get a mission run',
      group: 'missions',
      description:
        'One mission run as GET /api/v1/mission-runs/:id answers it: status, goal, plan (tasks with status, ' +
        'runId, output), artifacts, review, error.',
      input: z.strictObject({ missionRunId: missionRunIdSchema }),
      output: missionRunViewSchema,
      access: access.read,
      hints: READ_ONLY,
      run: ({ missionRunId }, { principal }) => missions.get(principal, missionRunId),
    }),
    defineTool({
      name: 'mission_approve',
      title: 'Approve a mission run',
      group: 'missions',
      description:
        'Approves a mission run awaiting review: its plan (it goes on executing) or its result (it completes). ' +
        'Pass the review item’s `revision` you read (GET /reviews/mission/:id): CONFLICT (details.reason ' +
        '"stale") when it changed since. delaySeconds (0–30) holds the decision that long (the review item is ' +
        'deciding; POST /reviews/undo withdraws it). Needs the approve capability; CONFLICT when the run is ' +
        'not awaiting review.',
      input: z.strictObject({
        missionRunId: missionRunIdSchema,
        note: z.string().max(10_000).optional(),
        revision: z
          .string()
          .min(1)
          .max(100)
          .optional()
          .describe('The review item’s revision you decided on; CONFLICT when stale.'),
        plan: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(
            'At plan review: a plan ({tasks: [...]}) that replaces the planner’s, checked as its would be.',
          ),
        delaySeconds: delaySecondsSchema,
      }),
      output: missionRunViewSchema,
      access: access.approve,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async run({ missionRunId, note, revision, plan, delaySeconds }, ctx) {
        await decisions.decide(ctx.principal, {
          kind: 'mission',
          id: missionRunId,
          action: 'approve',
          reason: note ?? null,
          revision: revision ?? null,
          edits: plan === undefined ? null : { plan },
          delaySeconds,
          requestId: ctx.requestId,
          auditAction: 'mission_run.approve',
          refusal: (status) => MissionService.decisionRefused(missionRunId, 'approve', status),
        });
        return missions.get(ctx.principal, missionRunId);
      },
    }),
    defineTool({
      name: 'mission_cancel',
      title: 'Cancel a mission run',
      group: 'missions',
      description:
        'Cancels a mission run that is planning, awaiting review or executing, and its running child runs. ' +
        'CONFLICT from a final status.',
      input: z.strictObject({ missionRunId: missionRunIdSchema, reason: z.string().max(10_000).optional() }),
      output: missionRunViewSchema,
      access: access.invoke,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      run: ({ missionRunId, reason }, ctx) =>
        missions.cancel(ctx.principal, missionRunId, { reason, requestId: ctx.requestId }),
    }),
    defineTool({
      name: 'mission_promote',
      title: 'Promote a mission run to a workflow',
      group: 'missions',
      description:
        'Drafts a reusable workflow from a completed mission run: its tasks in dependency order as skill ' +
        'steps (a task without a skill gets a prompt skill of its own, written with it), an approve step ' +
        'where the mission had a review. Written through the workspace write path (validate → write → ' +
        'commit → apply only with autoApply: true). Answers {workflow, written, commit, apply}.',
      input: z.strictObject({
        missionRunId: missionRunIdSchema,
        slug: slugSchema.describe('The new workflow’s slug.'),
        name: z.string().min(1).max(200).optional().describe('Its name (default: the mission’s name).'),
        autoApply: z.boolean().default(false).describe('Apply the new version at once (default false).'),
      }),
      output: writeResultSchema.extend({ workflow: z.object(workflowManifestSchema.shape) }),
      access: access.write,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async run({ missionRunId, slug, name, autoApply }, ctx) {
        const run = await missions.get(ctx.principal, missionRunId);
        if (run.status !== 'completed') {
          throw conflict(
            `Mission run ${missionRunId} is ${run.status}; only a completed run can be promoted.`,
            {
              missionRunId,
              status: run.status,
            },
          );
        }
        const definition = await missions.definitionOf(ctx.principal, missionRunId);
        const { workflow, skills } = promotedResources(
          { ...run, review: definition.review },
          slug,
          name ?? definition.name,
        );
        const result = await s.workspace.write(
          ctx.principal.orgId,
          attributionOf(ctx.principal, ctx.requestId),
          (current) => {
            if (current.has('workflow', slug)) {
              throw conflict(`A workflow with slug "${slug}" already exists.`, { kind: 'workflow', slug });
            }
            return {
              put: [
                ...skills
                  .filter((skill) => !current.has('skill', skill.manifest.slug))
                  .map((skill) => ({
                    kind: 'skill' as const,
                    manifest: skill.manifest,
                    promptMd: skill.promptMd,
                  })),
                { kind: 'workflow' as const, manifest: workflow },
              ],
            };
          },
          {
            autoApply,
            message: `Promote mission run ${missionRunId} to workflow ${slug}`,
            audit: { action: 'mission_run.promote', targetKind: 'workflow', targetId: slug },
          },
        );
        return { workflow, ...result };
      },
    }),
  ];
}
