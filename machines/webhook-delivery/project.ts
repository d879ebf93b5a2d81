import type { SnapshotFrom } from 'xstate';
import { statusOf } from '../shared/status.js';
import type { WebhookDeliveryMachine } from './machine.js';

/** A delivery's machine statuses. */
export const WEBHOOK_DELIVERY_STATUSES = [
  'pending',
  'delivering',
  'retry_scheduled',
  'delivered',
  'failed',
] as const;

/** A delivery's machine status. */
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** The columns of a delivery's row that the host stores for querying. */
export interface WebhookDeliveryProjection {
  status: WebhookDeliveryStatus;
  /** The API's view (docs/api.md "Webhooks"): `pending` until delivered or failed. */
  apiStatus: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  lastError: string | null;
}

/** The queryable columns of a delivery's snapshot. */
export function projectWebhookDelivery(
  snapshot: Pick<SnapshotFrom<WebhookDeliveryMachine>, 'value' | 'context'>,
): WebhookDeliveryProjection {
  const { context } = snapshot;
  const status = statusOf(snapshot.value, WEBHOOK_DELIVERY_STATUSES, 'webhook-delivery');
  return {
    status,
    apiStatus: status === 'delivered' || status === 'failed' ? status : 'pending',
    attempts: context.attempts,
    lastAttemptAt: context.lastAttemptAt,
    nextAttemptAt: context.nextAttemptAt,
    responseStatus: context.responseStatus,
    lastError: context.lastError,
  };
}
