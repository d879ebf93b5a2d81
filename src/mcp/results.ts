/**
 * Tool results (decisions §9): the JSON answer both as `structuredContent` and as one text item; a
 * failure is a result with `isError: true` carrying the REST error object `{error: {code, message,
 * details}}` the same way, so a client handles MCP and REST errors alike.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, internal } from '../http/errors.js';
import type { Logger } from '../log.js';

/** A successful result carrying `value`. */
export function toolResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * The error result of `error`: an `ApiError` as REST would answer it; anything else is logged and
 * answered as `INTERNAL` without detail, as REST does.
 */
export function toolError(error: unknown, log: Logger, context: Record<string, unknown>): CallToolResult {
  let apiError: ApiError;
  if (error instanceof ApiError) apiError = error;
  else {
    log.error({ err: error, ...context }, 'MCP tool failed');
    apiError = internal();
  }
  const body = apiError.toBody();
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body,
  };
}
