/**
 * Webhooks, their deliveries (filtered by status, a page at a time, read again while shown) and
 * attempts; replay, rotate the secret, re-enable. A failure is said in words, not as the API's text.
 */
import { ApiError, api } from '../api.js';
import { type Delivery, type DeliveryDetail, type Webhook, webhooksStore } from '../stores/webhooks-store.js';

/** What went wrong with `doing`, in words (the API's own text is for programs). */
function failure(doing: string, error: unknown): string {
  if (!(error instanceof ApiError)) return `Could not ${doing}: the server did not answer. Try again.`;
  if (error.status === 403) return `Could not ${doing}: your session may not change webhooks.`;
  if (error.status === 404)
    return `Could not ${doing}: it no longer exists. The page shows what there is now.`;
  if (error.status === 409) return `Could not ${doing}: the webhook is disabled. Re-enable it first.`;
  if (error.status === 429) return `Could not ${doing}: too many requests just now. Try again in a minute.`;
  return `Could not ${doing} (the server answered ${error.status}). Try again.`;
}

async function attempt(doing: string, call: () => Promise<void>): Promise<void> {
  webhooksStore.trigger.failed({ error: null });
  try {
    await call();
  } catch (error) {
    webhooksStore.trigger.failed({ error: failure(doing, error) });
  }
}

/** Deliveries of a page: the first pages hold at least this many (a refresh keeps what is shown). */
const PAGE = 50;

export const loadWebhooks = () =>
  attempt('read the webhooks', async () => {
    const { webhooks } = await api<{ webhooks: Webhook[] }>('GET', '/webhooks?limit=200');
    webhooksStore.trigger.loaded({ webhooks });
  });

/**
 * Reads webhook `webhookId`'s deliveries with the filter shown: the first page; when refreshing, the
 * newest down to the oldest one shown (new ones join at the top, none shown drops off, the next page
 * still starts after the oldest); or (`more`) the next page.
 */
export const loadDeliveries = (webhookId: number, more = false) =>
  attempt('read the deliveries', async () => {
    const { status, deliveries, nextCursor } = webhooksStore.getSnapshot().context;
    if (more && !nextCursor) return;
    const limit = more ? PAGE : Math.min(200, deliveries.length + PAGE);
    const query = new URLSearchParams({ limit: String(limit) });
    if (status) query.set('status', status);
    if (more && nextCursor) query.set('cursor', nextCursor);
    const page = await api<{ deliveries: Delivery[]; nextCursor: string | null }>(
      'GET',
      `/webhooks/${webhookId}/deliveries?${query}`,
    );
    const oldest = deliveries.at(-1)?.deliveryId;
    const at = more || !oldest ? -1 : page.deliveries.findIndex((d) => d.deliveryId === oldest);
    const read = at >= 0 ? { deliveries: page.deliveries.slice(0, at + 1), nextCursor } : page;
    webhooksStore.trigger.deliveriesLoaded({ webhookId, status, ...read, more });
  });

/** How often the open webhook's deliveries are read again (attempts and retries send no event). */
const REFRESH_MS = 3_000;

/** Keeps webhook `webhookId`'s deliveries current while they are shown; returns the stop function. */
export function followDeliveries(webhookId: number): () => void {
  const timer = setInterval(() => {
    if (document.visibilityState === 'visible') void loadDeliveries(webhookId);
  }, REFRESH_MS);
  return () => clearInterval(timer);
}

export const loadAttempts = (webhookId: number, deliveryId: string) =>
  attempt('read the attempts', async () => {
    const detail = await api<DeliveryDetail>('GET', `/webhooks/${webhookId}/deliveries/${deliveryId}`);
    webhooksStore.trigger.attemptsLoaded({ deliveryId, detail });
  });

export const replay = (webhookId: number, deliveryId: string) =>
  attempt('replay the delivery', async () => {
    await api('POST', `/webhooks/${webhookId}/deliveries/${deliveryId}/replay`, {});
    await loadDeliveries(webhookId);
  });

export const rotateSecret = (webhookId: number) =>
  attempt('rotate the secret', async () => {
    const { secret } = await api<{ secret: string }>('POST', `/webhooks/${webhookId}/rotate-secret`, {});
    webhooksStore.trigger.rotated({ secret: { webhookId, secret } });
  });

export const setActive = (webhookId: number, active: boolean) =>
  attempt(active ? 're-enable the webhook' : 'disable the webhook', async () => {
    await api('PATCH', `/webhooks/${webhookId}`, { active });
    await loadWebhooks();
  });
