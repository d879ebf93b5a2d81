/** zod at the HTTP edge: parse or throw a VALIDATION_FAILED whose details name every field. */
import type { z } from 'zod';
import { type FieldIssue, validationFailed } from '../errors.js';

/** Turns zod issues into field issues rooted at `where` (`body`, `query`, `params`). */
export function zodIssues(error: z.ZodError, where: string): FieldIssue[] {
  return error.issues.map((issue) => {
    const field = [where, ...issue.path.map(String)].filter(Boolean).join('.');
    const out: FieldIssue = { field, message: issue.message, code: issue.code };
    if (issue.code === 'unrecognized_keys') out.keys = issue.keys;
    return out;
  });
}

/** Parses `value` with `schema`, or throws VALIDATION_FAILED naming the offending fields. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationFailed(zodIssues(result.error, where));
  return result.data;
}
