/**
 * How an `ApiError` (src/platform/errors.ts) is answered over HTTP: its status (docs/api.md "Conventions") and
 * the headers its code calls for. The only place that maps codes to statuses.
 */
import { ApiError, type ErrorCode } from '../errors.js';

const STATUS: Record<ErrorCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VALIDATION_FAILED: 400,
  RATE_LIMITED: 429,
  CONFLICT: 409,
  INTERNAL: 500,
  METHOD_NOT_ALLOWED: 405,
  TOOL_UNAVAILABLE: 503,
  TOOL_FAILED: 502,
  TOOL_TIMEOUT: 504,
};

/** A request body over the limit: VALIDATION_FAILED, answered 413 (and the connection closed). */
class BodyTooLarge extends ApiError {}

export const payloadTooLarge = (limitBytes: number) =>
  new BodyTooLarge('VALIDATION_FAILED', `Request body exceeds ${limitBytes} bytes.`, { limitBytes });

/** The HTTP status of `error`. */
export function httpStatus(error: ApiError): number {
  return error instanceof BodyTooLarge ? 413 : STATUS[error.code];
}

/** The headers `error`'s answer carries: `WWW-Authenticate` on 401, `Retry-After` on 429, `Allow` on 405. */
export function httpHeaders(error: ApiError): Record<string, string> {
  switch (error.code) {
    case 'UNAUTHORIZED':
      return { 'WWW-Authenticate': 'Bearer realm="r3"' };
    case 'RATE_LIMITED':
      return typeof error.details.retryAfterSec === 'number'
        ? { 'Retry-After': String(error.details.retryAfterSec) }
        : {};
    case 'METHOD_NOT_ALLOWED':
      return Array.isArray(error.details.allow) ? { Allow: error.details.allow.join(', ') } : {};
    default:
      return {};
  }
}
