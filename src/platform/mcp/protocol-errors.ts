/**
 * JSON-RPC errors of the MCP methods that are not tool calls (resources, prompts, tasks): a tool call
 * answers its failures as error results (results.ts), but these methods answer protocol errors, with
 * the codes the MCP specification (2025-11-25) names. The REST error object rides along as `data`, so
 * a client still reads r3's `code` and `details`.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';

/** MCP's "Resource not found" (resources/read of a URI the caller cannot read: unknown or another org's). */
export const RESOURCE_NOT_FOUND = -32002;

/** `resources/read` of `uri` found nothing the caller may read. */
export function resourceNotFound(uri: string): McpError {
  return new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}

/** Invalid params (-32602), with `data` saying which. */
export function invalidParams(message: string, data?: Record<string, unknown>): McpError {
  return new McpError(ErrorCode.InvalidParams, message, data);
}

/**
 * `error` as a JSON-RPC error: an `McpError` as it is; an `ApiError` by its code — a refused input is
 * invalid params, a refused caller (scope, rate limit) an invalid request, anything else internal —
 * with the REST error object as `data`; anything else is logged and answered internal, without detail.
 */
export function protocolError(error: unknown, log: Logger, context: Record<string, unknown>): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof ApiError) {
    const data = error.toBody().error;
    if (error.code === 'VALIDATION_FAILED' || error.code === 'NOT_FOUND') {
      return new McpError(ErrorCode.InvalidParams, error.message, data);
    }
    if (error.code === 'FORBIDDEN' || error.code === 'RATE_LIMITED' || error.code === 'CONFLICT') {
      return new McpError(ErrorCode.InvalidRequest, error.message, data);
    }
    if (error.code !== 'INTERNAL') return new McpError(ErrorCode.InternalError, error.message, data);
  }
  log.error({ err: error, ...context }, 'MCP request failed');
  return new McpError(ErrorCode.InternalError, 'Internal error');
}
