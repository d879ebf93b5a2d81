/** The structured VALIDATION_FAILED of a workspace write: one issue per file and field. */
import { type ApiError, type FieldIssue, validationFailed } from '../../platform/errors.js';
import type { FieldPath, WorkspaceIssue } from './issues.js';

/** `agents/sales.yaml:skillSlugs.0`, or the file alone for a whole-file problem. */
export function issueField(file: string, path: FieldPath): string {
  return path.length === 0 ? file : `${file}:${path.join('.')}`;
}

/**
 * VALIDATION_FAILED naming every problem: `details.issues[]` carries `field` (see {@link issueField}),
 * `message`, and the structured `file` and `path`.
 */
export function workspaceInvalid(errors: readonly WorkspaceIssue[]): ApiError {
  const issues: FieldIssue[] = errors.map((e) => ({
    field: issueField(e.file, e.path),
    message: e.message,
    file: e.file,
    path: e.path,
  }));
  return validationFailed(issues, workspaceMessage(errors));
}

function workspaceMessage(errors: readonly WorkspaceIssue[]): string {
  const first = errors[0];
  if (!first) return 'The workspace failed validation.';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `${issueField(first.file, first.path)}: ${first.message}${more}`;
}
