/**
 * Field schemas shared by every manifest kind: slugs, names, descriptions, free-form objects.
 */
import { z } from 'zod';

/** What a slug looks like: lowercase letters, digits and `-`, not starting with `-`, 1–63 characters. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** A resource slug (see {@link SLUG_PATTERN}). */
export const slugSchema = z
  .string()
  .regex(SLUG_PATTERN, 'must be a slug: 1-63 lowercase letters, digits or "-", not starting with "-"');

/** The path parameters of a `/…/:slug` route: a slug that is no slug is a 400 naming `params.slug`. */
export const slugParams = z.object({ slug: slugSchema });

/** A display name. */
export const nameSchema = z.string().min(1).max(200);
/** A description. */
export const descriptionSchema = z.string().max(4_000);
/** Long authored text (a system prompt, a prompt template). */
export const longTextSchema = z.string().max(100_000);

/** Limits of a user's JSON Schema: compiling one costs time and memory in proportion to its size. */
export const MAX_JSON_SCHEMA_CHARS = 64 * 1024;
export const MAX_JSON_SCHEMA_DEPTH = 32;

/**
 * A JSON Schema document (dialect 2020-12, see json-schema.ts). Free-form here; `validateWorkspace`
 * compiles it.
 */
export const jsonSchemaSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  if (nestingOf(schema, MAX_JSON_SCHEMA_DEPTH) > MAX_JSON_SCHEMA_DEPTH) {
    ctx.addIssue({
      code: 'custom',
      message: `a JSON Schema may nest at most ${MAX_JSON_SCHEMA_DEPTH} levels`,
    });
  } else if (JSON.stringify(schema).length > MAX_JSON_SCHEMA_CHARS) {
    ctx.addIssue({
      code: 'custom',
      message: `a JSON Schema may be at most ${MAX_JSON_SCHEMA_CHARS} characters of JSON`,
    });
  }
});

/** How deep `value` nests (arrays and objects), counting no further than `limit + 1`; iterative. */
function nestingOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}
/** A free-form JSON object (step input, connection settings). */
export const freeObjectSchema = z.record(z.string(), z.unknown());

/** Refinement: each item of a string list at most once (reported at the repeat's index). */
export function uniqueItems(items: readonly string[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item)) ctx.addIssue({ code: 'custom', path: [index], message: `"${item}" is listed twice` });
    seen.add(item);
  });
}

/** A list of distinct slugs. */
export const slugListSchema = z.array(slugSchema).max(1_000).superRefine(uniqueItems);
