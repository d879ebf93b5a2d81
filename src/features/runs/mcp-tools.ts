/**
 * Runtime tools: run a skill or a workflow and wait for it (`runtime_run_skill`,
 * `runtime_run_workflow`; either as a task, `runTasks`), read runs (`runtime_list_runs`,
 * `runtime_get_run`) and decide drafts (`runtime_approve_draft`, `runtime_reject_draft`,
 * `runtime_request_changes`). They call the
 * run service REST calls, with the caller's principal: the same scopes, the same approve capability, the
 * same review queue, and the same idempotency keys (a key is bound to the request `POST
 * /api/v1/skills/<slug>/runs` with the same body, whichever of REST and MCP sent it).
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { runEventsPattern } from '../../platform/bus/subjects.js';
import { type ResourceSource, resourceUri } from '../../platform/mcp/resources.js';
import { JsonText } from '../../platform/mcp/results.js';
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
import { slugSchema } from '../workspace/index.js';
import { RUN_STATUS_FILTERS, triggerBodySchema } from './routes.js';
import { RunService } from './service.js';
import { type RunFilter, type RunView, runViewSchema } from './view.js';
import { type WaitDeps, waitForRun } from './wait-for-run.js';

const runIdSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('The run id (runId).');

/** The review item's revision the caller saw; absent: not checked. */
const revisionSchema = z
  .string()
  .min(1)
  .max(100)
  .optional()
  .describe('The review item’s revision you decided on (GET /reviews/:kind/:id); CONFLICT when stale.');

/** What the runtime tools use: the runs, the bus to wait on, and the review queue's choke point. */
export interface RuntimeToolDeps extends WaitDeps {
  decisions: ReviewDecisions;
}

/** Decides run `runId` through the review queue's choke point; answers the run. */
async function decideRun(
  s: RuntimeToolDeps,
  ctx: ToolContext,
  runId: number,
  verb: 'approve' | 'reject' | 'request_changes',
  text: string | undefined,
  revision: string | undefined,
  edits?: Record<string, unknown>,
  delaySeconds?: number,
): Promise<RunView> {
  await s.decisions.decide(ctx.principal, {
    id: runId,
    action: verb,
    reason: text ?? null,
    revision: revision ?? null,
    edits: edits ?? null,
    delaySeconds,
    requestId: ctx.requestId,
    auditAction: `run.${verb}`,
    refusal: (status) => RunService.decisionRefused(runId, verb, status),
  });
  return s.runs.get(ctx.principal, runId);
}

/** What `runtime_run_skill` answers: docs/mcp.md's fields, plus `error` and `reviewUrl`. */
export const runOutcomeSchema = z.object({
  runId: runViewSchema.shape.id,
  status: runViewSchema.shape.status,
  output: runViewSchema.shape.output,
  error: runViewSchema.shape.error,
  traceId: runViewSchema.shape.traceId,
  reviewUrl: runViewSchema.shape.reviewUrl,
});

/** A run as `runtime_run_skill` answers it. */
export function runOutcome(run: RunView): z.input<typeof runOutcomeSchema> {
  return {
    runId: run.id,
    status: run.status,
    output: run.output,
    error: run.error,
    traceId: run.traceId,
    reviewUrl: run.reviewUrl,
  };
}

/** Runs as MCP resources: the template `r3://runs/{id}`, read as GET /api/v1/runs/:id answers. */
export function runResources(runs: RunService): ResourceSource {
  return {
    collection: 'runs',
    access: access.read,
    template: {
      name: 'run',
      title: 'A run',
      description: 'A skill or workflow run, as GET /api/v1/runs/:id answers it (JSON).',
      mimeType: 'application/json',
    },
    async read(principal, key) {
      const id = /^[1-9]\d{0,15}$/.test(key) ? Number(key) : Number.NaN;
      if (!Number.isSafeInteger(id)) return null;
      const text = await runs.getJson(principal, id);
      return [{ uri: resourceUri('runs', id), mimeType: 'application/json', text }];
    },
  };
}

/** Starts a skill or workflow run of `slug` for the caller, as its REST trigger does; its id. */
async function trigger(
  s: WaitDeps,
  kind: 'skill' | 'workflow',
  slug: string,
  body: z.output<typeof triggerBodySchema>,
  ctx: ToolContext,
): Promise<number> {
  try {
    const { answer } = await s.runs.trigger(ctx.principal, kind, slug, body, {
      method: 'POST',
      path: `/api/v1/${kind}s/${slug}/runs`,
      requestId: ctx.requestId,
      traceId: activeTraceId(),
    });
    return answer.runId;
  } catch (error) {
    throw bodyFieldsAsArguments(error);
  }
}

/** A run as a task (tasks.ts): what it is doing, or why it waits (the review link), or how it ended. */
export function runTaskState(run: RunView, lastUpdatedAt: string): TaskState {
  const stamps = { createdAt: run.createdAt, lastUpdatedAt };
  const drafted = run.kind !== 'skill' || run.slug in run.stepResults;
  switch (run.status) {
    case 'pending':
      return drafted
        ? {
            status: 'input_required',
            statusMessage: `The draft waits for review: ${run.reviewUrl}`,
            ...stamps,
          }
        : { status: 'working', statusMessage: 'Drafting; the draft then waits for review.', ...stamps };
    case 'paused':
      return { status: 'input_required', statusMessage: `Paused for review: ${run.reviewUrl}`, ...stamps };
    case 'approved':
      return drafted
        ? { status: 'completed', statusMessage: 'Approved.', ...stamps }
        : { status: 'working', statusMessage: 'Approved; the draft is still being made.', ...stamps };
    case 'completed':
      return { status: 'completed', ...stamps };
    case 'rejected': {
      const reason = (run.review as { reason?: string | null } | null)?.reason;
      return {
        status: 'failed',
        statusMessage: `Rejected in review${reason ? `: ${reason}` : '.'}`,
        ...stamps,
      };
    }
    case 'failed': {
      const error = run.error as { code?: string; message?: string } | null;
      return {
        status: 'failed',
        statusMessage: `${error?.code ?? 'FAILED'}: ${error?.message ?? ''}`,
        ...stamps,
      };
    }
    case 'cancelled':
      return { status: 'cancelled', ...stamps };
    default:
      return { status: 'working', ...stamps };
  }
}

/** Skill and workflow runs as tasks (`run-<id>`): started by runtime_run_skill and runtime_run_workflow. */
export function runTasks(s: WaitDeps): TaskKind {
  return runTaskKind(s, {
    prefix: RUN_TASK,
    readAccess: access.read,
    cancelAccess: access.invoke,
    read: (principal, id) => s.runs.get(principal, id),
    updatedAt: (principal, id) => s.runs.updatedAt(principal, id),
    stateOf: runTaskState,
    events: (orgId, id) => runEventsPattern(String(orgId), id),
    answer: runOutcome,
    cancel: (principal, id, requestId) => s.runs.cancel(principal, id, requestId),
  });
}

/** The prefix of run tasks' ids (`run-42`). */
const RUN_TASK = 'run';

/** The runtime tools over `s`; `runtime_run_skill` and `runtime_run_workflow` wait at most `waitMs`. */
export function runtimeTools(s: RuntimeToolDeps, options: { waitMs: number }): ToolDef[] {
  const runTool = (kind: 'skill' | 'workflow', name: string, title: string, description: string) =>
    defineTool({
      name,
      title,
      group: 'runtime',
      description,
      // The REST trigger body's fields, after the slug (the path parameter on REST).
      input: z.strictObject({ slug: slugSchema.describe(`The ${kind} to run.`), ...triggerBodySchema.shape }),
      output: runOutcomeSchema,
      access: access.invoke,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      async run({ slug, ...body }, ctx) {
        const runId = await trigger(s, kind, slug, body, ctx);
        const run = await waitForRun(s, ctx.principal, runId, {
          timeoutMs: options.waitMs,
          signal: ctx.signal,
        });
        return runOutcome(run);
      },
      task: { kind: RUN_TASK, start: ({ slug, ...body }, ctx) => trigger(s, kind, slug, body, ctx) },
    });
  return [
    runTool(
      'skill',
      'runtime_run_skill',
      'Run a skill',
      'Runs a skill with `input` (checked against its inputSchema) and waits until the run leaves ' +
        '`running` — for a skill that requires approval, until its draft is ready — at most 60 s. ' +
        'Answers {runId, status, output, error, traceId, reviewUrl}: `completed` with its output, ' +
        '`failed` with its error, or `pending` with the draft now waiting in the review queue. Still ' +
        '`running` (or `pending` without output) after the wait: follow it with runtime_get_run. ' +
        'idempotencyKey (per token, 24 h) makes retries safe. As a task: answers the task at once; the ' +
        'task is the run (input_required while it waits for review).',
    ),
    runTool(
      'workflow',
      'runtime_run_workflow',
      'Run a workflow',
      'Runs a workflow with `input` (checked against its inputSchema) and waits until the run leaves ' +
        '`running` — `completed`, `failed`, or `paused` at an approve gate (reviewUrl names it) — at most ' +
        '60 s. Answers {runId, status, output, error, traceId, reviewUrl}; still `running` after the wait: ' +
        'follow it with runtime_get_run. As a task: answers the task at once; the task is the run ' +
        '(input_required while a gate waits for review).',
    ),
    defineTool({
      name: 'runtime_list_runs',
      title: 'List runs',
      group: 'runtime',
      description:
        'Skill and workflow runs of the organization, newest first, optionally of one skill and/or one ' +
        'status (`auto` = skill runs that never entered review). Answers {runs}.',
      input: z.strictObject({
        skillSlug: slugSchema.optional(),
        status: z.enum(RUN_STATUS_FILTERS).optional(),
        limit: z.number().int().min(1).max(200).default(50).describe('At most this many runs (default 50).'),
      }),
      output: z.object({ runs: z.array(runViewSchema) }),
      access: access.read,
      hints: READ_ONLY,
      async run({ skillSlug, status, limit }, { principal }) {
        const filter: RunFilter = { limit };
        if (skillSlug) filter.skillSlug = skillSlug;
        if (status) filter.status = status;
        const page = await s.runs.list(principal, filter);
        return { runs: page.runs };
      },
    }),
    defineTool({
      name: 'runtime_get_run',
      title: 'Get a run',
      group: 'runtime',
      description:
        'One run, as GET /api/v1/runs/:id answers it (status, output, stepResults, error, review …).',
      input: z.strictObject({ runId: runIdSchema }),
      output: runViewSchema,
      access: access.read,
      hints: READ_ONLY,
      fusedRun: ({ runId }) => (runIdSchema.safeParse(runId).success ? (runId as number) : null),
      run: async ({ runId }, { principal, fusedRun }) =>
        new JsonText(await s.runs.getJson(principal, runId, fusedRun)),
    }),
    defineTool({
      name: 'runtime_approve_draft',
      title: 'Approve a draft',
      group: 'runtime',
      description:
        'Approves a pending skill run (its draft) — or a paused workflow run, which resumes. Pass the ' +
        'review item\'s `revision` you read (GET /reviews/:kind/:id): CONFLICT (details.reason "stale", ' +
        'details.revision the current one) when the item changed since. delaySeconds (0–30) holds the ' +
        'decision that long (the review item is deciding; POST /reviews/undo withdraws it). Needs the ' +
        'approve capability; CONFLICT when the run is in another status. Answers the run.',
      input: z.strictObject({
        runId: runIdSchema,
        note: z.string().max(10_000).optional(),
        revision: revisionSchema,
        edits: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(
            'Edits before approve: {output} replaces a skill run’s draft (checked against its outputSchema), ' +
              '{stepOutputs: {<completed step>: <object>}} replaces a workflow’s step outputs.',
          ),
        delaySeconds: delaySecondsSchema,
      }),
      output: runViewSchema,
      access: access.approve,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: ({ runId, note, revision, edits, delaySeconds }, ctx) =>
        decideRun(s, ctx, runId, 'approve', note, revision, edits, delaySeconds),
    }),
    defineTool({
      name: 'runtime_reject_draft',
      title: 'Reject a draft',
      group: 'runtime',
      description:
        'Rejects a pending skill run (its draft) — or a paused workflow run, which is cancelled — with an ' +
        'optional reason. Pass the review item\'s `revision` you read: CONFLICT (details.reason "stale") ' +
        'when it changed since. delaySeconds (0–30) holds the decision that long (POST /reviews/undo ' +
        'withdraws it). Needs the approve capability; CONFLICT when the run is in another status.',
      input: z.strictObject({
        runId: runIdSchema,
        reason: z.string().max(10_000).optional(),
        revision: revisionSchema,
        delaySeconds: delaySecondsSchema,
      }),
      output: runViewSchema,
      access: access.approve,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      run: ({ runId, reason, revision, delaySeconds }, ctx) =>
        decideRun(s, ctx, runId, 'reject', reason, revision, undefined, delaySeconds),
    }),
    defineTool({
      name: 'runtime_request_changes',
      title: 'Request changes to a draft',
      group: 'runtime',
      description:
        "Sends a pending skill run's draft back to its model with your reason (what must change): the run " +
        'runs again and its new draft waits for review as a new item (same runId, a new revision). At most ' +
        '5 rounds (then CONFLICT, details.reason "max_rounds"). Pass the review item\'s `revision` you ' +
        'read: CONFLICT (details.reason "stale") when it changed since. VALIDATION_FAILED for a workflow ' +
        'run; CONFLICT while the draft is not ready. Needs the approve capability.',
      input: z.strictObject({
        runId: runIdSchema,
        reason: z
          .string()
          .min(1)
          .max(10_000)
          .describe('What the next draft must change (told to the model).'),
        revision: revisionSchema,
      }),
      output: runViewSchema,
      access: access.approve,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: ({ runId, reason, revision }, ctx) =>
        decideRun(s, ctx, runId, 'request_changes', reason, revision),
    }),
  ];
}
