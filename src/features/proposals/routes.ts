/**
 * `/api/v1/proposals` (docs/api.md#proposals; list, cancel and stream are extensions): read the org's
 * proposals (`read:all`), withdraw a pending one (`run:invoke`, like cancelling a run), and follow
 * one as server-sent events. Deciding one is the review queue's (`POST /reviews/decide`, kind
 * `action`). Another org's proposal is 404.
 */
import { z } from 'zod';
import { FINAL_PROPOSAL_STATUSES, PROPOSAL_STATUSES } from '../../../machines/index.js';
import { access } from '../../platform/auth/guard.js';
import type { Bus, Subscription } from '../../platform/bus/bus.js';
import { subjectToken } from '../../platform/bus/subjects.js';
import { notFound } from '../../platform/errors.js';
import { encodeTimeCursor, limitSchema, timeCursorSchema } from '../../platform/http/pagination.js';
import { ok } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { ACTION_NAMES } from '../connectors/index.js';
import type { ProposalEventPayload } from './proposal-kind.js';
import type { ProposalService, ProposalView } from './service.js';

const errorSchema = z.object({ code: z.string(), message: z.string() }).nullable();

/** A proposal as `GET /proposals/:id` answers it. */
export const proposalViewSchema = z.object({
  id: z.number().int(),
  action: z.enum(ACTION_NAMES),
  source: z.string(),
  agentSlug: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  proposedParams: z.record(z.string(), z.unknown()),
  rationale: z.string(),
  status: z.enum(PROPOSAL_STATUSES),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: errorSchema,
  attempts: z.number().int(),
  review: z
    .object({
      decision: z.enum(['approve', 'reject']),
      by: z.string(),
      onBehalfOf: z.string().nullable(),
      note: z.string().nullable(),
      reason: z.string().nullable(),
      edited: z.boolean().optional(),
      at: z.string(),
    })
    .nullable(),
  reviewItem: z
    .object({
      kind: z.literal('action'),
      id: z.number().int(),
      open: z.boolean(),
      status: z.string(),
      title: z.string(),
      assignedTo: z.string().nullable(),
      snoozedUntil: z.string().nullable(),
      note: z.string().nullable(),
    })
    .nullable(),
  runId: z.number().int().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  reviewUrl: z.string(),
});

/** `GET /proposals/:id`: the proposal, its next attempt and the record it changes (`ProposalDetail`). */
export const proposalDetailSchema = proposalViewSchema.extend({
  nextAttemptAt: z.string().nullable(),
  syncedRecord: z
    .object({
      type: z.string(),
      externalId: z.string(),
      properties: z.record(z.string(), z.unknown()),
      syncedAt: z.string().nullable(),
    })
    .nullable(),
});

const idParams = z.object({ id: z.string() });

/** A proposal id from the path; anything that is not one names no proposal (404). */
function proposalId(raw: string): number {
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw notFound('proposal', raw);
  return id;
}

const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

/** The events after which a proposal's stream ends: those its final statuses emit. */
const FINAL_EVENTS: ReadonlySet<string> = new Set(FINAL_PROPOSAL_STATUSES);

interface StreamEvent {
  proposalId: number;
  event: string;
  status: string;
  action: string;
  source: string;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  at: string;
}

/** What already happened to `p`, as the events that said so (in order). */
function pastEvents(p: ProposalView): StreamEvent[] {
  const base = { proposalId: p.id, action: p.action, source: p.source, result: p.result, error: p.error };
  const events: StreamEvent[] = [{ ...base, event: 'created', status: 'pending', at: p.createdAt }];
  const review = p.review as { decision: string; at: string } | null;
  if (review?.decision === 'approve')
    events.push({ ...base, event: 'approved', status: 'executing', at: review.at });
  if (review?.decision === 'reject')
    events.push({ ...base, event: 'rejected', status: 'rejected', at: review.at });
  const at = p.completedAt ?? p.createdAt;
  if (p.status === 'cancelled') events.push({ ...base, event: 'cancelled', status: 'cancelled', at });
  if (p.status === 'executed') events.push({ ...base, event: 'executed', status: 'executed', at });
  if (p.status === 'failed') events.push({ ...base, event: 'failed', status: 'failed', at });
  return events;
}

/** The proposal routes over `proposals` (and `bus`, for the streams). */
export function proposalRoutes(proposals: ProposalService, bus: Bus, heartbeatMs = 15_000): RouteDef[] {
  const decoder = new TextDecoder();
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/proposals',
      access: access.read,
      query: z.strictObject({
        status: z.enum(PROPOSAL_STATUSES).optional(),
        limit: limitSchema,
        cursor: timeCursorSchema.optional(),
      }),
      summary:
        "Extension: the org's proposals, newest first, optionally of one status: {proposals, nextCursor}.",
      responses: {
        200: {
          description: 'A page of proposals.',
          schema: z.object({ proposals: z.array(proposalViewSchema), nextCursor: z.string().nullable() }),
        },
      },
      handler: async ({ principal, query }) => {
        const page = await proposals.list(principal, {
          status: query.status,
          limit: query.limit,
          after: query.cursor && { createdAt: query.cursor.createdAt.toISOString(), id: query.cursor.id },
        });
        return ok({
          proposals: page.proposals,
          nextCursor: page.next ? encodeTimeCursor(page.next.createdAt, page.next.id) : null,
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/proposals/:id',
      access: access.read,
      params: idParams,
      summary:
        'A proposal: action, params, rationale, status, result, error, review and its review item; when its next attempt is due, and the synced record it changes.',
      responses: { 200: { description: 'The proposal.', schema: proposalDetailSchema } },
      handler: async ({ principal, params }) => ok(await proposals.detail(principal, proposalId(params.id))),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/proposals/:id/cancel',
      access: access.invoke,
      params: idParams,
      body: z.strictObject({ reason: z.string().max(10_000).nullish() }),
      summary:
        'Extension: withdraw a pending proposal (cancelled, never executed; its review item leaves the queue). 409 once decided.',
      responses: { 200: { description: 'The cancelled proposal.', schema: proposalViewSchema } },
      handler: async ({ principal, params, body, requestId }) =>
        ok(await proposals.cancel(principal, proposalId(params.id), { reason: body.reason, requestId })),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/proposals/:id/stream',
      access: access.read,
      params: idParams,
      summary:
        'Extension: a proposal as server-sent events: what happened so far, then live, until it is executed, failed, rejected or cancelled.',
      responses: {
        200: {
          description:
            'text/event-stream: `proposal.created`, `proposal.approved`, `proposal.rejected`, `proposal.cancelled`, `proposal.executed`, `proposal.failed`.',
          contentType: 'text/event-stream',
        },
      },
      handler: async ({ principal, params }) => {
        const id = proposalId(params.id);
        // 404 before the stream opens.
        await proposals.get(principal, id);
        return {
          kind: 'stream',
          status: 200,
          headers: STREAM_HEADERS,
          start(stream) {
            let subscription: Subscription | null = null;
            const sent = new Set<string>();
            const write = (e: StreamEvent) => {
              if (stream.closed || sent.has(e.event)) return;
              sent.add(e.event);
              stream.write(`event: proposal.${e.event}\ndata: ${JSON.stringify(e)}\n\n`);
              if (FINAL_EVENTS.has(e.event)) stream.end();
            };
            // Live events that arrive before the past is read wait for it (so order holds).
            let pending: StreamEvent[] | null = [];
            const heartbeat = setInterval(() => stream.write(': heartbeat\n\n'), heartbeatMs);
            heartbeat.unref();
            stream.onClose(() => {
              clearInterval(heartbeat);
              subscription?.unsubscribe();
            });
            const pattern = `evt.${subjectToken(String(principal.orgId), 'org id')}.proposal.${subjectToken(id, 'proposal id')}.*`;
            bus
              .subscribe(pattern, (message) => {
                const p = JSON.parse(decoder.decode(message.data)) as ProposalEventPayload;
                if (p.orgId !== principal.orgId || p.proposalId !== id) return;
                const e: StreamEvent = {
                  proposalId: p.proposalId,
                  event: p.event,
                  status: p.status,
                  action: p.action,
                  source: p.source,
                  result: p.result,
                  error: p.error,
                  at: p.at,
                };
                if (pending) pending.push(e);
                else write(e);
              })
              .then(async (sub) => {
                if (stream.closed) return sub.unsubscribe();
                subscription = sub;
                for (const e of pastEvents(await proposals.get(principal, id))) write(e);
                const live = pending ?? [];
                pending = null;
                for (const e of live) write(e);
              })
              .catch(() => stream.end());
          },
        };
      },
    }),
  ];
}
