/**
 * webhook-delivery: one event delivered to one webhook, with retries, persisted as an actor.
 *
 * Terminology:
 * - attempt: one POST. `attempts` counts the attempts started; attempt n+1 is "the next attempt".
 *   Every attempt number an event carries is checked, so a stale or duplicate report is refused.
 * - backoff: after failed attempt n, attempt n+1 waits `backoffMs[n-1]` (the last entry repeats),
 *   through the durable timer `retry`. Attempt 1 is made at once. After `maxAttempts` failed
 *   attempts the delivery is `failed`.
 * - re-claim: a worker that died mid-attempt leaves the delivery `delivering`; when its job is claimed
 *   again the new worker starts the next attempt from there, which counts as a new attempt.
 */
import { assertEvent, assign, setup } from 'xstate';
import { effectActionsOf, type NotifyParams, type ScheduleTimerParams } from '../shared/effects.js';
import { addMs } from '../shared/time.js';
import type { WebhookDeliveryContext } from './context.js';
import {
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_ATTEMPTS,
  type WebhookDeliveryEvent,
  type WebhookDeliveryInput,
} from './events.js';

export type { WebhookDeliveryProjection, WebhookDeliveryStatus } from './project.js';
export { projectWebhookDelivery, WEBHOOK_DELIVERY_STATUSES } from './project.js';

/** The id of the delivery's only timer. */
export const RETRY_TIMER_ID = 'retry';

/** How long attempt `failedAttempt + 1` waits after attempt `failedAttempt` failed. */
export function backoffAfter(failedAttempt: number, backoffMs: readonly number[]): number {
  const wait = backoffMs[Math.min(failedAttempt - 1, backoffMs.length - 1)];
  if (wait === undefined) {
    throw new Error('webhook-delivery: backoffMs is empty');
  }
  return wait;
}

/** Whether `event` reports the outcome of the attempt in progress. */
function isCurrentAttempt(context: WebhookDeliveryContext, event: WebhookDeliveryEvent): boolean {
  return (
    (event.type === 'ATTEMPT_SUCCEEDED' || event.type === 'ATTEMPT_FAILED') &&
    event.attempt === context.attempts
  );
}

/** When the attempt after the current (failed) one is due. */
function retryDueAt(context: WebhookDeliveryContext, failedAt: string): string {
  return addMs(failedAt, backoffAfter(context.attempts, context.backoffMs));
}

const notify = (signal: 'delivery_succeeded' | 'delivery_failed') =>
  ({
    type: 'notify',
    params: ({ context }: { context: WebhookDeliveryContext }): NotifyParams => ({
      signal,
      deliveryId: context.deliveryId,
      webhookId: context.webhookId,
    }),
  }) as const;

/** The webhook-delivery machine (`id` `webhook-delivery`, `version` `1`). */
export const webhookDeliveryMachine = setup({
  types: {
    context: {} as WebhookDeliveryContext,
    events: {} as WebhookDeliveryEvent,
    input: {} as WebhookDeliveryInput,
  },
  actions: {
    ...effectActionsOf('enqueueJob', 'notify', 'scheduleTimer'),
    startAttempt: assign(({ event }) => {
      assertEvent(event, 'ATTEMPT_STARTED');
      return { attempts: event.attempt, lastAttemptAt: event.at, nextAttemptAt: null };
    }),
    storeSuccess: assign(({ event }) => {
      assertEvent(event, 'ATTEMPT_SUCCEEDED');
      return { responseStatus: event.status, lastError: null };
    }),
    storeFailure: assign(({ event }) => {
      assertEvent(event, 'ATTEMPT_FAILED');
      return { responseStatus: event.status ?? null, lastError: event.error ?? null };
    }),
    planRetry: assign({ nextAttemptAt: ({ context, event }) => retryDueAt(context, event.at) }),
  },
  guards: {
    isNextAttempt: ({ context, event }) =>
      (event.type === 'ATTEMPT_STARTED' || event.type === 'RETRY_DUE') &&
      event.attempt === context.attempts + 1 &&
      event.attempt <= context.maxAttempts,
    isCurrentAttempt: ({ context, event }) => isCurrentAttempt(context, event),
    isRetryableFailure: ({ context, event }) =>
      isCurrentAttempt(context, event) && context.attempts < context.maxAttempts,
  },
}).createMachine({
  id: 'webhook-delivery',
  version: '1',
  context: ({ input }) => ({
    deliveryId: input.deliveryId,
    webhookId: input.webhookId,
    event: input.event,
    maxAttempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    backoffMs: [...(input.backoffMs ?? DEFAULT_BACKOFF_MS)],
    createdAt: input.at,
    attempts: 0,
    lastAttemptAt: null,
    nextAttemptAt: null,
    responseStatus: null,
    lastError: null,
  }),
  initial: 'pending',
  states: {
    pending: {
      entry: {
        type: 'enqueueJob',
        params: ({ context }) => ({ job: 'deliver', attempt: context.attempts + 1 }),
      },
      on: {
        ATTEMPT_STARTED: { guard: 'isNextAttempt', target: 'delivering', actions: 'startAttempt' },
      },
    },
    delivering: {
      on: {
        // A re-claimed job after a worker died mid-attempt. On the last attempt there is none left to
        // start: the host reports the lost attempt as ATTEMPT_FAILED instead.
        ATTEMPT_STARTED: { guard: 'isNextAttempt', actions: 'startAttempt' },
        ATTEMPT_SUCCEEDED: { guard: 'isCurrentAttempt', target: 'delivered', actions: 'storeSuccess' },
        ATTEMPT_FAILED: [
          {
            guard: 'isRetryableFailure',
            target: 'retry_scheduled',
            actions: [
              'storeFailure',
              'planRetry',
              {
                type: 'scheduleTimer',
                params: ({ context, event }): ScheduleTimerParams => ({
                  timerId: RETRY_TIMER_ID,
                  event: { type: 'RETRY_DUE', attempt: context.attempts + 1 },
                  dueAt: retryDueAt(context, event.at),
                }),
              },
            ],
          },
          { guard: 'isCurrentAttempt', target: 'failed', actions: 'storeFailure' },
        ],
      },
    },
    retry_scheduled: {
      on: {
        RETRY_DUE: { guard: 'isNextAttempt', target: 'pending' },
      },
    },
    delivered: { type: 'final', entry: notify('delivery_succeeded') },
    failed: { type: 'final', entry: notify('delivery_failed') },
  },
});

/** The webhook-delivery machine's type. */
export type WebhookDeliveryMachine = typeof webhookDeliveryMachine;
