/**
 * The one error type of r3's API, whatever carries it: a stable `code` (docs/api.md#errors), a message and
 * `details`; `toBody()` is the wire shape `{error: {code, message, details}}` that REST, MCP tool
 * results and a run's tool calls all answer. Nothing here knows HTTP: a code's status and headers
 * are mapped in src/platform/http/errors.ts. Build errors with the factories below, never by hand in
 * handlers.
 */
export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'VALIDATION_FAILED'
  | 'RATE_LIMITED'
  | 'CONFLICT'
  | 'INTERNAL'
  | 'METHOD_NOT_ALLOWED'
  // Tool errors (docs/mcp.md "Built-in tools"): answered to a model or an MCP caller.
  | 'TOOL_UNAVAILABLE'
  | 'TOOL_FAILED'
  | 'TOOL_TIMEOUT';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { error: { code: ErrorCode; message: string; details: Record<string, unknown> } } {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

/** One field-level problem in a VALIDATION_FAILED answer. */
export interface FieldIssue {
  /** Where: `body.manifest.slug`, `query.limit`, `params.id`, or a workspace file path. */
  field: string;
  message: string;
  [extra: string]: unknown;
}

export const unauthorized = (
  message = 'A valid Bearer token is required.',
  details: Record<string, unknown> = {},
) => new ApiError('UNAUTHORIZED', message, details);

export const forbidden = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError('FORBIDDEN', message, details);

export const notFound = (kind: string, id: string | number) =>
  new ApiError('NOT_FOUND', `No ${kind} ${JSON.stringify(String(id))} in this organization.`, {
    kind,
    id: String(id),
  });

export const routeNotFound = (method: string, path: string) =>
  new ApiError('NOT_FOUND', `No route for ${method} ${path}.`, { method, path });

export const validationFailed = (issues: FieldIssue[], message?: string) =>
  new ApiError('VALIDATION_FAILED', message ?? summarize(issues), { issues });

export const conflict = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError('CONFLICT', message, details);

/** Refused by a limit; `retryAfterSec` is when to try again (HTTP: `Retry-After`). */
export const rateLimited = (
  retryAfterSec: number,
  message = `Rate limit exceeded; retry in ${retryAfterSec} s.`,
  details: Record<string, unknown> = {},
) => new ApiError('RATE_LIMITED', message, { ...details, retryAfterSec });

/** The methods `allow` are the ones the resource accepts (HTTP: `Allow`). */
export const methodNotAllowed = (allow: string[]) =>
  new ApiError('METHOD_NOT_ALLOWED', `Method not allowed; use ${allow.join(', ')}.`, { allow });

/**
 * A tool that is not configured on this deployment (docs/mcp.md "Built-in tools").
 * @public TOOL_UNAVAILABLE (docs/mcp.md#built-in-tools), for the agent tools being added
 */
export const toolUnavailable = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError('TOOL_UNAVAILABLE', message, details);

/** A tool that ran and failed, or hit a limit other than time (docs/mcp.md "Built-in tools"). */
export const toolFailed = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError('TOOL_FAILED', message, details);

/** A tool that ran out of time (docs/mcp.md "Built-in tools"). */
export const toolTimeout = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError('TOOL_TIMEOUT', message, details);

export const internal = () => new ApiError('INTERNAL', 'Internal server error.');

function summarize(issues: FieldIssue[]): string {
  const first = issues[0];
  if (!first) return 'Request failed validation.';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${first.field}: ${first.message}${more}`;
}
