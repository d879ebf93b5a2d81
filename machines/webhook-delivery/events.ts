import { z } from 'zod';
import { attemptSchema, entityIdSchema, isoTimestampSchema } from '../shared/schemas.js';

/** Attempts per delivery before it is `failed` (README "Configuration" `R3_WEBHOOK_MAX_ATTEMPTS`). */
export const DEFAULT_MAX_ATTEMPTS = 6;

/** Waits before attempts 2, 3, … in ms: 1s, 30s, 5m, 1h, 6h, 24h; the last repeats (docs/api.md "Webhooks"). */
export const DEFAULT_BACKOFF_MS: readonly number[] = [
  1_000, 30_000, 300_000, 3_600_000, 21_600_000, 86_400_000,
];

/** A delivery's id: `whd_` and a random suffix. */
export const deliveryIdSchema = z.string().regex(/^whd_[A-Za-z0-9_-]+$/);

/**
 * What the host passes to `initialTransition(webhookDeliveryMachine, input)` for one event to one
 * webhook. `maxAttempts` and `backoffMs` come from the deployment's configuration; the machine applies
 * the defaults when they are absent.
 */
export const webhookDeliveryInputSchema = z.strictObject({
  deliveryId: deliveryIdSchema,
  webhookId: entityIdSchema,
  event: z.string().min(1),
  maxAttempts: z.number().int().positive().optional(),
  backoffMs: z.array(z.number().int().nonnegative()).min(1).optional(),
  at: isoTimestampSchema,
});

/** Input of a webhook delivery. */
export type WebhookDeliveryInput = z.infer<typeof webhookDeliveryInputSchema>;

/** A worker claimed the `deliver` job and is about to POST. */
export const attemptStartedEventSchema = z.strictObject({
  type: z.literal('ATTEMPT_STARTED'),
  attempt: attemptSchema,
  at: isoTimestampSchema,
});

/** A worker started an attempt. */
export type AttemptStartedEvent = z.infer<typeof attemptStartedEventSchema>;

/** The receiver answered 2xx. */
export const attemptSucceededEventSchema = z.strictObject({
  type: z.literal('ATTEMPT_SUCCEEDED'),
  attempt: attemptSchema,
  status: z.number().int().min(200).max(299),
  at: isoTimestampSchema,
});

/** The receiver answered 2xx. */
export type AttemptSucceededEvent = z.infer<typeof attemptSucceededEventSchema>;

/** Any other outcome: a non-2xx status (3xx included), or no response (`status` null, `error` says why). */
export const attemptFailedEventSchema = z.strictObject({
  type: z.literal('ATTEMPT_FAILED'),
  attempt: attemptSchema,
  status: z.number().int().min(100).max(599).nullish(),
  error: z.string().nullish(),
  at: isoTimestampSchema,
});

/** An attempt failed. */
export type AttemptFailedEvent = z.infer<typeof attemptFailedEventSchema>;

/** The retry timer fired: attempt `attempt` may be made now. */
export const retryDueEventSchema = z.strictObject({
  type: z.literal('RETRY_DUE'),
  attempt: attemptSchema,
  at: isoTimestampSchema,
});

/** The retry timer fired. */
export type RetryDueEvent = z.infer<typeof retryDueEventSchema>;

/** Every event a webhook delivery understands (whether a state accepts it is the machine's call). */
export const webhookDeliveryEventSchema = z.discriminatedUnion('type', [
  attemptStartedEventSchema,
  attemptSucceededEventSchema,
  attemptFailedEventSchema,
  retryDueEventSchema,
]);

/** An event of a webhook delivery. */
export type WebhookDeliveryEvent = z.infer<typeof webhookDeliveryEventSchema>;
