/**
 * Tool results (decisions §9): the JSON answer both as `structuredContent` and as one text item; a
 * failure is a result with `isError: true` carrying the REST error object `{error: {code, message,
 * details}}` the same way, so a client handles MCP and REST errors alike.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, internal } from '../http/errors.js';
import type { Logger } from '../log.js';

/**
 * A tool's answer already rendered as JSON text (a run, as PostgreSQL renders it): the result's text
 * item is that text as is, and only the structured copy is parsed.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A successful result carrying `value`. */
export function toolResult(value: Record<string, unknown> | JsonText): CallToolResult {
  if (value instanceof JsonText) {
    return {
      content: [{ type: 'text', text: value.text }],
      structuredContent: JSON.parse(value.text) as Record<string, unknown>,
    };
  }
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
