/**
 * r3's MCP server: the toolset (built once per process) behind an MCP protocol server bound to one
 * caller. Over HTTP a fresh server and transport serve each request (the SDK's stateless mode); over
 * stdio one server serves the whole session.
 *
 * Terminology (src/platform/mcp/):
 * - **tool**: one operation (`tool.ts`), grouped as workspace, runtime and data tools (`tools/`).
 * - **toolset**: the registry of tools with their precomputed listings (`toolset.ts`).
 * - **session**: the caller an MCP server is bound to: principal, transport kind, request id, abort
 *   signal. Over HTTP it lasts one request; over stdio, the process.
 * - **authoring tools**: `workspace_write_*`, `workspace_delete`, `workspace_apply`; over HTTP only when
 *   `R3_MCP_HTTP_AUTHORING=true`.
 *
 * The low-level `Server` is used rather than `McpServer` on purpose: r3 answers invalid arguments,
 * disabled and unknown tools with REST's error object (`VALIDATION_FAILED`, `FORBIDDEN`, `NOT_FOUND`),
 * which `McpServer`'s built-in validation cannot, and a listing precomputed once keeps per-request
 * construction to two handler registrations.
 */

import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type Result } from '@modelcontextprotocol/sdk/types.js';
import type { FusedAnswer } from '../auth/authenticate.js';
import type { Principal } from '../auth/principal.js';
import { rateLimited } from '../errors.js';
import type { RateDecision } from '../ratelimit/limiter.js';
import { invalidParams, protocolError } from './protocol-errors.js';
import type { McpTransportKind, ToolContext } from './tool.js';
import type { Toolset } from './toolset.js';
import { JSON_SCHEMA_VALIDATOR } from './validator.js';

const CALL_TOOL = 'tools/call';
const LIST_TOOLS = 'tools/list';

/** A protocol method other than the tools' (resources, prompts): whether it is served, and its answer. */
interface MethodAnswer {
  served(toolset: Toolset): boolean;
  run(
    toolset: Toolset,
    session: McpSession,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Result> | Result;
}

/** The request's abort signal: the JSON-RPC request's, and over HTTP the HTTP request's too. */
function signalOf(session: McpSession, signal: AbortSignal): AbortSignal {
  return session.signal ? AbortSignal.any([session.signal(), signal]) : signal;
}

/** The cursor of a list request (absent, or a string). */
function cursorOf(params: Record<string, unknown>): string | undefined {
  const { cursor } = params;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== 'string') throw invalidParams('params.cursor must be a string');
  return cursor;
}

function stringParam(params: Record<string, unknown>, name: string): string {
  const value = params[name];
  if (typeof value !== 'string') throw invalidParams(`params.${name} must be a string`);
  return value;
}

const OTHER_METHODS: Record<string, MethodAnswer> = {
  'resources/list': {
    served: (toolset) => toolset.resources.any,
    run: (toolset, { principal }, params) => toolset.resources.list(principal, cursorOf(params)),
  },
  'resources/templates/list': {
    served: (toolset) => toolset.resources.any,
    run: (toolset, { principal }) => toolset.resources.templates(principal),
  },
  'resources/read': {
    served: (toolset) => toolset.resources.any,
    run: (toolset, { principal }, params) => toolset.resources.read(principal, stringParam(params, 'uri')),
  },
  'prompts/list': {
    served: (toolset) => toolset.prompts.any,
    run: (toolset, { principal }, params) => toolset.prompts.list(principal, cursorOf(params)),
  },
  'prompts/get': {
    served: (toolset) => toolset.prompts.any,
    run(toolset, { principal }, params) {
      const name = stringParam(params, 'name');
      const args = params.arguments ?? {};
      if (
        typeof args !== 'object' ||
        args === null ||
        Array.isArray(args) ||
        Object.values(args).some((value) => typeof value !== 'string')
      ) {
        throw invalidParams('params.arguments must be an object of strings', { name });
      }
      return toolset.prompts.get(principal, name, args as Record<string, string>);
    },
  },
  // Tasks: `tasks/list` is not served (a task is a run: GET /runs lists them).
  'tasks/get': {
    served: (toolset) => toolset.tasks.any,
    run: (toolset, { principal }, params) => toolset.tasks.get(principal, stringParam(params, 'taskId')),
  },
  'tasks/result': {
    served: (toolset) => toolset.tasks.any,
    run: (toolset, { principal }, params, signal) =>
      toolset.taskResult(principal, stringParam(params, 'taskId'), signal),
  },
  'tasks/cancel': {
    served: (toolset) => toolset.tasks.any,
    run: (toolset, session, params) =>
      toolset.tasks.cancel(
        session.principal,
        stringParam(params, 'taskId'),
        session.requestId ?? randomUUID(),
      ),
  },
};

/** How r3 introduces itself to MCP clients. */
export const SERVER_INFO = { name: 'r3', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'r3 runs authored automation units (skills, workflows) and puts their output in front of humans for ' +
  'review. workspace_* tools read (and, where enabled, write) the authored agents, skills, workflows and ' +
  'object types; runtime_* tools run skills and approve or reject drafts; objects_*, object_types_list ' +
  'and search_query read the organization’s data. Errors are results whose JSON is ' +
  '{"error": {"code", "message", "details"}}. Resources: the authored skills, agents, workflows, ' +
  'missions, object types and review policies (r3://skills/<slug>, r3://object-types/<slug>, ' +
  'r3://review-policies/<slug>, …), the artifacts (r3://artifacts/<id>) and runs (r3://runs/{id}); ' +
  'prompts: every active skill.';

/** The caller an MCP server serves. */
export interface McpSession {
  principal: Principal;
  transport: McpTransportKind;
  /** Over HTTP, the request's id (every call of the request shares it); over stdio, absent (one per call). */
  requestId?: string;
  /** Over HTTP, the request's abort signal (aborted when the client goes away); read only when a tool asks. */
  signal?: () => AbortSignal;
  /** Over HTTP, the run read with the request's authentication (`ToolContext.fusedRun`). */
  fusedRun?: FusedAnswer;
  /** Over HTTP, the applied version read with the request's authentication (`ToolContext.appliedSha`). */
  appliedSha?: string | null;
  /** Over HTTP, pays for one call (`ToolContext.charge`). */
  charge?: () => Promise<RateDecision | null>;
}

/**
 * A protocol server for `session` over `toolset` (connect it to a transport). `session` may be a
 * function giving the caller of the request being served: a server reused for one request after
 * another (src/platform/mcp/http-routes.ts).
 */
export function createMcpServer(toolset: Toolset, caller: McpSession | (() => McpSession)): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: false },
      ...(toolset.resources.any ? { resources: { listChanged: false, subscribe: false } } : {}),
      ...(toolset.prompts.any ? { prompts: { listChanged: false } } : {}),
      ...(toolset.tasks.any ? { tasks: { cancel: {}, requests: { tools: { call: {} } } } } : {}),
    },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
  });
  // tools/list and tools/call are the protocol's fallback handler: a handler set with
  // setRequestHandler costs its registration on every per-request server, and on tools/call, the hot
  // path, three zod passes (the request twice, the result once) on top of the JSON-RPC one the
  // transport already made, while r3 validates the arguments itself and builds every result by
  // construction.
  server.fallbackRequestHandler = async (request, extra) => {
    const session = typeof caller === 'function' ? caller() : caller;
    if (request.method === LIST_TOOLS) return { tools: toolset.list(session.transport) };
    const params = request.params ?? {};
    if (request.method !== CALL_TOOL) {
      const answer = OTHER_METHODS[request.method];
      if (!answer?.served(toolset)) {
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      }
      try {
        const refused = await session.charge?.();
        if (refused) throw rateLimited(refused.retryAfterSec);
        return await answer.run(toolset, session, params, signalOf(session, extra.signal));
      } catch (error) {
        throw protocolError(error, toolset.log, { method: request.method, reqId: session.requestId });
      }
    }
    if (typeof params.name !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'tools/call needs params.name, a tool name');
    }
    const ctx: ToolContext = {
      principal: session.principal,
      transport: session.transport,
      requestId: session.requestId ?? randomUUID(),
      ...(session.fusedRun ? { fusedRun: session.fusedRun } : {}),
      ...(session.appliedSha !== undefined ? { appliedSha: session.appliedSha } : {}),
      ...(session.charge ? { charge: session.charge } : {}),
      // Lazy: signals cost more than most calls, and only waiting tools read them.
      get signal() {
        return signalOf(session, extra.signal);
      },
    };
    if (params.task === undefined) return toolset.call(params.name, params.arguments, ctx);
    try {
      return await toolset.startTask(params.name, params.arguments, ctx);
    } catch (error) {
      throw protocolError(error, toolset.log, { tool: params.name, reqId: ctx.requestId });
    }
  };
  return server;
}
