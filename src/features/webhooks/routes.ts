/**
 * `/api/v1/webhooks` (docs/api.md "Webhooks"): register (201, the secret is never echoed), list, read, update
 * (`active: true` re-enables), delete, deliveries (newest first), one delivery with its attempts
 * (extension), replay a delivery (202), rotate the secret (200, the new secret once). Reads need
 * `read:all`; everything else `write:resources`. Another org's webhook is 404.
 */
import { z } from 'zod';
import { access } from '../../platform/auth/guard.js';
import { notFound } from '../../platform/errors.js';
import {
  encodeTimeCursor,
  idCursorSchema,
  limitSchema,
  nextCursor,
  timeCursorSchema,
} from '../../platform/http/pagination.js';
import { json, ok } from '../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../platform/http/server.js';
import { deliveryIdSchema } from './payload.js';
import { deliveryDetailSchema, deliveryViewSchema, webhookViewSchema } from './views.js';
import { createWebhookBodySchema, updateWebhookBodySchema } from './webhook-schemas.js';
import type { WebhookService } from './webhook-service.js';

const idParams = z.object({ id: z.string() });
const deliveryParams = z.object({ id: z.string(), deliveryId: z.string() });

/** A webhook id from the path; anything that is not one names no webhook (404). */
function webhookId(raw: string): number {
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw notFound('webhook', raw);
  return id;
}

/** A delivery id from the path; a malformed one names no delivery (404). */
function deliveryId(raw: string): string {
  if (!deliveryIdSchema.safeParse(raw).success) throw notFound('delivery', raw);
  return raw;
}

const webhookAnswer = { 200: { description: 'The webhook.', schema: webhookViewSchema } };

export function webhookRoutes(webhooks: WebhookService): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/webhooks',
      access: access.write,
      body: createWebhookBodySchema,
      summary:
        'Registers a webhook: 201 {id, url, events, filter, active, createdAt}; the secret is not echoed.',
      responses: { 201: { description: 'The webhook (without its secret).', schema: webhookViewSchema } },
      handler: async ({ principal, body, requestId }) =>
        json(201, await webhooks.create(principal, body, requestId)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/webhooks',
      access: access.read,
      query: z.strictObject({ limit: limitSchema, cursor: idCursorSchema.optional() }),
      summary: "The org's webhooks, oldest first: {webhooks, nextCursor}.",
      responses: {
        200: {
          description: 'A page of webhooks.',
          schema: z.object({ webhooks: z.array(webhookViewSchema), nextCursor: z.string().nullable() }),
        },
      },
      handler: async ({ principal, query }) => {
        const page = await webhooks.list(principal, { limit: query.limit, afterId: query.cursor });
        return ok({ webhooks: page.items, nextCursor: nextCursor(page.nextAfter) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/webhooks/:id',
      access: access.read,
      params: idParams,
      summary: 'One webhook.',
      responses: webhookAnswer,
      handler: async ({ principal, params }) => ok(await webhooks.get(principal, webhookId(params.id))),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/webhooks/:id',
      access: access.write,
      params: idParams,
      body: updateWebhookBodySchema,
      summary:
        'Updates url, events or filter; active: true re-enables a disabled webhook, false disables it.',
      responses: webhookAnswer,
      handler: async ({ principal, params, body, requestId }) =>
        ok(await webhooks.update(principal, webhookId(params.id), body, requestId)),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/webhooks/:id',
      access: access.write,
      params: idParams,
      summary: 'Deletes a webhook and its deliveries: {id, deleted: true}.',
      responses: {
        200: {
          description: 'Deleted.',
          schema: z.object({ id: z.number().int(), deleted: z.literal(true) }),
        },
      },
      handler: async ({ principal, params, requestId }) =>
        ok(await webhooks.delete(principal, webhookId(params.id), requestId)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/webhooks/:id/deliveries',
      access: access.read,
      params: idParams,
      query: z.strictObject({
        limit: limitSchema,
        cursor: timeCursorSchema.optional(),
        status: z.enum(['pending', 'delivered', 'failed']).optional(),
      }),
      summary: "The webhook's deliveries, newest first: {deliveries, nextCursor}.",
      responses: {
        200: {
          description: 'A page of deliveries.',
          schema: z.object({ deliveries: z.array(deliveryViewSchema), nextCursor: z.string().nullable() }),
        },
      },
      handler: async ({ principal, params, query }) => {
        const page = await webhooks.deliveries(principal, webhookId(params.id), {
          limit: query.limit,
          before: query.cursor,
          status: query.status,
        });
        return ok({
          deliveries: page.items,
          nextCursor: page.next ? encodeTimeCursor(page.next.createdAt, page.next.id) : null,
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/webhooks/:id/deliveries/:deliveryId',
      access: access.read,
      params: deliveryParams,
      summary:
        'Extension: one delivery with lastError and attemptLog (status, duration, body excerpt per attempt).',
      responses: { 200: { description: 'The delivery and its attempts.', schema: deliveryDetailSchema } },
      handler: async ({ principal, params }) =>
        ok(await webhooks.delivery(principal, webhookId(params.id), deliveryId(params.deliveryId))),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/webhooks/:id/deliveries/:deliveryId/replay',
      access: access.write,
      params: deliveryParams,
      body: z.strictObject({}),
      summary: 'Redelivers the event as a new delivery with the current URL and secret: 202 {deliveryId}.',
      responses: { 202: { description: 'The new delivery.', schema: z.object({ deliveryId: z.string() }) } },
      handler: async ({ principal, params, requestId }) =>
        json(
          202,
          await webhooks.replay(principal, webhookId(params.id), deliveryId(params.deliveryId), requestId),
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/webhooks/:id/rotate-secret',
      access: access.write,
      params: idParams,
      body: z.strictObject({}),
      summary:
        'Replaces the signing secret: 200 {secret} (whsec_…); the old one co-signs for the old-secret window.',
      responses: {
        200: { description: 'The new secret, shown once.', schema: z.object({ secret: z.string() }) },
      },
      handler: async ({ principal, params, requestId }) =>
        ok(await webhooks.rotateSecret(principal, webhookId(params.id), requestId)),
    }),
  ];
}
