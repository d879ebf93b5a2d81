/**
 * `POST {BASE_URL}/api/mcp`: MCP's streamable HTTP transport in stateless mode with JSON responses,
 * bridged from r3's uWS pipeline (src/platform/http/web.ts). The pipeline has already authenticated the Bearer
 * token (401 without one) and taken the rate-limit step. One plain JSON-RPC request goes the direct
 * path (`directRequest`) to a reused protocol server serving one request at a time; anything else
 * gets a fresh protocol server and transport bound to the token's principal. `GET` and `DELETE`
 * answer 405: a stateless server has no event stream to open and no session to end.
 *
 * Browsers send `Origin`; one not on `R3_MCP_ALLOWED_ORIGINS` (BASE_URL's own origin is always allowed)
 * is refused with 403 before the transport runs, as MCP's security guidance asks against DNS rebinding.
 * Requests without `Origin` (desktop clients, SDKs, curl) pass.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  JSONRPCRequestSchema,
  type MessageExtraInfo,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { FusedAnswer } from '../auth/authenticate.js';
import { access } from '../auth/guard.js';
import type { Principal } from '../auth/principal.js';
import type { Config } from '../config.js';
import { forbidden, methodNotAllowed } from '../errors.js';
import { errorBodySchema } from '../http/openapi.js';
import { raw } from '../http/reply.js';
import { defineRoute, type RequestContext, type RouteDef } from '../http/server.js';
import { fromWebResponse, toWebRequest } from '../http/web.js';
import type { RateDecision } from '../ratelimit/limiter.js';
import { renderAnswer } from './results.js';
import { createMcpServer, type McpSession } from './server.js';
import type { Toolset } from './toolset.js';

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

/** Where the MCP endpoint's OAuth protected-resource metadata is (RFC 9728 §3.1: the well-known path, then the resource's). */
export const MCP_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

/**
 * The `WWW-Authenticate` of the MCP endpoint's 401 answers: a Bearer challenge naming the
 * protected-resource metadata, so an MCP client finds the authorization server from it (MCP
 * authorization, RFC 9728 §5.1).
 */
export function mcpChallenge(baseUrl: string): string {
  return `Bearer realm="r3", resource_metadata="${baseUrl}${MCP_RESOURCE_METADATA_PATH}"`;
}

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

/**
 * The direct path's transport: an implementation of the SDK's public `Transport` contract that the
 * route itself feeds. `exchange` hands the protocol one request through `onmessage` (what every
 * transport does with a message it accepted) and resolves with the response the protocol `send`s
 * for it. It serves one request at a time, so ids never collide; what else the protocol sends
 * meanwhile (progress or log notifications) is dropped, as the stateless JSON-response transport
 * drops it.
 */
class LaneTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private answer: ((message: JSONRPCMessage) => void) | null = null;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const answer = this.answer;
    if (answer && 'id' in message && ('result' in message || 'error' in message)) {
      this.answer = null;
      answer(message);
    }
  }

  /** Hands `request` to the protocol; resolves with its response. */
  exchange(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<JSONRPCMessage> {
    const onmessage = this.onmessage;
    if (!onmessage) return Promise.reject(new Error('MCP lane transport used before its server connected'));
    return new Promise((resolve) => {
      this.answer = resolve;
      onmessage(request, extra);
    });
  }
}

/**
 * A protocol server and its transport serving direct requests (`directRequest`), one at a time:
 * `session` is the caller of the request in progress. Building and connecting a server costs more
 * than a direct request's whole exchange, and leaves objects that outlive scavenges.
 */
interface Lane {
  server: Server;
  transport: LaneTransport;
  session: McpSession | null;
}

/** Idle lanes kept for reuse (more are built while more requests are in progress at once). */
const MAX_IDLE_LANES = 64;

function createLanes(tools: Toolset): { take(): Promise<Lane>; give(lane: Lane): void } {
  const idle: Lane[] = [];
  return {
    async take() {
      const reused = idle.pop();
      if (reused) return reused;
      const transport = new LaneTransport();
      const lane: Lane = { server: undefined as unknown as Server, transport, session: null };
      lane.server = createMcpServer(tools, () => {
        if (!lane.session) throw new Error('MCP lane used without a request in progress');
        return lane.session;
      });
      await lane.server.connect(transport);
      return lane;
    },
    give(lane) {
      lane.session = null;
      if (idle.length < MAX_IDLE_LANES) idle.push(lane);
    },
  };
}

/** The MCP routes over `tools` (the process's toolset, built once). */
/** Takes one unit from the caller's rate-limit bucket: the refusal when it is empty, else null. */
export type ChargeCall = (principal: Principal) => Promise<RateDecision | null>;

export function mcpRoutes(s: { config: Config }, tools: Toolset, chargeCall?: ChargeCall): RouteDef[] {
  const lanes = createLanes(tools);
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
  // The URL the direct path hands the protocol with each request (`requestInfo.url`), built once per
  // origin and path: nothing reads it but the handlers, and none of r3's does (a URL per request was
  // a few µs of a call: docs/performance.md, "MCP").
  let requestUrl: URL | null = null;
  const urlOf = (path: string): URL => {
    const href = `${baseOrigin()}${path}`;
    if (requestUrl?.href !== href) requestUrl = new URL(href);
    return requestUrl;
  };
  const challenge = () => mcpChallenge(s.config.baseUrl);
  const routes = [
    defineRoute({
      method: 'POST',
      path: MCP_PATH,
      access: access.authenticated,
      rawBody: true,
      // A tools/call of a tool that reads a run first (runtime_get_run), or the applied resources (the
      // domain tools: the agent and the org's sources): the run, or the org's applied version, read
      // with authentication.
      fused: { read: 'run', fromBody: true, key: (_params, body) => tools.fusedReadOf(parseBody(body)) },
      summary: 'MCP (streamable HTTP, stateless, JSON responses): tools/list and tools/call for the token.',
      responses: {
        200: { description: 'The JSON-RPC answer (or a batch of them).', schema: jsonRpcAnswer },
        202: { description: 'Notifications only: accepted, nothing to answer.' },
        400: { description: 'Not JSON-RPC: a JSON-RPC error.', schema: jsonRpcAnswer },
        default: { description: 'Refused by the MCP transport: a JSON-RPC error.', schema: jsonRpcAnswer },
      },
      errors: [403],
      handler: async (ctx) => {
        const origin = ctx.headers.origin;
        if (!originAllowed(origin, s.config)) {
          throw forbidden(
            `Origin ${JSON.stringify(origin)} may not use the MCP endpoint; allow it with R3_MCP_ALLOWED_ORIGINS.`,
            { origin, setting: 'R3_MCP_ALLOWED_ORIGINS' },
          );
        }
        const parsedBody = parseBody(ctx.rawBody);
        const session: McpSession = {
          principal: ctx.principal,
          transport: 'http',
          requestId: ctx.requestId,
          signal: () => ctx.signal,
          ...fusedOf(ctx.fused, parsedBody, tools),
          ...(chargeCall ? { charge: chargePerCall(ctx, chargeCall) } : {}),
        };
        const direct = parsedBody === undefined ? null : directRequest(ctx, parsedBody);
        if (direct) {
          const lane = await lanes.take();
          lane.session = session;
          try {
            const answer = await lane.transport.exchange(direct.request, {
              requestInfo: { headers: direct.headers, url: urlOf(ctx.path) },
            });
            return raw(200, renderAnswer(answer), 'application/json');
          } finally {
            lanes.give(lane);
          }
        }
        const server = createMcpServer(tools, session);
        const transport = new AnsweringTransport({ enableJsonResponse: true });
        await server.connect(transport);
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
      responses: { 405: { description: 'POST only.', schema: errorBodySchema } },
      handler: notAllowed,
    }),
    defineRoute({
      method: 'DELETE',
      path: MCP_PATH,
      access: access.authenticated,
      summary: '405: the stateless MCP endpoint has no session to end (POST only).',
      responses: { 405: { description: 'POST only.', schema: errorBodySchema } },
      handler: notAllowed,
    }),
  ];
  return routes.map((route) => ({ ...route, challenge }));
}

/** A JSON-RPC 2.0 message or batch, as the MCP endpoint answers it. */
const jsonRpcAnswer = z.union([
  z.looseObject({ jsonrpc: z.literal('2.0') }),
  z.array(z.looseObject({ jsonrpc: z.literal('2.0') })),
]);

/**
 * One JSON-RPC request that the SDK's transport would hand its protocol unchanged, for the lane's
 * transport to hand over the same way — or null, and the transport takes the body. For such a
 * request the transport's work is checks that pass (Accept, Content-Type, protocol version, the
 * JSON-RPC shape) and four zod guards that fail (`isInitializeRequest` twice, the response guards
 * once each); every failed zod parse builds a result object with accessors of its own, whose
 * hidden class outlives scavenges, a large share of this route's CPU under load (docs/performance.md, "Choices in the code"). The checks
 * are made here the way the transport makes them, and the request is the schema's parse, as the
 * transport's would be. Anything else — a batch, a notification, `initialize`, a header or message
 * the transport refuses — goes through the transport and gets its own answer.
 */
function directRequest(
  ctx: RequestContext,
  body: unknown,
): { request: JSONRPCRequest; headers: Record<string, string> } | null {
  if (!isSingleRequest(body)) return null;
  const accept = ctx.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return null;
  if (!isJsonContentType(ctx.headers['content-type'])) return null;
  const version = ctx.headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  if ((body as { method?: unknown }).method === 'initialize') return null;
  const parsed = JSONRPCRequestSchema.safeParse(body);
  if (!parsed.success) return null;
  return { request: parsed.data, headers: transportHeaders(ctx) };
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
  const picked = transportHeaders(ctx);
  const headers: Pick<Headers, 'get' | 'entries'> = {
    get: (name) => picked[name.toLowerCase()] ?? null,
    entries: () => Object.entries(picked)[Symbol.iterator](),
  };
  const head = { method: ctx.method, url: `${base}${ctx.path}`, headers };
  return head as unknown as Request;
}

/** The request's headers the transport reads, by lower-case name. */
function transportHeaders(ctx: RequestContext): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of TRANSPORT_HEADERS) {
    const value = ctx.headers[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/** Whether a parsed body is one JSON-RPC request (not a batch, not a notification). */
function isSingleRequest(body: unknown): boolean {
  return (
    typeof body === 'object' && body !== null && !Array.isArray(body) && 'id' in body && 'method' in body
  );
}

/** The session's part of the read taken with authentication: which one it is, the body says again. */
function fusedOf(
  fused: FusedAnswer | undefined,
  body: unknown,
  tools: Toolset,
): Pick<McpSession, 'fusedRun' | 'appliedSha'> {
  if (!fused) return {};
  return tools.fusedReadOf(body)?.read === 'applied' ? { appliedSha: fused.value } : { fusedRun: fused };
}

/**
 * Bodies parsed for the fused read's key (before authentication), by their bytes: the handler is
 * handed the same bytes and takes that parse instead of parsing them again. Neither changes it.
 */
const parsedBodies = new WeakMap<Buffer, unknown>();

/** The body as JSON (undefined when it is not), parsed once per request. */
function parseBody(bytes: Buffer): unknown {
  if (parsedBodies.has(bytes)) return parsedBodies.get(bytes);
  const parsed = parseJson(bytes);
  if (bytes.length > 0) parsedBodies.set(bytes, parsed);
  return parsed;
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Charges the calls of one request: its first was paid when the request was authenticated; each
 * further `tools/call` of a batch takes one more unit (one POST of 100 calls costs 100, as 100 POSTs).
 * The answer's rate-limit headers show the bucket after the last charge.
 */
function chargePerCall(ctx: RequestContext, chargeCall: ChargeCall): () => Promise<RateDecision | null> {
  let calls = 0;
  return async () => {
    calls++;
    if (calls === 1) return null;
    const decision = await chargeCall(ctx.principal);
    if (decision) ctx.reportRate(decision);
    return decision && !decision.allowed ? decision : null;
  };
}
