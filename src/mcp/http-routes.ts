/**
 * `POST {BASE_URL}/api/mcp`: MCP's streamable HTTP transport in stateless mode with JSON responses,
 * bridged from r3's uWS pipeline (src/http/web.ts). The pipeline has already authenticated the Bearer
 * token (401 without one) and taken the rate-limit step; each request gets a fresh protocol server and
 * transport bound to the token's principal. `GET` and `DELETE` answer 405: a stateless server has no
 * event stream to open and no session to end.
 *
 * Browsers send `Origin`; one not on `R3_MCP_ALLOWED_ORIGINS` (BASE_URL's own origin is always allowed)
 * is refused with 403 before the transport runs, as MCP's security guidance asks against DNS rebinding.
 * Requests without `Origin` (desktop clients, SDKs, curl) pass.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { access } from '../auth/guard.js';
import type { Config } from '../config.js';
import { forbidden, methodNotAllowed } from '../http/errors.js';
import { raw } from '../http/reply.js';
import { defineRoute, type RequestContext, type RouteDef } from '../http/server.js';
import { fromWebResponse, toWebRequest } from '../http/web.js';
import { renderAnswer } from './results.js';
import { createMcpServer } from './server.js';
import type { McpServices } from './tool.js';
import { createToolset, type Toolset } from './toolset.js';

/**
 * The SDK's web-standard transport, handing the bridge the answer to a single JSON-RPC request
 * straight from `send`. Left to itself, in JSON response mode the transport serializes that one
 * response into a Web `Response`, whose body is a `ReadableStream`; on Node 20 each such stream is
 * made transferable, held by a weak handle, and so survives every scavenge until a full collection.
 * The bridge needs only the message. Batches, notifications and anything the transport refuses
 * itself (406, 415, parse errors) still come back as its own `Response`.
 */
class AnsweringTransport extends WebStandardStreamableHTTPServerTransport {
  private answer: ((message: JSONRPCMessage) => void) | null = null;

  /** The response to the exchange's only request, once the server sends it. */
  answered(): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.answer = resolve;
    });
  }

  override send(
    message: JSONRPCMessage,
    options?: Parameters<WebStandardStreamableHTTPServerTransport['send']>[1],
  ) {
    const answer = this.answer;
    if (answer && 'id' in message && ('result' in message || 'error' in message)) {
      this.answer = null;
      answer(message);
      return Promise.resolve();
    }
    return super.send(message, options);
  }
}

/** The path of the MCP endpoint (not under /api/v1). */
export const MCP_PATH = '/api/mcp';

/** Lower-case `scheme://host[:port]` of an origin or URL, or null when it is not one. */
export function normalizeOrigin(text: string): string | null {
  try {
    const url = new URL(text);
    return url.origin === 'null' ? null : url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/** Decides whether a request's `Origin` may use the endpoint (absent: yes). */
export function originAllowed(origin: string | undefined, config: Pick<Config, 'baseUrl' | 'mcp'>): boolean {
  if (origin === undefined) return true;
  const normalized = normalizeOrigin(origin);
  if (normalized === null) return false;
  if (normalized === normalizeOrigin(config.baseUrl)) return true;
  return config.mcp.allowedOrigins.some((allowed) => normalizeOrigin(allowed) === normalized);
}

/** The MCP routes; the toolset is built here, once per process. */
export function mcpRoutes(s: McpServices & { config: Config }, toolset?: Toolset): RouteDef[] {
  const tools = toolset ?? createToolset(s, { httpAuthoring: s.config.mcp.httpAuthoring });
  const notAllowed = () => {
    throw methodNotAllowed(['POST']);
  };
  // BASE_URL can change once, at start (PORT=0): remember the origin of the value last seen.
  let base = { url: '', origin: 'http://localhost' };
  const baseOrigin = () => {
    if (base.url !== s.config.baseUrl) {
      base = { url: s.config.baseUrl, origin: normalizeOrigin(s.config.baseUrl) ?? 'http://localhost' };
    }
    return base.origin;
  };
  return [
    defineRoute({
      method: 'POST',
      path: MCP_PATH,
      access: access.authenticated,
      rawBody: true,
      summary: 'MCP (streamable HTTP, stateless, JSON responses): tools/list and tools/call for the token.',
      handler: async (ctx) => {
        const origin = ctx.headers.origin;
        if (!originAllowed(origin, s.config)) {
          throw forbidden(
            `Origin ${JSON.stringify(origin)} may not use the MCP endpoint; allow it with R3_MCP_ALLOWED_ORIGINS.`,
            { origin, setting: 'R3_MCP_ALLOWED_ORIGINS' },
          );
        }
        const server = createMcpServer(tools, {
          principal: ctx.principal,
          transport: 'http',
          requestId: ctx.requestId,
          signal: () => ctx.signal,
        });
        const transport = new AnsweringTransport({ enableJsonResponse: true });
        await server.connect(transport);
        const parsedBody = parseJson(ctx.rawBody);
        let outcome: Response | JSONRPCMessage;
        try {
          if (parsedBody === undefined) {
            // Not JSON: the transport reads the body itself and answers JSON-RPC's parse error.
            outcome = await transport.handleRequest(toWebRequest(ctx, baseOrigin()));
          } else {
            // A single request is answered by `send`; the transport's own promise then never settles
            // (its JSON answer is never built) and goes with the transport.
            const answered = isSingleRequest(parsedBody) ? transport.answered() : null;
            const handled = transport.handleRequest(headersOnly(ctx, baseOrigin()), { parsedBody });
            outcome = await (answered ? Promise.race([answered, handled]) : handled);
          }
        } catch (error) {
          await server.close();
          throw error;
        }
        // Once the answer exists, nothing of this exchange is pending (no stream, no timer): the
        // server and transport are left to the garbage collector, sparing close()'s bookkeeping.
        if (outcome instanceof Response) return fromWebResponse(outcome);
        return raw(200, renderAnswer(outcome), 'application/json');
      },
    }),
    defineRoute({
      method: 'GET',
      path: MCP_PATH,
      access: access.authenticated,
      summary: '405: the stateless MCP endpoint opens no event stream (POST only).',
      handler: notAllowed,
    }),
    defineRoute({
      method: 'DELETE',
      path: MCP_PATH,
      access: access.authenticated,
      summary: '405: the stateless MCP endpoint has no session to end (POST only).',
      handler: notAllowed,
    }),
  ];
}

/** Headers the transport reads (the body is handed over parsed). */
const TRANSPORT_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
];

/**
 * What the transport is handed when the body is already parsed: method, URL and the headers it reads.
 * Handed `parsedBody`, `handleRequest` reads nothing else of its `Request`, and of its headers only
 * `get` and `entries` (the tests go through this path); a real `Request` would allocate an abort
 * signal, a body source and a `Headers` map per exchange.
 */
function headersOnly(ctx: RequestContext, base: string): Request {
  const picked: Record<string, string> = {};
  for (const name of TRANSPORT_HEADERS) {
    const value = ctx.headers[name];
    if (value !== undefined) picked[name] = value;
  }
  const headers: Pick<Headers, 'get' | 'entries'> = {
    get: (name) => picked[name.toLowerCase()] ?? null,
    entries: () => Object.entries(picked)[Symbol.iterator](),
  };
  const head = { method: ctx.method, url: `${base}${ctx.path}`, headers };
  return head as unknown as Request;
}

/** Whether a parsed body is one JSON-RPC request (not a batch, not a notification). */
function isSingleRequest(body: unknown): boolean {
  return (
    typeof body === 'object' && body !== null && !Array.isArray(body) && 'id' in body && 'method' in body
  );
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
