import { z } from 'zod';

/** An ISO 8601 UTC timestamp (`…Z`): the only way time enters a machine. */
export const isoTimestampSchema = z.iso.datetime();

/** A free-form JSON object, such as a step's output. Plain JSON only, so snapshots persist as-is. */
export const jsonObjectSchema = z.record(z.string(), z.json());

/** A free-form JSON object (see {@link jsonObjectSchema}). */
export type JsonObject = z.infer<typeof jsonObjectSchema>;

/** A database id (`bigserial`) of a run or a webhook. */
export const entityIdSchema = z.number().int().positive();

/** The slug of a skill or workflow. */
export const slugSchema = z.string().min(1).max(200);

/** Who acted: `token:<id>`, `user:<id>` or `mcp`. */
export const principalSchema = z.string().min(1).max(200);

/** The name of a workflow step (or a skill run's single step, named after the skill's slug). */
export const stepNameSchema = z.string().min(1).max(200);

/** A 1-based attempt number. */
export const attemptSchema = z.number().int().positive();

/**
 * An event's schema: `{type, ...fields, at}` (a strict object: `type` the literal, `at` when it
 * happened), so that events of one shape are written once.
 */
export function eventSchema<T extends string, S extends z.ZodRawShape>(type: T, fields: S) {
  return z.strictObject({ type: z.literal(type), ...fields, at: isoTimestampSchema });
}
