/**
 * Review events as their receivers see them (decisions §15): what a review item's transition puts on
 * the bus (`ReviewEventPayload`, through the outbox), and the `data` that webhooks and the queue
 * stream (`GET /reviews/stream`) both derive from it.
 *
 * Terminology:
 * - change: the item's own domain event name (`opened`, `assigned`, `snoozed`, `woken`, `updated`,
 *   `decided`, `changes_requested`, `cancelled`, and the deadline's `due_soon`, `overdue`,
 *   `escalated`, `timeout`; and `deciding`, `undone` of a delayed decision), the last token of `evt.<org>.review.<itemId>.<name>`.
 * - review event type: the public name of a change, `review.<…>`. Eight are webhook event types
 *   (`REVIEW_EVENT_TYPES`: an item opening is `review.requested`); `woken`, `updated`, `cancelled`,
 *   `timeout`, `deciding` and `undone` are the stream's only (`review.woken`, …; a timeout's rejection is the
 *   `review.decided` that follows it, `by: "system:timeout"`; a decision taken with a delay
 *   reaches webhooks once, as `review.decided` when it takes effect).
 */
import { z } from 'zod';
import { REVIEW_EVENT_NAMES, type ReviewEventName } from '../../../machines/index.js';
import { REVIEW_KINDS, REVIEW_STATUS_OF_KIND } from './subjects.js';

/** The review event types a webhook can subscribe to, in the order docs/api.md lists them. */
export const REVIEW_EVENT_TYPES = [
  'review.requested',
  'review.assigned',
  'review.snoozed',
  'review.decided',
  'review.changes_requested',
  'review.due_soon',
  'review.overdue',
  'review.escalated',
] as const;

/** A review event type a webhook can subscribe to. */
export type ReviewEventType = (typeof REVIEW_EVENT_TYPES)[number];

/** The webhook event type of each change that has one. */
const WEBHOOK_TYPE_OF: Partial<Record<ReviewEventName, ReviewEventType>> = {
  opened: 'review.requested',
  assigned: 'review.assigned',
  snoozed: 'review.snoozed',
  decided: 'review.decided',
  changes_requested: 'review.changes_requested',
  due_soon: 'review.due_soon',
  overdue: 'review.overdue',
  escalated: 'review.escalated',
};

/** The changes of the item's deadline, whose data carries `dueAt`. */
const DEADLINE_CHANGES: ReadonlySet<ReviewEventName> = new Set([
  'due_soon',
  'overdue',
  'escalated',
  'timeout',
]);

/**
 * The changes whose data carries the decision (`action`, `edited`, `reason`): a decision taken, or
 * one held for its delay (`deciding`) or withdrawn (`undone`).
 */
const DECIDING_CHANGES: ReadonlySet<ReviewEventName> = new Set([
  'decided',
  'changes_requested',
  'deciding',
  'undone',
]);

/** The webhook event type of change `name`, or null when webhooks are not told of it. */
export function reviewWebhookType(name: string): ReviewEventType | null {
  return WEBHOOK_TYPE_OF[name as ReviewEventName] ?? null;
}

/** The queue stream's event name of change `name`: its webhook type, else `review.<name>`. */
export function reviewStreamEventName(name: ReviewEventName): string {
  return WEBHOOK_TYPE_OF[name] ?? `review.${name}`;
}

/**
 * The payload of a review event on the bus (outbox → `evt.<org>.review.<reviewItemId>.<event>`): the
 * item's state after the transition. `runId` and `kind` are the item's identity in the API.
 */
export const reviewEventPayloadSchema = z.object({
  /** Unique per event (consumers dedupe by it). */
  eventId: z.string().min(1),
  orgId: z.number().int().positive(),
  reviewItemId: z.number().int().positive(),
  kind: z.enum(REVIEW_KINDS),
  runId: z.number().int().positive(),
  event: z.enum(REVIEW_EVENT_NAMES),
  title: z.string(),
  summary: z.string().nullable(),
  /** The item's own status: unassigned, assigned, snoozed, decided, cancelled. */
  status: z.string().min(1),
  /** The item's revision after the transition (what a reviewer now sees); null once it closed. */
  revision: z.string().nullable(),
  assignedTo: z.string().nullable(),
  snoozedUntil: z.string().nullable(),
  note: z.string().nullable(),
  /** When the item is due (after the transition: an escalation's is the new one); absent: none. */
  dueAt: z.string().nullable().optional(),
  /** The decision's action once decided (or changes requested), else null. */
  decision: z.string().nullable(),
  /** Whether the decision applied the reviewer's edits (false without a decision). */
  edited: z.boolean(),
  /** The decision's reason (a rejection's) or note (an approval's), else null. */
  reason: z.string().nullable(),
  /** Who caused it: `token:<id>`, `mcp`, `timer` (a snooze ended), `worker`, `system`. */
  by: z.string().min(1),
  at: z.string().min(1),
});

/** The payload of a review event on the bus. */
export type ReviewEventPayload = z.infer<typeof reviewEventPayloadSchema>;

/**
 * `data` of a review event (decisions §15, and the item's `summary`), in webhook deliveries and on
 * the queue stream. `status`
 * is the item's as `GET /reviews/:kind/:id` shows it: what its subject is while the item waits
 * (`pending`, `paused`, `awaiting_review`), else the item's own (`decided`, `cancelled`). `action`,
 * `edited` and `reason` come with a decision (`review.decided`, `review.changes_requested`); `dueAt`
 * with a change of the deadline (`review.due_soon`, `review.overdue`, `review.escalated`).
 */
export const reviewEventDataSchema = z
  .object({
    kind: z.enum(REVIEW_KINDS),
    id: z.number().int().positive(),
    title: z.string(),
    summary: z.string().nullable(),
    status: z.string().min(1),
    assignedTo: z.string().nullable(),
    revision: z.string().nullable(),
    action: z.enum(['approve', 'reject', 'request_changes']).optional(),
    edited: z.boolean().optional(),
    by: z.string().min(1).optional(),
    reason: z.string().nullable().optional(),
    dueAt: z.string().nullable().optional(),
  })
  .strict();

/** `data` of a review event. */
export type ReviewEventData = z.infer<typeof reviewEventDataSchema>;

/** The item statuses in which it waits in the queue (its subject's status is shown instead). */
const WAITING = new Set(['unassigned', 'assigned', 'snoozed']);

/** The `data` of a review event, from its payload on the bus. */
export function reviewEventData(payload: ReviewEventPayload): ReviewEventData {
  const status = WAITING.has(payload.status) ? REVIEW_STATUS_OF_KIND[payload.kind] : payload.status;
  const data: ReviewEventData = {
    kind: payload.kind,
    id: payload.runId,
    title: payload.title,
    summary: payload.summary,
    status,
    assignedTo: payload.assignedTo,
    revision: payload.revision,
    by: payload.by,
  };
  if (DECIDING_CHANGES.has(payload.event) && payload.decision !== null) {
    data.action = payload.decision as NonNullable<ReviewEventData['action']>;
    data.edited = payload.edited;
    data.reason = payload.reason;
  }
  if (DEADLINE_CHANGES.has(payload.event)) data.dueAt = payload.dueAt ?? null;
  return data;
}
