/**
 * Tool results (docs/mcp.md): the JSON answer both as `structuredContent` and as one text item
 * (followed by `resource_link` items to what the call made, such as an artifact); a
 * failure is a result with `isError: true` whose one text item is the REST error object `{error:
 * {code, message, details}}`, so a client handles MCP and REST errors alike. An error carries no
 * `structuredContent`: that is the tool's `outputSchema`'s, and SDK clients check any they get
 * against it, error or not.
 */
import type { CallToolResult, JSONRPCMessage, ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, internal } from '../errors.js';
import type { Logger } from '../log.js';

/**
 * A tool's answer already rendered as JSON text (a run, as PostgreSQL renders it, always compact).
 * In a result it is both the text item, as is, and the structured content: a serializer that knows
 * nothing of it (stdio's) gets the parsed value from `toJSON`; the HTTP bridge splices the text in
 * unparsed (`renderAnswer`).
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** A successful result carrying `value`, and after its text the `resource_link` items of what it made. */
export function toolResult(
  value: Record<string, unknown> | JsonText,
  links: ResourceLink[] = [],
): CallToolResult {
  if (value instanceof JsonText) {
    return {
      content: [{ type: 'text', text: value.text }, ...links],
      structuredContent: value as unknown as Record<string, unknown>,
    };
  }
  return { content: [{ type: 'text', text: JSON.stringify(value) }, ...links], structuredContent: value };
}

/**
 * The JSON text of a JSON-RPC answer. A result `toolResult` made of a `JsonText` is written around
 * that text — the same JSON that `JSON.stringify` gives through `toJSON`, without parsing the text
 * back into a value only to serialize it again.
 */
export function renderAnswer(message: JSONRPCMessage): string {
  // The answer exactly as the protocol server builds it: {result, jsonrpc, id}, nothing more.
  if ('result' in message && Object.keys(message).length === 3) {
    const { result } = message;
    const text = result.structuredContent;
    if (text instanceof JsonText && Object.keys(result).length === 2) {
      const content = JSON.stringify(result.content);
      return `{"result":{"content":${content},"structuredContent":${text.text}},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}`;
    }
  }
  return JSON.stringify(message);
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
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(apiError.toBody()) }] };
}
