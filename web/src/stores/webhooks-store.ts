/** The webhooks page: the org's webhooks, the deliveries of the one opened, and a rotated secret. */
import { createStore } from '@xstate/store';
import type { Delivery, DeliveryDetail, Webhook } from '../wire.js';

export type { Delivery, DeliveryDetail, Webhook };

export const webhooksStore = createStore({
  context: {
    webhooks: [] as Webhook[],
    loaded: false,
    error: null as string | null,
    /** The webhook whose deliveries are shown. */
    openId: null as number | null,
    deliveries: [] as Delivery[],
    /** Attempts and the actor id by delivery id (loaded when a delivery is expanded). */
    attempts: {} as Record<string, DeliveryDetail>,
    secret: null as { webhookId: number; secret: string } | null,
  },
  on: {
    loaded: (context, event: { webhooks: Webhook[] }) => ({
      ...context,
      webhooks: event.webhooks,
      loaded: true,
    }),
    failed: (context, event: { error: string | null }) => ({ ...context, error: event.error }),
    opened: (context, event: { openId: number | null }) => ({
      ...context,
      openId: event.openId,
      deliveries: [],
      attempts: {},
    }),
    deliveriesLoaded: (context, event: { webhookId: number; deliveries: Delivery[] }) =>
      event.webhookId === context.openId ? { ...context, deliveries: event.deliveries } : context,
    attemptsLoaded: (context, event: { deliveryId: string; detail: DeliveryDetail }) => ({
      ...context,
      attempts: { ...context.attempts, [event.deliveryId]: event.detail },
    }),
    rotated: (context, event: { secret: { webhookId: number; secret: string } | null }) => ({
      ...context,
      secret: event.secret,
    }),
  },
});
