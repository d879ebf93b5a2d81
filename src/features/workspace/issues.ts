/**
 * Validation issues: where something is wrong (file and field path) and what. Every workspace check
 * reports this one shape, so REST can put the list in `error.details.errors` and MCP in its error result.
 */
import type { z } from 'zod';

/** A field path: object keys and array indexes from the root of a document. */
export type FieldPath = (string | number)[];

/** One problem in a workspace tree. `path` is `[]` when the problem is the file as a whole. */
export interface WorkspaceIssue {
  /** Workspace path of the file, e.g. `skills/triage/manifest.yaml`. */
  file: string;
  /** Field inside the file, e.g. `['steps', 1, 'skill']`. */
  path: FieldPath;
  message: string;
}

/** A problem in one document, before it is tied to a file. */
export interface FieldIssue {
  path: FieldPath;
  message: string;
}

function toFieldPath(path: readonly PropertyKey[]): FieldPath {
  return path.map((key) => (typeof key === 'number' ? key : String(key)));
}

/**
 * Flattens a zod error into one issue per offending field: an unknown key is reported at the key's own
 * path ("unknown field"), a bad record key with the reason the key is bad.
 */
export function fieldIssuesFromZod(error: z.ZodError, prefix: FieldPath = []): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    const path = [...prefix, ...toFieldPath(issue.path)];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: [...path, key], message: `unknown field "${key}"` });
    } else if (issue.code === 'invalid_key') {
      const reason = issue.issues.map((inner) => inner.message).join('; ');
      issues.push({ path, message: `invalid key "${String(path.at(-1))}": ${reason}` });
    } else {
      issues.push({ path, message: issue.message });
    }
  }
  return issues;
}

/** {@link fieldIssuesFromZod}, tied to a file. */
export function issuesFromZod(file: string, error: z.ZodError): WorkspaceIssue[] {
  return fieldIssuesFromZod(error).map((issue) => ({ file, ...issue }));
}

/** Orders issues by file, then field path, then message, so reports are stable. */
export function compareIssues(a: WorkspaceIssue, b: WorkspaceIssue): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  const length = Math.min(a.path.length, b.path.length);
  for (let i = 0; i < length; i++) {
    const x = a.path[i];
    const y = b.path[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  if (a.path.length !== b.path.length) return a.path.length - b.path.length;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}
