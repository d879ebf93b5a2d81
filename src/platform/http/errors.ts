/**
 * The one error type that reaches HTTP. It carries the spec's stable `code`, the HTTP status of
 * decisions §4 and `details`; `toBody()` is the wire shape `{error: {code, message, details}}`.
 * Build them with the factories below, never by hand in handlers.
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
  // Tool errors (decisions §10): answered to a model or an MCP caller, never as an HTTP status.
  | 'TOOL_UNAVAILABLE'
  | 'TOOL_FAILED'
  | 'TOOL_TIMEOUT';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
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
) => new ApiError(401, 'UNAUTHORIZED', message, details, { 'WWW-Authenticate': 'Bearer realm="r3"' });

export const forbidden = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError(403, 'FORBIDDEN', message, details);

export const notFound = (kind: string, id: string | number) =>
  new ApiError(404, 'NOT_FOUND', `No ${kind} ${JSON.stringify(String(id))} in this organization.`, {
    kind,
    id: String(id),
  });

export const routeNotFound = (method: string, path: string) =>
  new ApiError(404, 'NOT_FOUND', `No route for ${method} ${path}.`, { method, path });

export const validationFailed = (issues: FieldIssue[], message?: string) =>
  new ApiError(400, 'VALIDATION_FAILED', message ?? summarize(issues), { issues });

export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(413, 'VALIDATION_FAILED', `Request body exceeds ${limitBytes} bytes.`, { limitBytes });

export const conflict = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError(409, 'CONFLICT', message, details);

export const rateLimited = (retryAfterSec: number) =>
  new ApiError(
    429,
    'RATE_LIMITED',
    `Rate limit exceeded; retry in ${retryAfterSec} s.`,
    { retryAfterSec },
    {
      'Retry-After': String(retryAfterSec),
    },
  );

export const methodNotAllowed = (allow: string[]) =>
  new ApiError(
    405,
    'METHOD_NOT_ALLOWED',
    `Method not allowed; use ${allow.join(', ')}.`,
    { allow },
    {
      Allow: allow.join(', '),
    },
  );

/**
 * A tool that is not configured on this deployment (decisions §10).
 * @public the spec's TOOL_UNAVAILABLE, for the agent tools being added
 */
export const toolUnavailable = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError(503, 'TOOL_UNAVAILABLE', message, details);

/** A tool that ran and failed, or hit a limit other than time (decisions §10). */
export const toolFailed = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError(502, 'TOOL_FAILED', message, details);

/** A tool that ran out of time (decisions §10). */
export const toolTimeout = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError(504, 'TOOL_TIMEOUT', message, details);

export const internal = () => new ApiError(500, 'INTERNAL', 'Internal server error.');

function summarize(issues: FieldIssue[]): string {
  const first = issues[0];
  if (!first) return 'Request failed validation.';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${first.field}: ${first.message}${more}`;
}
