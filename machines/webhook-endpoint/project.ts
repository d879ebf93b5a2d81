import type { SnapshotFrom } from 'xstate';
import { statusOf } from '../shared/status.js';
import type { DisabledReason } from './context.js';
import type { WebhookEndpointMachine } from './machine.js';

/** A webhook endpoint's statuses. */
export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;

/** A webhook endpoint's status. */
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/** The columns of a webhook's row that the host stores for querying. */
export interface WebhookEndpointProjection {
  status: WebhookEndpointStatus;
  /** The webhook object's `active` field. */
  active: boolean;
  consecutiveFailures: number;
  disabledAt: string | null;
  disabledReason: DisabledReason | null;
}

/** The queryable columns of a webhook endpoint's snapshot. */
export function projectWebhookEndpoint(
  snapshot: Pick<SnapshotFrom<WebhookEndpointMachine>, 'value' | 'context'>,
): WebhookEndpointProjection {
  const { context } = snapshot;
  const status = statusOf(snapshot.value, WEBHOOK_ENDPOINT_STATUSES, 'webhook-endpoint');
  return {
    status,
    active: status === 'enabled',
    consecutiveFailures: context.consecutiveFailures,
    disabledAt: context.disabledAt,
    disabledReason: context.disabledReason,
  };
}
