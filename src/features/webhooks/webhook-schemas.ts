/** The wire shapes of webhook registration and updates (REST bodies; reusable by MCP and the SDK). */
import { z } from 'zod';
import { MAX_TARGET_URL_LENGTH } from '../../platform/net/ssrf.js';
import { webhookEventsSchema, webhookFilterSchema } from './payload.js';

/** Shortest signing secret a caller may register (the caller supplies it: docs/api.md#webhooks). */
export const MIN_SECRET_LENGTH = 16;
/** Longest signing secret. */
export const MAX_SECRET_LENGTH = 256;

const urlSchema = z.string().min(1).max(MAX_TARGET_URL_LENGTH);

/** Body of `POST /webhooks`. */
export const createWebhookBodySchema = z.strictObject({
  url: urlSchema,
  events: webhookEventsSchema,
  filter: webhookFilterSchema.nullish(),
  secret: z
    .string()
    .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`)
    .max(MAX_SECRET_LENGTH)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
});
export type CreateWebhookBody = z.infer<typeof createWebhookBodySchema>;

/** Body of `PATCH /webhooks/:id`: any subset; `active: true` re-enables, `active: false` disables. */
export const updateWebhookBodySchema = z.strictObject({
  url: urlSchema.optional(),
  events: webhookEventsSchema.optional(),
  filter: webhookFilterSchema.nullable().optional(),
  active: z.boolean().optional(),
});
export type UpdateWebhookBody = z.infer<typeof updateWebhookBodySchema>;
