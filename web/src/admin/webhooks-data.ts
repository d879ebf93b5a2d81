/** Webhooks, their deliveries and attempts; replay, rotate the secret, re-enable. */
import { api } from '../api.js';
import { type Delivery, type DeliveryDetail, type Webhook, webhooksStore } from '../stores/webhooks-store.js';

async function attempt(call: () => Promise<void>): Promise<void> {
  webhooksStore.trigger.failed({ error: null });
  try {
    await call();
  } catch (error) {
    webhooksStore.trigger.failed({ error: (error as Error).message });
  }
}

export const loadWebhooks = () =>
  attempt(async () => {
    const { webhooks } = await api<{ webhooks: Webhook[] }>('GET', '/webhooks?limit=200');
    webhooksStore.trigger.loaded({ webhooks });
  });

export const loadDeliveries = (webhookId: number) =>
  attempt(async () => {
    const { deliveries } = await api<{ deliveries: Delivery[] }>(
      'GET',
      `/webhooks/${webhookId}/deliveries?limit=50`,
    );
    webhooksStore.trigger.deliveriesLoaded({ webhookId, deliveries });
  });

export const loadAttempts = (webhookId: number, deliveryId: string) =>
  attempt(async () => {
    const detail = await api<DeliveryDetail>('GET', `/webhooks/${webhookId}/deliveries/${deliveryId}`);
    webhooksStore.trigger.attemptsLoaded({ deliveryId, detail });
  });

export const replay = (webhookId: number, deliveryId: string) =>
  attempt(async () => {
    await api('POST', `/webhooks/${webhookId}/deliveries/${deliveryId}/replay`, {});
    await loadDeliveries(webhookId);
  });

export const rotateSecret = (webhookId: number) =>
  attempt(async () => {
    const { secret } = await api<{ secret: string }>('POST', `/webhooks/${webhookId}/rotate-secret`, {});
    webhooksStore.trigger.rotated({ secret: { webhookId, secret } });
  });

export const setActive = (webhookId: number, active: boolean) =>
  attempt(async () => {
    await api('PATCH', `/webhooks/${webhookId}`, { active });
    await loadWebhooks();
  });
