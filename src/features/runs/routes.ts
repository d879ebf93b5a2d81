/**
 * `/api/v1` runs: trigger skill and workflow runs (202), read and list runs, approve, reject, cancel,
 * feedback, and the transition log (an extension for debugging). `/runs/:id/stream` is the events
 * issue's. Every id route answers 404 for another org's run.
 */

import { z } from 'zod';
import { RUN_STATUSES } from '../../../machines/index.js';
import { access } from '../../platform/auth/guard.js';
import { notFound } from '../../platform/errors.js';
import { encodeTimeCursor, limitSchema, timeCursorSchema } from '../../platform/http/pagination.js';
import { json, jsonText, ok } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { activeTraceId } from '../../platform/tracing/tracing.js';
import { parseTraceparent } from '../../platform/util/trace.js';
import { delaySecondsSchema, ifMatchRevision, type ReviewDecisions } from '../reviews/index.js';
import { slugParams } from '../workspace/index.js';
import { RunService } from './service.js';
import { type RunFilter, runViewSchema } from './view.js';

/** Statuses `GET /runs?status=` accepts: the run statuses, and `auto` (skill runs that never entered review). */
export const RUN_STATUS_FILTERS = [...RUN_STATUSES, 'auto'] as const;

const idParam = z.object({ id: z.string() });

/** Body of the two trigger routes. `input` is free-form (validated against the inputSchema later). */
export const triggerBodySchema = z.strictObject({
  input: z.record(z.string(), z.unknown()).default(() => ({})),
  idempotencyKey: z.string().min(1).max(255).optional(),
  agentSlug: z.string().min(1).max(63).optional(),
  /** Object instances the run uses (docs/api.md "Runs": linked `via: "input"`). */
  objects: z
    .array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER))
    .max(100)
    .refine((ids) => new Set(ids).size === ids.length, { message: 'names each object once' })
    .optional(),
});

/** Body of `POST /runs/:id/fork` (docs/api.md "Fork a run"). */
const forkBodySchema = z.strictObject({
  fromStep: z.string().min(1).max(200).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  workspace: z
    .union([
      z.literal('current'),
      z.string().regex(/^[0-9a-f]{7,40}$/, 'a version: "current" or 7 to 40 lowercase hex characters'),
    ])
    .optional(),
});

/** Body of `POST /runs/:id/replay` (docs/api.md "Replay a skill run"). */
const replayBodySchema = z.strictObject({
  workspace: z.string().regex(/^[0-9a-f]{7,40}$/, "a version's sha: 7 to 40 lowercase hex characters"),
});

/** The revision a reviewer saw (docs/api.md "Review queue"; or the `If-Match` header). */
const revisionSchema = z.string().min(1).max(100).nullish();

const approveBodySchema = z.strictObject({
  reviewedBy: z.string().min(1).max(200).nullish(),
  note: z.string().max(10_000).nullish(),
  revision: revisionSchema,
  /** Edits before approve: a skill run's `{output}`, a workflow gate's `{stepOutputs}` (docs/api.md "Review queue"). */
  edits: z.record(z.string(), z.unknown()).nullish(),
  delaySeconds: delaySecondsSchema,
});

const rejectBodySchema = z.strictObject({
  reviewedBy: z.string().min(1).max(200).nullish(),
  reason: z.string().max(10_000).nullish(),
  revision: revisionSchema,
  delaySeconds: delaySecondsSchema,
});

const feedbackBodySchema = z.strictObject({
  rating: z.enum(['up', 'down']).nullable(),
  note: z.string().max(10_000).nullish(),
});

const listQuerySchema = z.object({
  status: z.enum(RUN_STATUS_FILTERS).optional(),
  kind: z.enum(['skill', 'workflow']).optional(),
  rating: z.enum(['up', 'down']).optional(),
  skillSlug: z.string().min(1).optional(),
  workflowSlug: z.string().min(1).optional(),
  agentSlug: z.string().min(1).optional(),
  missionRunId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  createdAfter: z.iso
    .datetime({ offset: true })
    .transform((text) => new Date(text))
    .optional(),
  /** `true`: an evaluation's shadow runs (docs/api.md "Evaluations"), which are otherwise left out. */
  shadow: z
    .enum(['true', 'false'])
    .transform((text) => text === 'true')
    .optional(),
  limit: limitSchema,
  cursor: timeCursorSchema.optional(),
});

/** A run id in a path, or null when the text cannot be one. */
function runIdOrNull(text: string): number | null {
  const id = /^\d{1,15}$/.test(text) ? Number(text) : 0;
  return id < 1 ? null : id;
}

/** A run id from the path; anything but a positive integer is no run (404). */
function runId(text: string): number {
  const id = runIdOrNull(text);
  if (id === null) throw notFound('run', text);
  return id;
}

const triggerAnswerSchema = z.object({ runId: z.number().int(), status: z.string(), pollUrl: z.string() });

const runAnswer = { 200: { description: 'The run.', schema: runViewSchema } };

/** The runs routes over `runs`. */
export function runRoutes(runs: RunService, decisions: ReviewDecisions): RouteDef[] {
  const trigger = (kind: 'skill' | 'workflow') =>
    defineRoute({
      method: 'POST',
      path: kind === 'skill' ? '/api/v1/skills/:slug/runs' : '/api/v1/workflows/:slug/runs',
      access: access.invoke,
      params: slugParams,
      body: triggerBodySchema,
      // The org's applied version, read with the caller's authentication: the skill or workflow is
      // then taken from memory when this process read it at that version (src/features/workspace/applied.ts).
      fused: { read: 'applied', key: () => 0 },
      summary: `Start a ${kind} run; 202 {runId, status, pollUrl}. Idempotent per token with idempotencyKey.`,
      responses: {
        202: {
          description:
            'The run was accepted (or replayed from its idempotency key: Idempotent-Replayed: true).',
          schema: triggerAnswerSchema,
        },
      },
      handler: async ({ principal, params, body, method, path, requestId, fused, headers }) => {
        const result = await runs.trigger(principal, kind, params.slug, body, {
          method,
          path,
          requestId,
          appliedSha: fused?.value,
          // The request's trace (docs/operations.md): its span's when traced, else its `traceparent`'s.
          traceId: activeTraceId() ?? parseTraceparent(headers.traceparent)?.traceId,
        });
        return json(202, result.answer, result.replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
      },
    });

  return [
    trigger('skill'),
    trigger('workflow'),
    defineRoute({
      method: 'GET',
      path: '/api/v1/runs',
      access: access.read,
      query: listQuerySchema,
      summary: 'Skill and workflow runs of the org, newest first, filtered; {runs, nextCursor}.',
      responses: {
        200: {
          description: 'A page of runs.',
          schema: z.object({ runs: z.array(runViewSchema), nextCursor: z.string().nullable() }),
        },
      },
      handler: async ({ principal, query }) => {
        const filter: RunFilter = { limit: query.limit };
        if (query.status) filter.status = query.status;
        if (query.kind) filter.kind = query.kind;
        if (query.rating) filter.rating = query.rating;
        if (query.skillSlug) filter.skillSlug = query.skillSlug;
        if (query.workflowSlug) filter.workflowSlug = query.workflowSlug;
        if (query.agentSlug) filter.agentSlug = query.agentSlug;
        if (query.missionRunId) filter.missionRunId = query.missionRunId;
        if (query.createdAfter) filter.createdAfter = query.createdAfter;
        if (query.shadow) filter.shadow = true;
        if (query.cursor) filter.before = query.cursor;
        const page = await runs.list(principal, filter);
        const nextCursor =
          page.more && page.last ? encodeTimeCursor(page.last.createdAt, page.last.id) : null;
        return ok({ runs: page.runs, nextCursor });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/runs/:id',
      access: access.read,
      params: idParam,
      // Read in the statement that authenticates the caller (src/features/runs/view.ts `fusedRunRead`).
      fused: { read: 'run', key: ({ id }) => runIdOrNull(id ?? '') },
      summary: 'One run.',
      responses: runAnswer,
      // The run's JSON as PostgreSQL rendered it, written as is (src/features/runs/view.ts).
      handler: async ({ principal, params, fused }) =>
        jsonText(200, await runs.getJson(principal, runId(params.id), fused)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/runs/:id/transitions',
      access: access.read,
      params: idParam,
      summary: "Extension (debugging): the run's transition log and its review items', oldest first.",
      responses: {
        200: {
          description: 'The transitions.',
          schema: z.object({
            transitions: z.array(
              z.object({
                id: z.number().int(),
                actorKind: z.string(),
                actorId: z.number().int(),
                from: z.string().nullable(),
                event: z.unknown(),
                to: z.string(),
                actor: z.string(),
                at: z.string(),
              }),
            ),
          }),
        },
      },
      handler: async ({ principal, params }) =>
        ok({ transitions: await runs.transitions(principal, runId(params.id)) }),
    }),
    ...(['approve', 'reject'] as const).map((verb) =>
      defineRoute({
        method: 'POST',
        path: `/api/v1/runs/:id/${verb}`,
        access: access.approve,
        params: idParam,
        body: verb === 'approve' ? approveBodySchema : rejectBodySchema,
        summary:
          verb === 'approve'
            ? 'Approve a pending skill run or a paused workflow run; 409 from any other status, or when `revision` (or If-Match) is stale.'
            : 'Reject a pending skill run, or a paused workflow run (cancels it); 409 otherwise, or when `revision` (or If-Match) is stale.',
        responses: runAnswer,
        handler: async ({ principal, params, body, headers, requestId }) => {
          const id = runId(params.id);
          const text = 'note' in body ? body.note : 'reason' in body ? body.reason : null;
          await decisions.decide(principal, {
            id,
            action: verb,
            reason: text,
            reviewedBy: body.reviewedBy,
            revision: body.revision ?? ifMatchRevision(headers['if-match']),
            edits: 'edits' in body ? body.edits : null,
            requestId,
            delaySeconds: body.delaySeconds,
            auditAction: `run.${verb}`,
            refusal: (status) => RunService.decisionRefused(id, verb, status),
          });
          return ok(await runs.get(principal, id));
        },
      }),
    ),
    defineRoute({
      method: 'POST',
      path: '/api/v1/runs/:id/fork',
      access: access.invoke,
      params: idParam,
      body: forkBodySchema,
      summary:
        'Fork a run that is not running: a new run of its skill or workflow (a workflow from `fromStep`, earlier results copied); 202.',
      responses: {
        202: {
          description: 'The fork was accepted.',
          schema: triggerAnswerSchema.extend({
            forkOf: z.object({ runId: z.number().int(), fromStep: z.string().nullable() }),
          }),
        },
      },
      handler: async ({ principal, params, body, requestId, headers }) =>
        json(
          202,
          await runs.fork(principal, runId(params.id), body, {
            requestId,
            traceId: activeTraceId() ?? parseTraceparent(headers.traceparent)?.traceId,
          }),
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/runs/:id/replay',
      access: access.invoke,
      params: idParam,
      body: replayBodySchema,
      summary:
        "Replay a skill run on a workspace version: equal tool calls answered from the run's record, writing tools refused; 202.",
      responses: {
        202: {
          description: 'The replay was accepted.',
          schema: triggerAnswerSchema.extend({ replayOf: z.number().int() }),
        },
      },
      handler: async ({ principal, params, body, requestId, headers }) =>
        json(
          202,
          await runs.replay(principal, runId(params.id), body.workspace, {
            requestId,
            traceId: activeTraceId() ?? parseTraceparent(headers.traceparent)?.traceId,
          }),
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/runs/:id/cancel',
      access: access.invoke,
      params: idParam,
      body: z.strictObject({}),
      summary: 'Cancel a running, paused or pending run (a hard stop); 409 otherwise.',
      responses: runAnswer,
      handler: async ({ principal, params, requestId }) =>
        ok(await runs.cancel(principal, runId(params.id), requestId)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/runs/:id/feedback',
      access: access.invoke,
      params: idParam,
      body: feedbackBodySchema,
      summary: 'Rate any run (up, down, or null to clear) with an optional note; feedbackAt always updates.',
      responses: runAnswer,
      handler: async ({ principal, params, body, requestId }) =>
        ok(
          await runs.feedback(principal, runId(params.id), {
            rating: body.rating,
            note: body.note ?? null,
            requestId,
          }),
        ),
    }),
  ];
}
