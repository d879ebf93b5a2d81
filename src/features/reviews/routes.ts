/**
 * `/api/v1` review queue: `GET /reviews` (read:all) and `POST /reviews/decide|assign|snooze` (the
 * approve capability, checked by the server before the handler runs, so a refused call dispatches
 * nothing). The three POSTs answer the refreshed queue: the view their query string names (the same
 * parameters as `GET /reviews`), by default the whole active queue's first page.
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import type { Principal } from '../../platform/auth/principal.js';
import { notFound } from '../../platform/errors.js';
import { encodeTimeCursor, limitSchema, timeCursorSchema } from '../../platform/http/pagination.js';
import { ok } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { ifMatchRevision } from './decisions.js';
import { MAX_DELAY_SECONDS } from './delay.js';
import { etagOf } from './revision.js';
import {
  REVIEW_KINDS,
  REVIEW_SORTS,
  REVIEW_STATUS_OF_KIND,
  type ReviewKind,
  type ReviewPage,
  type ReviewPosition,
  type ReviewQuery,
  type ReviewService,
} from './service.js';

/** `assignedTo=unassigned` names the triage lane (items assigned to nobody). */
export const UNASSIGNED_LANE = 'unassigned';

const booleanQuery = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true')
  .optional();

/** Encodes a position in the due order (`sort=due`) as an opaque cursor. */
function encodeDueCursor(dueAt: string | null, id: number): string {
  return Buffer.from(JSON.stringify({ d: dueAt, i: id }), 'utf8').toString('base64url');
}

/** The position a `sort=due` cursor names, or null when it is not one. */
function decodeDueCursor(cursor: string): ReviewPosition | null {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      d?: unknown;
      i?: unknown;
    };
    const id = parsed.i;
    if (!Number.isSafeInteger(id) || (id as number) < 1) return null;
    if (parsed.d === null) return { dueAt: null, itemId: id as number };
    if (typeof parsed.d !== 'string' || Number.isNaN(Date.parse(parsed.d))) return null;
    return { dueAt: new Date(parsed.d).toISOString(), itemId: id as number };
  } catch {
    return null;
  }
}

/**
 * Query of `GET /reviews` (and of the POSTs, naming the view they answer with). A cursor belongs to
 * the order it was returned for (`sort`): one of the other order is a 400 naming `cursor`.
 */
export const reviewListQuerySchema = z
  .object({
    assignedTo: z.string().min(1).max(128).optional(),
    includeSnoozed: booleanQuery,
    /** Only the items due by now (true), or only the others (false). */
    overdue: booleanQuery,
    /** `created` (default): oldest first; `due`: soonest due first, items without a due time last. */
    sort: z.enum(REVIEW_SORTS).optional(),
    limit: limitSchema,
    cursor: z.string().max(500).optional(),
  })
  .transform((query, ctx) => {
    const { cursor, ...rest } = query;
    if (cursor === undefined) return { ...rest, after: undefined };
    let after: ReviewPosition | null = null;
    if (query.sort === 'due') after = decodeDueCursor(cursor);
    else {
      const parsed = timeCursorSchema.safeParse(cursor);
      if (parsed.success) after = { createdAt: parsed.data.createdAt.toISOString(), itemId: parsed.data.id };
    }
    if (after === null) {
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'is not a cursor this list returned' });
      return z.NEVER;
    }
    return { ...rest, after };
  });

const kindSchema = z.enum(REVIEW_KINDS);

/** A decision's delay (decisions.md §15 "Undo"): whole seconds, 0–30. */
export const delaySecondsSchema = z
  .number()
  .int()
  .min(0)
  .max(MAX_DELAY_SECONDS)
  .optional()
  .describe(
    'Seconds before the decision takes effect (0–30, default 0); until then POST /reviews/undo withdraws it.',
  );
const idSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** Body of `POST /reviews/decide`. `reviewedBy` is an extension (as on `/runs/:id/approve`). */
export const reviewDecideBodySchema = z.strictObject({
  kind: kindSchema,
  id: idSchema,
  /** `request_changes` (skill runs, mission plans): the draft goes back to the model with `reason`. */
  action: z.enum(['approve', 'reject', 'request_changes']),
  /** The reject's reason, the approval's note; required with request_changes (what must change). */
  reason: z.string().max(10_000).nullish(),
  reviewedBy: z.string().min(1).max(200).nullish(),
  /** The revision the reviewer saw (or `If-Match`): 409 `{reason: "stale"}` when it is not current. */
  revision: z.string().min(1).max(100).nullish(),
  /**
   * Edits before approve, per kind (skill `{output}`, action `{params}`, workflow `{stepOutputs}`,
   * mission `{plan}`), checked by the choke point: 400 naming `body.edits…`, nothing changed.
   */
  edits: z.record(z.string(), z.unknown()).nullish(),
  /**
   * Seconds before the decision takes effect (0–30, default 0): meanwhile the item is `deciding` and
   * `POST /reviews/undo` withdraws it; nothing is dispatched until `effectiveAt`.
   */
  delaySeconds: delaySecondsSchema,
});

/** Body of `POST /reviews/decide-batch`: one action on 1–100 distinct items, all or nothing. */
export const reviewDecideBatchBodySchema = z.strictObject({
  items: z
    .array(z.strictObject({ kind: kindSchema, id: idSchema, revision: z.string().min(1).max(100).nullish() }))
    .min(1)
    .max(100)
    .refine((items) => new Set(items.map((i) => `${i.kind}:${i.id}`)).size === items.length, {
      message: 'names an item more than once',
    }),
  action: z.enum(['approve', 'reject']),
  reason: z.string().max(10_000).nullish(),
  reviewedBy: z.string().min(1).max(200).nullish(),
  delaySeconds: delaySecondsSchema,
});

/** Body of `POST /reviews/undo`: the item whose delayed decision is withdrawn. */
export const reviewUndoBodySchema = z.strictObject({ kind: kindSchema, id: idSchema });

/** Body of `POST /reviews/assign`: `assignedTo` is required, null sends the item back to triage. */
export const reviewAssignBodySchema = z.strictObject({
  kind: kindSchema,
  id: idSchema,
  assignedTo: z.string().min(1).max(128).nullable(),
  note: z.string().max(10_000).nullish(),
});

/** Body of `POST /reviews/snooze`: `until` is an ISO 8601 instant (any offset) in the future. */
export const reviewSnoozeBodySchema = z.strictObject({
  kind: kindSchema,
  id: idSchema,
  until: z.iso.datetime({ offset: true }),
});

/** A review item as the API shows it (`ReviewView`), for the OpenAPI document. */
export const reviewViewSchema = z
  .object({
    kind: kindSchema,
    id: z.number().int(),
    title: z.string(),
    summary: z.string().nullable(),
    status: z.enum([...new Set(Object.values(REVIEW_STATUS_OF_KIND)), 'deciding', 'decided', 'cancelled']),
    revision: z.string().nullable(),
    rounds: z.number().int().min(0).meta({
      description: 'How many times the subject’s draft was sent back (request_changes) before this item.',
    }),
    effectiveAt: z.iso.datetime().nullable(),
    decision: z
      .object({
        action: z.enum(['approve', 'reject']),
        edits: z.record(z.string(), z.unknown()).nullable(),
        reason: z.string().nullable(),
        by: z.string(),
        at: z.iso.datetime(),
      })
      .nullable()
      .meta({ description: 'While deciding: the decision waiting for effectiveAt; else null.' }),
    assignedTo: z.string().nullable(),
    snoozedUntil: z.iso.datetime().nullable(),
    note: z.string().nullable(),
    slug: z.string().nullable(),
    pausedAt: z.string().nullable(),
    createdAt: z.iso.datetime(),
    ageSeconds: z.number().int(),
    dueAt: z.iso.datetime().nullable(),
    overdue: z.boolean(),
    reviewUrl: z.string(),
    pollUrl: z.string(),
    required: z.number().int(),
    approvals: z.array(z.object({ by: z.string(), at: z.iso.datetime() })),
  })
  .meta({ description: 'A review item: an open one carries its revision, what a reviewer saw.' });

/** A run's step as its review screen draws it (`ReviewStep`). */
const reviewStepSchema = z.object({
  name: z.string(),
  type: z.enum(['skill', 'approve']),
  skill: z.string().optional(),
  outputSchema: z.record(z.string(), z.unknown()).nullable().optional(),
  title: z.string().optional(),
  assignTo: z.string().optional(),
});
const peopleSchema = z.object({ roles: z.array(z.string()), users: z.array(z.string()) }).nullable();

/** The review policy in force for an item (`GET /reviews/:kind/:id`'s `policy`), for the OpenAPI document. */
export const policyInForceSchema = z
  .object({
    slug: z.string().nullable(),
    name: z.string(),
    source: z.enum(['named', 'default', 'built_in']),
    namedBy: z.object({ kind: z.string(), slug: z.string(), field: z.string() }).nullable(),
    workspaceSha: z.string().nullable(),
    approvers: peopleSchema,
    required: z.number().int(),
    selfApproval: z.boolean(),
    dueIn: z.string().nullable(),
    remindBefore: z.string().nullable(),
    escalateTo: peopleSchema,
    onTimeout: z.enum(['none', 'escalate', 'reject']),
    canDecide: z.boolean().meta({
      description: 'Whether the caller may decide the item at all: the approve capability and an approver.',
    }),
    canApprove: z.boolean().meta({
      description:
        'Whether the caller may approve it now: canDecide, not its starter under selfApproval: false, not approved by them already.',
    }),
    refusal: z
      .object({
        reason: z.enum(['no_approve_capability', 'not_an_approver', 'self_approval', 'already_approved']),
        message: z.string(),
      })
      .nullable()
      .meta({
        description: 'Why the caller may not approve (the words of the refusal a decision would get).',
      }),
  })
  .meta({
    description:
      'The review policy an item follows: named by its skill, gate, mission or agent, else the org’s default, else built in.',
  });

/** Path of `GET /reviews/:kind/:id` (strings: anything else than a kind and an id is 404). */
const itemParams = z.object({ kind: z.string(), id: z.string() });

/** The item `{kind, id}` a path names; 404 for an unknown kind or an id that is no positive integer. */
function itemRef(params: { kind: string; id: string }): { kind: ReviewKind; id: number } {
  const kind = kindSchema.safeParse(params.kind);
  const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : 0;
  if (!kind.success || id < 1) throw notFound(`${params.kind} review`, params.id);
  return { kind: kind.data, id };
}

type ListQuery = z.output<typeof reviewListQuerySchema>;

/** The service's query for the API's. */
function toQuery(query: ListQuery): ReviewQuery {
  return {
    assignedTo:
      query.assignedTo === undefined
        ? undefined
        : query.assignedTo === UNASSIGNED_LANE
          ? null
          : query.assignedTo,
    includeSnoozed: query.includeSnoozed,
    overdue: query.overdue,
    sort: query.sort,
    limit: query.limit,
    after: query.after,
  };
}

/** The opaque cursor of position `next`. */
function cursorOf(next: ReviewPosition): string {
  return 'dueAt' in next
    ? encodeDueCursor(next.dueAt, next.itemId)
    : encodeTimeCursor(next.createdAt, next.itemId);
}

function pageBody(page: ReviewPage): { reviews: ReviewPage['reviews']; nextCursor: string | null } {
  return {
    reviews: page.reviews,
    nextCursor: page.next ? cursorOf(page.next) : null,
  };
}

/** The review queue routes over `reviews`. */
export function reviewRoutes(reviews: ReviewService): RouteDef[] {
  const refreshed = async (principal: Principal, query: ListQuery) => ({
    ok: true,
    ...pageBody(await reviews.list(principal, toQuery(query))),
  });
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/reviews',
      access: access.read,
      query: reviewListQuerySchema,
      summary:
        'The review queue, oldest first (sort=due: soonest due first, items without a due time last): active items (not snoozed, or snooze passed); assignedTo=<userId>|unassigned, includeSnoozed=true, overdue=true|false; {reviews, nextCursor}.',
      responses: {
        200: {
          description: 'A page of the queue.',
          schema: z.object({ reviews: z.array(reviewViewSchema), nextCursor: z.string().nullable() }),
        },
      },
      handler: async ({ principal, query }) => ok(pageBody(await reviews.list(principal, toQuery(query)))),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/reviews/:kind/:id',
      access: access.read,
      params: itemParams,
      summary:
        'One review item — the open one of the subject, else its last one — with its subject as the subject’s GET answers it (and, for skill and workflow runs, `steps`: the run’s steps with each skill step’s outputSchema); `ETag` is the open item’s revision.',
      responses: {
        200: {
          description: '{review, subject, steps?}; header ETag: "<revision>" while the item is open.',
          schema: z.object({
            review: reviewViewSchema,
            subject: z.unknown(),
            steps: z.array(reviewStepSchema).optional(),
            policy: policyInForceSchema,
          }),
        },
      },
      handler: async ({ principal, params }) => {
        const found = await reviews.get(principal, itemRef(params));
        const revision = found.review.revision;
        return ok(found, revision === null ? undefined : { ETag: etagOf(revision) });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/reviews/decide',
      access: access.approve,
      query: reviewListQuerySchema,
      body: reviewDecideBodySchema,
      summary:
        'Approve or reject a review item (skill: approve/reject; workflow, mission: resume/cancel; action: execute/drop), or send a skill draft or a mission plan back with `request_changes` and a `reason` (the model drafts again; the new draft is a new item, at most 5 rounds); {ok, reviews, nextCursor}. 409 when it is no longer in the queue, when `revision` (or If-Match) is not current (details {reason: "stale", revision}), or after 5 rounds (details {reason: "max_rounds"}).',
      handler: async ({ principal, query, body, headers, requestId }) => {
        await reviews.decide(principal, {
          kind: body.kind,
          id: body.id,
          action: body.action,
          reason: body.reason,
          reviewedBy: body.reviewedBy,
          revision: body.revision ?? ifMatchRevision(headers['if-match']),
          edits: body.edits,
          requestId,
          delaySeconds: body.delaySeconds,
        });
        return ok(await refreshed(principal, query));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/reviews/undo',
      access: access.approve,
      query: reviewListQuerySchema,
      body: reviewUndoBodySchema,
      summary:
        'Withdraw a decision taken with delaySeconds before its effectiveAt: the item is open again (new revision); the refreshed queue. 409 when the item holds no such decision or effectiveAt has come.',
      handler: async ({ principal, query, body, requestId }) => {
        await reviews.undo(principal, { kind: body.kind, id: body.id }, requestId);
        return ok(await refreshed(principal, query));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/reviews/decide-batch',
      access: access.approve,
      query: reviewListQuerySchema,
      body: reviewDecideBatchBodySchema,
      // Each item is one unit of the caller's rate limit, as a decide of its own would be.
      units: (body) => body.items.length,
      summary:
        'Approve or reject 1–100 review items at once, all or nothing: 409 details.items [{kind, id, reason: not_found|stale|not_open}] and nothing decided; else {ok, decided, reviews, nextCursor}. Each item is one rate-limit unit.',
      handler: async ({ principal, query, body, requestId }) => {
        const decided = await reviews.decideBatch(principal, { ...body, requestId });
        const page = await refreshed(principal, query);
        return ok({ ok: true, decided, reviews: page.reviews, nextCursor: page.nextCursor });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/reviews/assign',
      access: access.approve,
      query: reviewListQuerySchema,
      body: reviewAssignBodySchema,
      summary:
        'Assign a review item to a user of the org (null: back to triage) with a note; the refreshed queue.',
      handler: async ({ principal, query, body, requestId }) => {
        await reviews.assign(principal, {
          kind: body.kind,
          id: body.id,
          assignedTo: body.assignedTo,
          note: body.note,
          requestId,
        });
        return ok(await refreshed(principal, query));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/reviews/snooze',
      access: access.approve,
      query: reviewListQuerySchema,
      body: reviewSnoozeBodySchema,
      summary: 'Hide a review item from the active queue until `until` (future); the refreshed queue.',
      handler: async ({ principal, query, body, requestId }) => {
        await reviews.snooze(principal, { kind: body.kind, id: body.id, until: body.until, requestId });
        return ok(await refreshed(principal, query));
      },
    }),
  ];
}
