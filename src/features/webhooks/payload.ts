/**
 * Webhook delivery bodies and subscriptions.
 *
 * Terminology of `src/features/webhooks/`:
 * - **webhook**: a tenant's subscription: target `url`, `events`, `filter`, signing secret(s).
 * - **event**: something that happened (`run.completed`, `object.created`); one event fans out to
 *   every matching webhook.
 * - **delivery**: one event bound for one webhook, with its own `deliveryId` (`whd_…`). It is
 *   `pending` until an attempt gets a 2xx (`delivered`) or the attempts run out (`failed`). A replay
 *   is a new delivery of the same event.
 * - **attempt**: one HTTP POST of a delivery; retries are attempts 2..n, spaced by the backoff list.
 * - **target check**: the SSRF guard run before every attempt; it pins the address to connect to.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { MISSION_RUN_STATUSES, PROPOSAL_STATUSES, RUN_STATUSES } from '../../../machines/index.js';
import { REVIEW_EVENT_TYPES, type ReviewEventData, reviewEventDataSchema } from '../reviews/index.js';

/** The event types about runs. */
export const RUN_EVENT_TYPES = [
  'run.started',
  'run.step_completed',
  'run.paused_for_review',
  'run.approved',
  'run.rejected',
  'run.completed',
  'run.failed',
] as const;

/** The event types about proposals (docs/api.md#proposals). */
export const PROPOSAL_EVENT_TYPES = ['proposal.created', 'proposal.executed', 'proposal.failed'] as const;

/** The event types about mission runs (docs/api.md#missions). */
export const MISSION_EVENT_TYPES = [
  'mission.started',
  'mission.awaiting_review',
  'mission.completed',
  'mission.failed',
  'mission.cancelled',
] as const;

/**
 * Every webhook event type: the eight of docs/api.md#events-and-filters (the runs' seven and
 * object.created), the proposals' three (docs/api.md#proposals), the missions' five
 * (docs/api.md#missions) and the review queue's five (decisions §15), in that order.
 */
export const WEBHOOK_EVENT_TYPES = [
  ...RUN_EVENT_TYPES,
  'object.created',
  ...PROPOSAL_EVENT_TYPES,
  ...MISSION_EVENT_TYPES,
  ...REVIEW_EVENT_TYPES,
] as const;

/** One webhook event type. */
export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

export const runEventTypeSchema = z.enum(RUN_EVENT_TYPES);
export type RunEventType = z.infer<typeof runEventTypeSchema>;

/** A webhook's `events`: at least one type, no repeats. */
export const webhookEventsSchema = z
  .array(webhookEventTypeSchema)
  .min(1)
  .refine((events) => new Set(events).size === events.length, { message: 'event types must not repeat' });

/** A webhook's `filter`; a null or absent key matches everything. */
export const webhookFilterSchema = z
  .object({
    skillSlug: z.string().min(1).nullable().optional(),
    workflowSlug: z.string().min(1).nullable().optional(),
  })
  .strict();
export type WebhookFilter = z.infer<typeof webhookFilterSchema>;

const DELIVERY_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const DELIVERY_ID = /^whd_[a-z2-7]{24}$/;

/** A new delivery id: `whd_` plus 24 lowercase base32 characters (120 random bits). */
export function newDeliveryId(): string {
  const bytes = randomBytes(15);
  let out = '';
  // 15 bytes = 120 bits = exactly 24 groups of 5 bits, so no character is more likely than another.
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += DELIVERY_ID_ALPHABET[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return `whd_${out}`;
}

export const deliveryIdSchema = z
  .string()
  .regex(DELIVERY_ID, 'expected whd_ followed by 24 base32 characters');

/** Run statuses a run event can report. */
export const runStatusSchema = z.enum(RUN_STATUSES);

/**
 * `data` of a run event. `output` is the run's output so far (the step's output for
 * `run.step_completed`), null while there is none, as on `GET /runs/:id`. `step` names the step for
 * `run.step_completed` and the gate for a workflow's `run.paused_for_review`.
 */
export const runEventDataSchema = z
  .object({
    runId: z.number().int().positive(),
    kind: z.enum(['skill', 'workflow']),
    slug: z.string().min(1),
    status: runStatusSchema,
    output: z.record(z.string(), z.unknown()).nullable(),
    // Null only for a run whose org had no applied workspace version (never in practice).
    workspaceSha: z.string().min(1).nullable(),
    step: z.string().min(1).optional(),
    /** `run.approved`: the reviewer edited the output before approving (decisions.md §15). */
    edited: z.literal(true).optional(),
  })
  .strict();
export type RunEventData = z.infer<typeof runEventDataSchema>;

/** `data` of `object.created` (docs/api.md "Webhooks"). */
export const objectCreatedDataSchema = z
  .object({
    objectId: z.number().int().positive(),
    slug: z.string().min(1),
    title: z.string(),
    createdAt: z.iso.datetime(),
  })
  .strict();
export type ObjectCreatedData = z.infer<typeof objectCreatedDataSchema>;

export const proposalEventTypeSchema = z.enum(PROPOSAL_EVENT_TYPES);
export type ProposalEventType = z.infer<typeof proposalEventTypeSchema>;

/**
 * `data` of the proposal events: the proposal after the change. `result` is what the executed action
 * recorded (null until executed); `error` `{code, message}` once failed.
 */
export const proposalEventDataSchema = z
  .object({
    proposalId: z.number().int().positive(),
    action: z.string().min(1),
    source: z.string().min(1),
    status: z.enum(PROPOSAL_STATUSES),
    result: z.record(z.string(), z.unknown()).nullable(),
    error: z.object({ code: z.string(), message: z.string() }).strict().nullable(),
  })
  .strict();
export type ProposalEventData = z.infer<typeof proposalEventDataSchema>;

export const missionEventTypeSchema = z.enum(MISSION_EVENT_TYPES);
export type MissionEventType = z.infer<typeof missionEventTypeSchema>;

/**
 * `data` of the mission events (docs/api.md#missions): the mission run, its mission's slug (null ad hoc),
 * its status.
 */
export const missionEventDataSchema = z
  .object({
    missionRunId: z.number().int().positive(),
    mission: z.string().min(1).nullable(),
    status: z.enum(MISSION_RUN_STATUSES),
  })
  .strict();
export type MissionEventData = z.infer<typeof missionEventDataSchema>;

export const reviewEventTypeSchema = z.enum(REVIEW_EVENT_TYPES);

const envelope = {
  deliveryId: deliveryIdSchema,
  createdAt: z.iso.datetime(),
};

/** The JSON body POSTed to a webhook's URL. */
export const deliveryBodySchema = z.discriminatedUnion('event', [
  z.object({ event: runEventTypeSchema, ...envelope, data: runEventDataSchema }).strict(),
  z.object({ event: z.literal('object.created'), ...envelope, data: objectCreatedDataSchema }).strict(),
  z.object({ event: proposalEventTypeSchema, ...envelope, data: proposalEventDataSchema }).strict(),
  z.object({ event: missionEventTypeSchema, ...envelope, data: missionEventDataSchema }).strict(),
  z.object({ event: reviewEventTypeSchema, ...envelope, data: reviewEventDataSchema }).strict(),
]);
export type DeliveryBody = z.infer<typeof deliveryBodySchema>;

/** Input of {@link buildDeliveryBody}. */
export type DeliveryBodyInput = (
  | { event: RunEventType; data: RunEventData }
  | { event: 'object.created'; data: ObjectCreatedData }
  | { event: ProposalEventType; data: ProposalEventData }
  | { event: MissionEventType; data: MissionEventData }
  | { event: z.infer<typeof reviewEventTypeSchema>; data: ReviewEventData }
) & {
  /** When the event happened; the same on every attempt and on replays of it. */
  createdAt: Date | string;
  /** Defaults to a new id. */
  deliveryId?: string;
};

/**
 * Builds and validates a delivery body, and returns it with its JSON text. The text is what gets
 * signed and sent, and what is stored for retries, so every attempt sends the same bytes.
 * Throws a `ZodError` when the data does not fit the event.
 */
export function buildDeliveryBody(input: DeliveryBodyInput): { body: DeliveryBody; json: string } {
  const createdAt = input.createdAt instanceof Date ? input.createdAt.toISOString() : input.createdAt;
  const body = deliveryBodySchema.parse({
    event: input.event,
    deliveryId: input.deliveryId ?? newDeliveryId(),
    createdAt,
    data: input.data,
  });
  return { body, json: JSON.stringify(body) };
}

/** What {@link matchesFilter} needs of a webhook. */
export interface WebhookSubscription {
  events: readonly string[];
  filter?: WebhookFilter | null;
}

/** What {@link matchesFilter} needs of an event: run events carry the run's kind and slug. */
export interface EventDescriptor {
  type: string;
  kind?: 'skill' | 'workflow';
  slug?: string;
}

/**
 * Whether a webhook wants an event.
 *
 * The type must be in `events`. Then, for run events: no filter key set matches every run;
 * `skillSlug` set matches skill runs of that slug only (never workflow runs, even those whose
 * steps run that skill); `workflowSlug` likewise for workflow runs; both set, a run matching either
 * one. `object.created`, the proposal, mission and review events ignore the filter: both keys name
 * runs, and an object type, a proposal, a mission run or a review item is neither.
 */
export function matchesFilter(webhook: WebhookSubscription, event: EventDescriptor): boolean {
  if (!webhook.events.includes(event.type)) return false;
  if (
    event.type === 'object.created' ||
    event.type.startsWith('proposal.') ||
    event.type.startsWith('mission.') ||
    event.type.startsWith('review.')
  ) {
    return true;
  }
  const skillSlug = webhook.filter?.skillSlug ?? null;
  const workflowSlug = webhook.filter?.workflowSlug ?? null;
  if (skillSlug === null && workflowSlug === null) return true;
  if (skillSlug !== null && event.kind === 'skill' && event.slug === skillSlug) return true;
  return workflowSlug !== null && event.kind === 'workflow' && event.slug === workflowSlug;
}
