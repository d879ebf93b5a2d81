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
    /** The deliveries shown: of one status, or '' for all. */
    status: '' as '' | 'pending' | 'delivered' | 'failed',
    /** Where the next page of deliveries starts (null: none left). */
    nextCursor: null as string | null,
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
      nextCursor: null,
      status: '' as const,
      attempts: {},
    }),
    filtered: (context, event: { status: '' | 'pending' | 'delivered' | 'failed' }) => ({
      ...context,
      status: event.status,
      deliveries: [],
      nextCursor: null,
    }),
    /**
     * Deliveries read for webhook `webhookId` with filter `status`: the first pages (replacing what is
     * shown) or the next one (`more`: appended). A read for another webhook or filter is dropped.
     */
    deliveriesLoaded: (
      context,
      event: {
        webhookId: number;
        status: string;
        deliveries: Delivery[];
        nextCursor: string | null;
        more?: boolean;
      },
    ) =>
      event.webhookId === context.openId && event.status === context.status
        ? {
            ...context,
            deliveries: event.more ? [...context.deliveries, ...event.deliveries] : event.deliveries,
            nextCursor: event.nextCursor,
          }
        : context,
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
