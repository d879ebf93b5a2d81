/**
 * The toolset: every tool r3 exposes over MCP, built once per process, with the resources and prompts
 * served beside them (resources.ts, prompts.ts). The tool listings (with their
 * JSON Schemas, converted from zod once) are precomputed, so a per-request MCP server only binds a
 * caller to this registry. A call runs: exists → authoring gate → access (FORBIDDEN) → arguments (zod,
 * VALIDATION_FAILED naming `arguments.<field>`) → the tool → its result checked against the tool's
 * `outputSchema` as SDK clients check it (`validateOutput`; outside it: logged, INTERNAL) → a result;
 * every failure is an error result, never a failed request.
 */
import {
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { SpanStatusCode } from '@opentelemetry/api';
import type { FusedRequest } from '../auth/authenticate.js';
import { authorize } from '../auth/guard.js';
import type { Principal } from '../auth/principal.js';
import { ApiError, forbidden, internal, rateLimited, validationFailed } from '../errors.js';
import { inputIssues } from '../http/input-guard.js';
import { zodIssues } from '../http/validate.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Tracing } from '../tracing/tracing.js';
import { setBounded } from '../util/bounded-map.js';
import { createPromptCatalog, type PromptCatalog, type PromptSource } from './prompts.js';
import { createResourceCatalog, type ResourceCatalog, type ResourceSource } from './resources.js';
import { JsonText, toolError, toolResult } from './results.js';
import { createTaskCatalog, RELATED_TASK, type TaskCatalog, type TaskKind } from './tasks.js';
import {
  bodyFieldsAsArguments,
  type McpTransportKind,
  type ToolContext,
  type ToolDef,
  toolJsonSchema,
  toolOutputSchema,
} from './tool.js';
import { JSON_SCHEMA_VALIDATOR } from './validator.js';

/** Options of the toolset. */
export interface ToolsetOptions {
  /** Authoring tools over HTTP (`R3_MCP_HTTP_AUTHORING`); stdio always has them. */
  httpAuthoring: boolean;
  /**
   * Checks every result against its tool's output schema (`R3_MCP_VALIDATE_OUTPUT`): one outside it is
   * a fault of r3, logged and answered INTERNAL, never handed to a client that trusts the schema.
   */
  validateOutput?: boolean;
  /** Where unexpected faults of tools are logged. */
  log: Logger;
  /** Counts calls by tool and result (`r3_mcp_tool_calls_total`) and their duration. */
  metrics?: Pick<Metrics, 'toolCalls' | 'toolCallDuration'>;
  /** A span per call (`tool <name>`). */
  tracing?: Tracing;
  /** The resources the features registered (`platform.mcp.resources`); none: no `resources` capability. */
  resources?: readonly ResourceSource[];
  /** The prompts the features registered (`platform.mcp.prompts`); none: no `prompts` capability. */
  prompts?: readonly PromptSource[];
  /** The task kinds the features registered (`platform.mcp.taskKinds`); none: no `tasks` capability. */
  taskKinds?: readonly TaskKind[];
}

/** The tools of one process. */
export interface Toolset {
  /** The tools a client of `transport` sees (`tools/list`). */
  list(transport: McpTransportKind): Tool[];
  /** Runs `name` with `args` for `ctx`'s caller; never throws. */
  call(name: string, args: unknown, ctx: ToolContext): Promise<CallToolResult>;
  /**
   * `tools/call` with task augmentation: checks as `call` does, starts the tool's task and answers
   * it. Throws JSON-RPC errors (a tool that is no task: -32601; a refusal: its `ApiError`).
   */
  startTask(name: string, args: unknown, ctx: ToolContext): Promise<CreateTaskResult>;
  /** `tasks/result`: the result of the tool call the task stands for, once it is over. */
  taskResult(principal: Principal, taskId: string, signal: AbortSignal | undefined): Promise<CallToolResult>;
  /** The tasks tools start (`tasks/get`, `tasks/cancel`). */
  readonly tasks: TaskCatalog;
  /**
   * What a `tools/call` body (parsed JSON) reads first, to read with the request's authentication:
   * the run its tool's `fusedRun` names (`run`), else the org's applied version when its tool
   * `readsApplied` (`applied`); null for anything else.
   */
  fusedReadOf(body: unknown): FusedRequest | null;
  /** Every tool definition (docs and tests). */
  readonly tools: readonly ToolDef[];
  /** The resources served beside the tools (`resources/*`). */
  readonly resources: ResourceCatalog;
  /** The prompts served beside the tools (`prompts/*`). */
  readonly prompts: PromptCatalog;
  /** Where faults of anything served are logged. */
  readonly log: Logger;
}

/** Tools that only emit events (docs/mcp.md#not-exposed): never exposed, whatever a later group defines. */
export const NEVER_EXPOSED: ReadonlySet<string> = new Set(['request_human_review', 'recommend_action']);

/** Valid text answers remembered per tool (see `checkOf`). */
const VALID_TEXTS = 256;

/** Builds the toolset of `defined` (the tools the features registered). */
export function createToolset(defined: readonly ToolDef[], options: ToolsetOptions): Toolset {
  const tools = defined.filter((tool) => !NEVER_EXPOSED.has(tool.name));
  const byName = new Map<string, ToolDef>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`MCP tool ${tool.name} registered twice`);
    byName.set(tool.name, tool);
  }
  const listings = new Map(tools.map((tool) => [tool.name, listing(tool)]));
  const everything = [...listings.values()];
  /** Each tool's result check, compiled from its listed `outputSchema` on the tool's first call. */
  const checks = new Map<string, (value: unknown) => string | null>();
  const checkOf = (tool: ToolDef) => {
    let check = checks.get(tool.name);
    if (!check) {
      const schema = listings.get(tool.name)?.outputSchema ?? toolOutputSchema(tool.output);
      const validate = JSON_SCHEMA_VALIDATOR.getValidator(schema);
      // A text answer found valid is remembered: a client polling a run is answered the same text
      // until the run changes, and checking it is a parse and a schema pass (bench:mcp: about a
      // sixth of r3's CPU per runtime_get_run call). The check is a function of the text alone.
      const validTexts = new Map<string, true>();
      check = (value) => {
        if (value instanceof JsonText && validTexts.has(value.text)) return null;
        const verdict = validate(value instanceof JsonText ? JSON.parse(value.text) : value);
        if (!verdict.valid) return verdict.errorMessage ?? 'invalid';
        if (value instanceof JsonText) setBounded(validTexts, value.text, true, VALID_TEXTS);
        return null;
      };
      checks.set(tool.name, check);
    }
    return check;
  };
  const withoutAuthoring = everything.filter((entry) => !byName.get(entry.name)?.authoring);
  const log = options.log;

  const tasks = createTaskCatalog(options.taskKinds ?? []);
  return {
    tools,
    tasks,
    async startTask(name, args, ctx) {
      const tool = byName.get(name);
      if (!tool?.task) {
        throw new McpError(
          ErrorCode.MethodNotFound,
          tool
            ? `${name} cannot be called as a task (its execution.taskSupport is forbidden).`
            : `No tool ${JSON.stringify(name)} on this MCP server.`,
          { tool: name },
        );
      }
      const parsed = await checked(tool, args, ctx);
      const kind = tasks.kind(tool.task.kind);
      let id: number;
      try {
        id = await tool.task.start(parsed, ctx);
      } catch (error) {
        throw bodyFieldsAsArguments(error);
      }
      options.metrics?.toolCalls.inc({ tool: name, result: 'task' });
      return { task: tasks.task(kind, id, await kind.state(ctx.principal, id)) };
    },
    async taskResult(principal, taskId, signal) {
      const value = await tasks.result(principal, taskId, signal);
      return { ...toolResult(value), _meta: { [RELATED_TASK]: { taskId } } };
    },
    resources: createResourceCatalog(options.resources ?? []),
    prompts: createPromptCatalog(options.prompts ?? []),
    log,
    fusedReadOf(body) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
      const { method, params } = body as {
        method?: unknown;
        params?: { name?: unknown; arguments?: unknown };
      };
      if (method !== 'tools/call' || typeof params?.name !== 'string') return null;
      const tool = byName.get(params.name);
      const args = params.arguments;
      if (tool?.fusedRun) {
        if (typeof args !== 'object' || args === null || Array.isArray(args)) return null;
        const run = tool.fusedRun(args as Record<string, unknown>);
        return run === null ? null : { read: 'run', key: run };
      }
      return tool?.readsApplied ? { read: 'applied', key: 0 } : null;
    },
    list(transport) {
      return transport === 'stdio' || options.httpAuthoring ? everything : withoutAuthoring;
    },
    call(name, args, ctx) {
      if (!options.tracing?.enabled) return call(name, args, ctx);
      const attributes = { 'mcp.tool.name': name, 'mcp.transport': ctx.transport };
      return options.tracing.inSpan(`tool ${name}`, { attributes }, async (span) => {
        const result = await call(name, args, ctx);
        if (result.isError) span?.setStatus({ code: SpanStatusCode.ERROR });
        return result;
      });
    },
  };

  /**
   * What every call passes before its tool runs: the authoring gate, access (FORBIDDEN), the rate
   * limit, then the arguments (VALIDATION_FAILED naming `arguments.<field>`); answers them parsed.
   */
  async function checked(tool: ToolDef, args: unknown, ctx: ToolContext): Promise<unknown> {
    if (tool.authoring && ctx.transport === 'http' && !options.httpAuthoring) {
      throw authoringDisabled(tool.name);
    }
    authorize(ctx.principal, tool.access);
    const refused = await ctx.charge?.();
    if (refused) throw rateLimited(refused.retryAfterSec);
    const unstorable = inputIssues(args ?? {}, 'arguments');
    if (unstorable.length > 0) throw validationFailed(unstorable);
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) throw validationFailed(zodIssues(parsed.error, 'arguments'));
    return parsed.data;
  }

  async function call(name: string, args: unknown, ctx: ToolContext): Promise<CallToolResult> {
    const started = performance.now();
    // A name the client made up is counted as `unknown` (clients choose names: bound the labels).
    const tool = byName.get(name);
    const count = (result: string) => {
      const label = tool ? name : 'unknown';
      options.metrics?.toolCalls.inc({ tool: label, result });
      options.metrics?.toolCallDuration.observe({ tool: label }, (performance.now() - started) / 1000);
    };
    try {
      if (!tool) throw unknownTool(name);
      const parsed = await checked(tool, args, ctx);
      const value = await tool.run(parsed, ctx);
      if (options.validateOutput) {
        const broken = checkOf(tool)(value);
        if (broken) {
          log.error(
            { tool: name, reqId: ctx.requestId, broken },
            'MCP tool answered outside its output schema',
          );
          throw internal();
        }
      }
      // An object by contract: `output` is an object schema (its `outputSchema` root is `object`).
      const links = tool.links && !(value instanceof JsonText) ? tool.links(parsed, value) : [];
      const result = toolResult(value as Record<string, unknown> | JsonText, links);
      count('ok');
      return result;
    } catch (error) {
      count(error instanceof ApiError ? error.code : 'INTERNAL');
      return toolError(error, log, { tool: name, reqId: ctx.requestId });
    }
  }
}

/** A tool as `tools/list` shows it. */
function listing(tool: ToolDef): Tool {
  const inputSchema = toolJsonSchema(tool.input);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchema as Tool['inputSchema'],
    outputSchema: toolOutputSchema(tool.output) as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.hints },
    ...(tool.task ? { execution: { taskSupport: 'optional' as const } } : {}),
  };
}

function unknownTool(name: string): ApiError {
  return new ApiError('NOT_FOUND', `No tool ${JSON.stringify(name)} on this MCP server.`, {
    kind: 'tool',
    id: name,
  });
}

function authoringDisabled(name: string): ApiError {
  return forbidden(
    `${name} is an authoring tool, and authoring over HTTP MCP is disabled on this server. ` +
      'Set R3_MCP_HTTP_AUTHORING=true in the server environment and restart it, or use the stdio ' +
      'transport (`r3 mcp --org <slug>`), where authoring is always enabled.',
    { tool: name, setting: 'R3_MCP_HTTP_AUTHORING', transport: 'http' },
  );
}
