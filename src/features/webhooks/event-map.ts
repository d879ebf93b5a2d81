/**
 * From a domain event on the bus to what a webhook receives: the webhook event type, the `data` of
 * the delivery body, and what `matchesFilter` needs (the run's kind and slug).
 *
 * Run events map by name: `started`, `paused_for_review`, `approved`, `rejected`, `completed` and
 * `failed` to `run.<name>`; `step_completed` to `run.step_completed` for workflow runs only
 * (docs/api.md#events-and-filters; a skill run's one step is its run). `step_started` and
 * `cancelled` have no webhook type. Proposal events `created`, `executed` and `failed` map to
 * `proposal.<name>` (its approved, rejected and cancelled have none). Review-item events
 * (`evt.<org>.review.…`) map as the reviews feature says (`opened` to `review.requested`,
 * `assigned`, `snoozed`, `decided` and `changes_requested` to `review.<name>`; `woken`, `updated` and
 * `cancelled` to none). Anything else maps to nothing: the dispatcher acknowledges it and moves on.
 */
import { z } from 'zod';
import { MISSION_RUN_STATUSES, PROPOSAL_STATUSES } from '../../../machines/index.js';
import { parseEventSubject } from '../../platform/bus/subjects.js';
import {
  type ReviewEventData,
  type ReviewEventType,
  reviewEventData,
  reviewEventPayloadSchema,
  reviewWebhookType,
} from '../reviews/index.js';
import { runEventPayloadSchema } from '../runs/index.js';
import type {
  EventDescriptor,
  MissionEventData,
  MissionEventType,
  ObjectCreatedData,
  ProposalEventData,
  ProposalEventType,
  RunEventData,
  WebhookEventType,
} from './payload.js';

/** The payload of `object.created` on the bus (written by object ingest). */
export const objectCreatedPayloadSchema = z.object({
  eventId: z.string().min(1),
  orgId: z.number().int().positive(),
  objectId: z.number().int().positive(),
  slug: z.string().min(1),
  title: z.string(),
  createdAt: z.string().min(1),
});

/** The payload of a proposal event on the bus (written by the proposal actor's transitions). */
export const proposalEventPayloadSchema = z.object({
  eventId: z.string().min(1),
  orgId: z.number().int().positive(),
  proposalId: z.number().int().positive(),
  event: z.string().min(1),
  action: z.string().min(1),
  source: z.string().min(1),
  status: z.enum(PROPOSAL_STATUSES),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  at: z.string().min(1),
});

/** The payload of a mission run event on the bus (written by the mission-run actor's transitions). */
export const missionEventPayloadSchema = z.object({
  eventId: z.string().min(1),
  orgId: z.number().int().positive(),
  missionRunId: z.number().int().positive(),
  mission: z.string().nullable(),
  event: z.string().min(1),
  status: z.enum(MISSION_RUN_STATUSES),
  at: z.string().min(1),
});

/** Run event types. */
type RunWebhookType = Exclude<
  WebhookEventType,
  'object.created' | ProposalEventType | MissionEventType | ReviewEventType
>;

/** A domain event a webhook may want. */
export type WebhookEvent =
  | {
      type: ProposalEventType;
      eventId: string;
      orgId: number;
      descriptor: EventDescriptor;
      createdAt: string;
      data: ProposalEventData;
    }
  | {
      type: RunWebhookType;
      eventId: string;
      orgId: number;
      descriptor: EventDescriptor;
      createdAt: string;
      data: RunEventData;
    }
  | {
      type: MissionEventType;
      eventId: string;
      orgId: number;
      descriptor: EventDescriptor;
      createdAt: string;
      data: MissionEventData;
    }
  | {
      type: ReviewEventType;
      eventId: string;
      orgId: number;
      descriptor: EventDescriptor;
      createdAt: string;
      data: ReviewEventData;
    }
  | {
      type: 'object.created';
      eventId: string;
      orgId: number;
      descriptor: EventDescriptor;
      createdAt: string;
      data: ObjectCreatedData;
    };

const RUN_TYPES: Readonly<Record<string, RunWebhookType>> = {
  started: 'run.started',
  step_completed: 'run.step_completed',
  paused_for_review: 'run.paused_for_review',
  approved: 'run.approved',
  rejected: 'run.rejected',
  completed: 'run.completed',
  failed: 'run.failed',
};

const PROPOSAL_TYPES: Readonly<Record<string, ProposalEventType>> = {
  created: 'proposal.created',
  executed: 'proposal.executed',
  failed: 'proposal.failed',
};

const MISSION_TYPES: Readonly<Record<string, MissionEventType>> = {
  started: 'mission.started',
  awaiting_review: 'mission.awaiting_review',
  completed: 'mission.completed',
  failed: 'mission.failed',
  cancelled: 'mission.cancelled',
};

/** The webhook event type of a run event, or null when it has none. */
export function runWebhookType(event: string, kind: 'skill' | 'workflow'): RunWebhookType | null {
  if (event === 'step_completed' && kind !== 'workflow') return null;
  return RUN_TYPES[event] ?? null;
}

/**
 * Whether a message on `subject` can map to a webhook type at all, from its subject alone: the
 * dispatcher acknowledges the rest (step_started, cancelled, review events) without decoding them.
 */
export function mayMapToWebhook(subject: string): boolean {
  const parsed = parseEventSubject(subject);
  if (!parsed) return false;
  if (parsed.kind === 'object') return parsed.name === 'created';
  if (parsed.kind === 'proposal') return parsed.name in PROPOSAL_TYPES;
  if (parsed.kind === 'mission') return parsed.name in MISSION_TYPES;
  if (parsed.kind === 'review') return reviewWebhookType(parsed.name) !== null;
  return parsed.kind === 'run' && parsed.name in RUN_TYPES;
}

/** A webhook event the filter does not look at (it names runs): object, proposal, mission, review. */
type UnfilteredEvent = Exclude<WebhookEvent, { type: RunWebhookType }>;

/** The type and data of one kind of unfiltered event (distributed, so each type keeps its data). */
type UnfilteredTypeAndData = UnfilteredEvent extends infer E
  ? E extends UnfilteredEvent
    ? Pick<E, 'type' | 'data'>
    : never
  : never;

/** The event of `typed`, from a bus payload's ids, happened at `at`; its descriptor is its type alone. */
function unfiltered(
  typed: UnfilteredTypeAndData,
  source: { eventId: string; orgId: number },
  at: string,
): WebhookEvent {
  const createdAt = new Date(at).toISOString();
  return {
    ...typed,
    eventId: source.eventId,
    orgId: source.orgId,
    descriptor: { type: typed.type },
    createdAt,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The webhook event of a bus message, or null when no webhook type fits. Throws a `ZodError` when
 * the payload of a mapped subject is malformed (a bug upstream: the dispatcher logs and skips it).
 */
export function toWebhookEvent(subject: string, payload: unknown): WebhookEvent | null {
  const parsed = parseEventSubject(subject);
  if (!parsed) return null;
  if (parsed.kind === 'object') {
    if (parsed.name !== 'created') return null;
    const p = objectCreatedPayloadSchema.parse(payload);
    const createdAt = new Date(p.createdAt).toISOString();
    const data = { objectId: p.objectId, slug: p.slug, title: p.title, createdAt };
    return unfiltered({ type: 'object.created', data }, p, createdAt);
  }
  if (parsed.kind === 'proposal') {
    const type = PROPOSAL_TYPES[parsed.name];
    if (!type) return null;
    const p = proposalEventPayloadSchema.parse(payload);
    const { proposalId, action, source, status, result, error } = p;
    return unfiltered({ type, data: { proposalId, action, source, status, result, error } }, p, p.at);
  }
  if (parsed.kind === 'mission') {
    const type = MISSION_TYPES[parsed.name];
    if (!type) return null;
    const p = missionEventPayloadSchema.parse(payload);
    const data = { missionRunId: p.missionRunId, mission: p.mission, status: p.status };
    return unfiltered({ type, data }, p, p.at);
  }
  if (parsed.kind === 'review') {
    const type = reviewWebhookType(parsed.name);
    if (!type) return null;
    const p = reviewEventPayloadSchema.parse(payload);
    return unfiltered({ type, data: reviewEventData(p) }, p, p.at);
  }
  if (parsed.kind !== 'run') return null;
  const p = runEventPayloadSchema.parse(payload);
  // A shadow run (an evaluation's replay) is never on a webhook (docs/api.md "Evaluations").
  const type = p.shadow ? null : runWebhookType(p.event, p.kind);
  if (!type) return null;
  const data: RunEventData = {
    runId: p.runId,
    kind: p.kind,
    slug: p.slug,
    status: p.status as RunEventData['status'],
    output: isObject(p.output) ? p.output : null,
    workspaceSha: p.workspaceSha,
    ...(p.step !== null ? { step: p.step } : {}),
    ...(p.edited ? { edited: true as const } : {}),
  };
  return {
    type,
    eventId: p.eventId,
    orgId: p.orgId,
    descriptor: { type, kind: p.kind, slug: p.slug },
    createdAt: new Date(p.at).toISOString(),
    data,
  };
}
