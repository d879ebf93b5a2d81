import { z } from 'zod';
import { entityIdSchema, isoTimestampSchema } from '../shared/schemas.js';
import { deliveryIdSchema } from './events.js';

/** The context of a webhook delivery, for validating snapshots loaded from the database. */
export const webhookDeliveryContextSchema = z.strictObject({
  deliveryId: deliveryIdSchema,
  webhookId: entityIdSchema,
  event: z.string().min(1),
  maxAttempts: z.number().int().positive(),
  backoffMs: z.array(z.number().int().nonnegative()).min(1),
  createdAt: isoTimestampSchema,
  /** Attempts started so far (the current one included). */
  attempts: z.number().int().nonnegative(),
  lastAttemptAt: isoTimestampSchema.nullable(),
  /** When the scheduled retry is due; null otherwise. */
  nextAttemptAt: isoTimestampSchema.nullable(),
  responseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
});

/** The context of a webhook delivery. */
export type WebhookDeliveryContext = z.infer<typeof webhookDeliveryContextSchema>;
