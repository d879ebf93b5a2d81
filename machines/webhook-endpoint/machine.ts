/**
 * webhook-endpoint: a registered webhook's health, persisted as an actor.
 *
 * Terminology:
 * - consecutive failures: deliveries (not attempts) that ended `failed` since the last `delivered`
 *   one; reaching {@link DISABLE_AFTER_CONSECUTIVE_FAILURES} disables the webhook (docs/api.md "Webhooks").
 * - disabled: receives no new deliveries until re-enabled by hand, which clears the count.
 * - starting: a transient state choosing `enabled` or `disabled` from the input's `active`.
 *
 * Writes are kept off the hot row: a success while the count is already 0 is refused (unhandled), so
 * the host writes nothing for the common case of a healthy endpoint.
 */
import { assign, setup } from 'xstate';
import { effectActionsOf } from '../shared/effects.js';
import type { WebhookEndpointContext } from './context.js';
import type { WebhookEndpointEvent, WebhookEndpointInput } from './events.js';

export type { WebhookEndpointProjection, WebhookEndpointStatus } from './project.js';
export { projectWebhookEndpoint, WEBHOOK_ENDPOINT_STATUSES } from './project.js';

/** Failed deliveries in a row after which a webhook is disabled. */
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 10;

/** The webhook-endpoint machine (`id` `webhook-endpoint`, `version` `1`). */
export const webhookEndpointMachine = setup({
  types: {
    context: {} as WebhookEndpointContext,
    events: {} as WebhookEndpointEvent,
    input: {} as WebhookEndpointInput,
  },
  actions: {
    ...effectActionsOf('notify'),
    countFailure: assign({ consecutiveFailures: ({ context }) => context.consecutiveFailures + 1 }),
    resetFailures: assign({ consecutiveFailures: 0 }),
    markAutoDisabled: assign({
      disabledAt: ({ event }) => event.at,
      disabledReason: 'consecutive_failures' as const,
    }),
    markManualDisabled: assign({ disabledAt: ({ event }) => event.at, disabledReason: 'manual' as const }),
    markEnabled: assign({ consecutiveFailures: 0, disabledAt: null, disabledReason: null }),
  },
  guards: {
    isDisabled: ({ context }) => context.disabledReason !== null,
    hasFailures: ({ context }) => context.consecutiveFailures > 0,
    reachesDisableThreshold: ({ context }) =>
      context.consecutiveFailures + 1 >= DISABLE_AFTER_CONSECUTIVE_FAILURES,
  },
}).createMachine({
  id: 'webhook-endpoint',
  version: '1',
  context: ({ input }) => ({
    webhookId: input.webhookId,
    consecutiveFailures: 0,
    disabledAt: input.active ? null : input.at,
    disabledReason: input.active ? null : 'manual',
  }),
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'isDisabled', target: 'disabled' }, { target: 'enabled' }],
    },
    enabled: {
      on: {
        DELIVERY_FAILED: [
          {
            guard: 'reachesDisableThreshold',
            target: 'disabled',
            actions: [
              'countFailure',
              'markAutoDisabled',
              {
                type: 'notify',
                params: ({ context }) => ({ signal: 'endpoint_disabled', webhookId: context.webhookId }),
              },
            ],
          },
          { actions: 'countFailure' },
        ],
        DELIVERY_SUCCEEDED: { guard: 'hasFailures', actions: 'resetFailures' },
        DISABLE: { target: 'disabled', actions: 'markManualDisabled' },
      },
    },
    disabled: {
      on: {
        ENABLE: { target: 'enabled', actions: 'markEnabled' },
      },
    },
  },
});

/** The webhook-endpoint machine's type. */
export type WebhookEndpointMachine = typeof webhookEndpointMachine;
