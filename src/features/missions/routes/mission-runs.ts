/**
 * `/api/v1/mission-runs` (docs/api.md#missions): start a mission run (202), list and read mission runs,
 * cancel one, follow one's events (SSE). Every id route answers 404 for another org's run.
 */
import { z } from 'zod';
import { MISSION_RUN_STATUSES } from '../../../../machines/index.js';
import { access } from '../../../platform/auth/guard.js';
import { notFound, validationFailed } from '../../../platform/errors.js';
import { encodeTimeCursor, limitSchema, timeCursorSchema } from '../../../platform/http/pagination.js';
import { json, ok } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import { activeTraceId } from '../../../platform/tracing/tracing.js';
import { parseTraceparent } from '../../../platform/util/trace.js';
import { slugSchema, teamSchema } from '../../workspace/index.js';
import type { MissionService } from '../service.js';
import { type MissionStreamDeps, openMissionStream } from '../stream.js';
import { missionRunViewSchema } from '../view.js';

/** The statuses of a mission run (`GET /mission-runs?status=`). */
export const MISSION_RUN_STATUS_FILTERS = MISSION_RUN_STATUSES;

const inputSchema = z.record(z.string(), z.unknown()).optional();
const idempotencyKeySchema = z.string().min(1).max(255).optional();

/** An ad hoc team: agent slugs, or `{agent, role}` members. */
export const adHocTeamSchema = z.union([
  z
    .array(slugSchema)
    .min(1)
    .max(20)
    .refine((agents) => new Set(agents).size === agents.length, { message: 'an agent is listed twice' })
    .transform((agents) => agents.map((agent) => ({ agent, role: '' }))),
  teamSchema,
]);

/** Body of `POST /mission-runs`: `{missionSlug, input?, idempotencyKey?}` or `{team, goal, input?, idempotencyKey?}`. */
export const startBodySchema = z.union([
  z.strictObject({ missionSlug: slugSchema, input: inputSchema, idempotencyKey: idempotencyKeySchema }),
  z.strictObject({
    team: adHocTeamSchema,
    goal: z.string().min(1).max(20_000),
    input: inputSchema,
    idempotencyKey: idempotencyKeySchema,
  }),
]);

const startAnswerSchema = z.object({
  missionRunId: z.number().int(),
  status: z.string(),
  pollUrl: z.string(),
});

const idParam = z.object({ id: z.string() });
const SEQ = /^\d{1,9}$/;

/** A mission run id in a path; 404 when the text cannot be one. */
export function missionRunId(text: string): number {
  const id = /^\d{1,15}$/.test(text) ? Number(text) : 0;
  if (id < 1) throw notFound('mission run', text);
  return id;
}

const answer = {
  200: { description: 'The mission run.', schema: missionRunViewSchema },
};

export function missionRunRoutes(missions: MissionService, stream: MissionStreamDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/mission-runs',
      access: access.invoke,
      body: startBodySchema,
      summary:
        'Start a mission run from a mission ({missionSlug, input?}) or ad hoc ({team, goal, input?}); 202 {missionRunId, status, pollUrl}.',
      responses: {
        202: {
          description: 'The mission run was accepted (or replayed from its idempotency key).',
          schema: startAnswerSchema,
        },
      },
      handler: async ({ principal, body, method, path, requestId, headers }) => {
        const result = await missions.start(principal, body, {
          method,
          path,
          requestId,
          traceId: activeTraceId() ?? parseTraceparent(headers.traceparent)?.traceId,
        });
        return json(202, result.answer, result.replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/mission-runs',
      access: access.read,
      query: z.strictObject({
        status: z.enum(MISSION_RUN_STATUS_FILTERS).optional(),
        limit: limitSchema,
        cursor: timeCursorSchema.optional(),
      }),
      summary: 'Mission runs of the org, newest first: `{missionRuns, nextCursor}` (filter by status).',
      responses: {
        200: {
          description: 'A page of mission runs.',
          schema: z.object({ missionRuns: z.array(missionRunViewSchema), nextCursor: z.string().nullable() }),
        },
      },
      handler: async ({ principal, query }) => {
        const page = await missions.list(principal, {
          status: query.status,
          before: query.cursor,
          limit: query.limit,
        });
        const last = page.missionRuns.at(-1);
        const nextCursor = page.more && last ? encodeTimeCursor(last.createdAt, last.id) : null;
        return ok({ missionRuns: page.missionRuns, nextCursor });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/mission-runs/:id',
      access: access.read,
      params: idParam,
      summary:
        'One mission run: status, goal, input, plan (tasks with status, runId, output), artifacts, review.',
      responses: answer,
      handler: async ({ principal, params }) => ok(await missions.get(principal, missionRunId(params.id))),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/mission-runs/:id/cancel',
      access: access.invoke,
      params: idParam,
      body: z.strictObject({ reason: z.string().max(10_000).optional() }),
      summary:
        'Cancel a mission run that is planning, awaiting_review or executing (its running child runs too); 409 otherwise.',
      responses: answer,
      handler: async ({ principal, params, body, requestId }) =>
        ok(await missions.cancel(principal, missionRunId(params.id), { reason: body.reason, requestId })),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/mission-runs/:id/stream',
      access: access.read,
      params: idParam,
      query: z.object({
        lastEventId: z.string().regex(SEQ, 'must be the id of an event of this stream').optional(),
      }),
      responses: {
        200: {
          description:
            'text/event-stream: planned, task_started, task_completed, awaiting_review, approved, completed, failed, cancelled.',
          contentType: 'text/event-stream',
        },
      },
      summary: "The mission run's events as server-sent events: replayed after Last-Event-ID, then live.",
      handler: async ({ principal, params, query, headers }) => {
        const id = missionRunId(params.id);
        const header = headers['last-event-id']?.trim();
        if (header !== undefined && header !== '' && !SEQ.test(header)) {
          throw validationFailed([
            { field: 'headers.last-event-id', message: 'must be the id of an event of this stream' },
          ]);
        }
        return openMissionStream(stream, principal, id, Number(header || query.lastEventId || 0));
      },
    }),
  ];
}
