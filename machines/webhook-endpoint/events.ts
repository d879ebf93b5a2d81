import { z } from 'zod';
import { entityIdSchema, isoTimestampSchema } from '../shared/schemas.js';
import { deliveryIdSchema } from '../webhook-delivery/events.js';

/** What the host passes to `initialTransition(webhookEndpointMachine, input)` when a webhook is registered. */
export const webhookEndpointInputSchema = z.strictObject({
  webhookId: entityIdSchema,
  active: z.boolean(),
  at: isoTimestampSchema,
});

/** Input of a webhook endpoint. */
export type WebhookEndpointInput = z.infer<typeof webhookEndpointInputSchema>;

/** A delivery to this webhook failed for good (after all its attempts). */
export const deliveryFailedEventSchema = z.strictObject({
  type: z.literal('DELIVERY_FAILED'),
  deliveryId: deliveryIdSchema,
  at: isoTimestampSchema,
});

/** A delivery failed for good. */
export type DeliveryFailedEvent = z.infer<typeof deliveryFailedEventSchema>;

/** A delivery to this webhook was delivered. */
export const deliverySucceededEventSchema = z.strictObject({
  type: z.literal('DELIVERY_SUCCEEDED'),
  deliveryId: deliveryIdSchema,
  at: isoTimestampSchema,
});

/** A delivery was delivered. */
export type DeliverySucceededEvent = z.infer<typeof deliverySucceededEventSchema>;

/** Re-enable the webhook (`PATCH /webhooks/:id {active: true}`). */
export const endpointEnableEventSchema = z.strictObject({
  type: z.literal('ENABLE'),
  at: isoTimestampSchema,
});

/** Re-enable the webhook. */
export type EndpointEnableEvent = z.infer<typeof endpointEnableEventSchema>;

/** Disable the webhook by hand (`PATCH /webhooks/:id {active: false}`). */
export const endpointDisableEventSchema = z.strictObject({
  type: z.literal('DISABLE'),
  at: isoTimestampSchema,
});

/** Disable the webhook by hand. */
export type EndpointDisableEvent = z.infer<typeof endpointDisableEventSchema>;

/** Every event a webhook endpoint understands (whether a state accepts it is the machine's call). */
export const webhookEndpointEventSchema = z.discriminatedUnion('type', [
  deliveryFailedEventSchema,
  deliverySucceededEventSchema,
  endpointEnableEventSchema,
  endpointDisableEventSchema,
]);

/** An event of a webhook endpoint. */
export type WebhookEndpointEvent = z.infer<typeof webhookEndpointEventSchema>;
