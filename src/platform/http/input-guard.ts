/**
 * What no request may bring in, whatever its route's schema says, checked at the edge before zod:
 *
 * - text PostgreSQL cannot store or that breaks later reads: `\u0000` (refused by `jsonb` and `text`,
 *   and stored by `json` columns, after which every search of the org failed) and lone UTF-16
 *   surrogates (not encodable as UTF-8), in values and in object keys;
 * - nesting deeper than `MAX_JSON_DEPTH`: deep JSON parses, then overflows the stack of every
 *   recursive walk after it (zod, the JSON Schema validator, the driver).
 *
 * The walk is iterative and stops after `MAX_ISSUES` findings, so a hostile megabyte costs one pass.
 */
import type { FieldIssue } from '../errors.js';

/** Deepest nesting of arrays and objects accepted in a body, query or tool arguments. */
export const MAX_JSON_DEPTH = 64;

const MAX_ISSUES = 20;

/** Why `text` cannot be stored, or null when it can. */
export function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (!(text as unknown as { isWellFormed(): boolean }).isWellFormed()) {
    return 'must be well-formed Unicode (it holds a lone surrogate)';
  }
  return null;
}

/** The issues of `value` (parsed JSON, a query or params object), fields rooted at `where`. */
export function inputIssues(value: unknown, where: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: where, depth: 0 }];
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const item = stack.pop() as { value: unknown; path: string; depth: number };
    const current = item.value;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) issues.push({ field: item.path, message: problem, code: 'invalid_text' });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (item.depth >= MAX_JSON_DEPTH) {
      issues.push({
        field: item.path,
        message: `nesting deeper than ${MAX_JSON_DEPTH} levels is not accepted`,
        code: 'too_deep',
      });
      continue;
    }
    const depth = item.depth + 1;
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i], path: `${item.path}.${i}`, depth });
      }
      continue;
    }
    for (const key of Object.keys(current)) {
      const problem = textProblem(key);
      if (problem) {
        issues.push({ field: item.path, message: `a key ${problem}`, code: 'invalid_text' });
        continue;
      }
      stack.push({ value: (current as Record<string, unknown>)[key], path: `${item.path}.${key}`, depth });
    }
  }
  return issues;
}
