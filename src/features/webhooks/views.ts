/**
 * Webhooks and deliveries in their wire shapes (docs/api.md "Webhooks"), from their rows. A webhook's secret
 * never appears in any of them.
 */
import { z } from 'zod';

const iso = z.iso.datetime();

/** `WebhookView` as a schema. */
export const webhookViewSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  events: z.array(z.string()),
  filter: z.object({ skillSlug: z.string().nullable(), workflowSlug: z.string().nullable() }),
  active: z.boolean(),
  createdAt: iso,
  consecutiveFailures: z.number().int(),
  disabledAt: iso.nullable(),
  disabledReason: z.string().nullable(),
  updatedAt: iso,
});

/** `DeliveryView` as a schema. */
export const deliveryViewSchema = z.object({
  deliveryId: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  lastAttemptAt: iso.nullable(),
  nextAttemptAt: iso.nullable(),
  responseStatus: z.number().int().nullable(),
  replayOf: z.string().nullable(),
  createdAt: iso,
});

/** A delivery with its attempts, as a schema. */
export const deliveryDetailSchema = deliveryViewSchema.extend({
  lastError: z.string().nullable(),
  attemptLog: z.array(
    z.object({
      attempt: z.number().int(),
      url: z.string(),
      responseStatus: z.number().int().nullable(),
      error: z.string().nullable(),
      durationMs: z.number(),
      bodyExcerpt: z.string(),
      at: iso,
    }),
  ),
  actorId: z.number().int(),
});

/** A webhook as the API answers it. */
export interface WebhookView {
  id: number;
  url: string;
  events: string[];
  filter: { skillSlug: string | null; workflowSlug: string | null };
  active: boolean;
  createdAt: string;
  /** Extension: failed deliveries in a row (10 disables the webhook). */
  consecutiveFailures: number;
  /** Extension: when and why the webhook was disabled (`consecutive_failures` or `manual`), else null. */
  disabledAt: string | null;
  disabledReason: string | null;
  updatedAt: string;
}

/** The columns a webhook view reads. */
export const WEBHOOK_COLUMNS =
  'id, url, events, filter, active, consecutive_failures, disabled_at, disabled_reason, created_at, updated_at';

export interface WebhookRow {
  id: number;
  url: string;
  events: string[];
  filter: { skillSlug?: string | null; workflowSlug?: string | null } | null;
  active: boolean;
  consecutive_failures: number;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export function webhookView(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    filter: { skillSlug: row.filter?.skillSlug ?? null, workflowSlug: row.filter?.workflowSlug ?? null },
    active: row.active,
    createdAt: row.created_at.toISOString(),
    consecutiveFailures: row.consecutive_failures,
    disabledAt: row.disabled_at?.toISOString() ?? null,
    disabledReason: row.disabled_reason,
    updatedAt: row.updated_at.toISOString(),
  };
}

/** A delivery as `GET /webhooks/:id/deliveries` lists it. */
export interface DeliveryView {
  deliveryId: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  replayOf: string | null;
  createdAt: string;
}

/** The columns a delivery view reads. */
export const DELIVERY_COLUMNS =
  'id, delivery_id, event_type, api_status, attempts, last_attempt_at, next_attempt_at, response_status, replay_of, last_error, created_at';

export interface DeliveryRow {
  id: number;
  delivery_id: string;
  event_type: string;
  api_status: DeliveryView['status'];
  attempts: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  response_status: number | null;
  replay_of: string | null;
  last_error: string | null;
  created_at: Date;
}

export function deliveryView(row: DeliveryRow): DeliveryView {
  return {
    deliveryId: row.delivery_id,
    event: row.event_type,
    status: row.api_status,
    attempts: row.attempts,
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    responseStatus: row.response_status,
    replayOf: row.replay_of,
    createdAt: row.created_at.toISOString(),
  };
}

/** One attempt of a delivery (extension: `GET /webhooks/:id/deliveries/:deliveryId`). */
export interface AttemptView {
  attempt: number;
  url: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  bodyExcerpt: string;
  at: string;
}

export interface AttemptRowRead {
  attempt: number;
  url: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  body_excerpt: string;
  at: Date;
}

export function attemptView(row: AttemptRowRead): AttemptView {
  return {
    attempt: row.attempt,
    url: row.url,
    responseStatus: row.response_status,
    error: row.error,
    durationMs: row.duration_ms,
    bodyExcerpt: row.body_excerpt,
    at: row.at.toISOString(),
  };
}
