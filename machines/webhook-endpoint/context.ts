import { z } from 'zod';
import { entityIdSchema, isoTimestampSchema } from '../shared/schemas.js';

/** Why a webhook is disabled. */
export const DISABLED_REASONS = ['consecutive_failures', 'manual'] as const;

/** Why a webhook is disabled. */
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** The context of a webhook endpoint, for validating snapshots loaded from the database. */
export const webhookEndpointContextSchema = z.strictObject({
  webhookId: entityIdSchema,
  /** Failed deliveries since the last delivered one (or since it was enabled). */
  consecutiveFailures: z.number().int().nonnegative(),
  /** Set exactly while disabled. */
  disabledAt: isoTimestampSchema.nullable(),
  disabledReason: z.enum(DISABLED_REASONS).nullable(),
});

/** The context of a webhook endpoint. */
export type WebhookEndpointContext = z.infer<typeof webhookEndpointContextSchema>;
