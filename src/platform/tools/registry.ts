/**
 * The one registry of agent tools (docs/mcp.md "Built-in tools"): each tool is a name, a zod argument
 * schema, a result schema, how it may be re-executed after a crash (idempotency), the contexts that may use
 * it (a run's tool loop, MCP) and, over MCP, the REST access rule of the same operation. From it come
 * the model's tool list (`modelToolSpec`), the permission check (`toolPermitted`: the skill's list ∩
 * the agent's allow/deny), the MCP tools (`mcpToolOf`, added to `platform.mcp` for every tool with the
 * `mcp` context, so the built-ins are listed and called like every other MCP tool) and the docs.
 *
 * A tool is executed through `executeTool`: arguments checked (VALIDATION_FAILED naming
 * `arguments.<field>`), the tool run, its result checked against its schema (a mismatch is a fault of
 * r3: INTERNAL). Tool failures are `ApiError`s with the tool error codes of docs/mcp.md#built-in-tools
 * (TOOL_UNAVAILABLE, TOOL_FAILED, TOOL_TIMEOUT, FORBIDDEN, VALIDATION_FAILED).
 */
import type { ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Access } from '../auth/guard.js';
import { internal, validationFailed } from '../errors.js';
import { inputIssues } from '../http/input-guard.js';
import { zodIssues } from '../http/validate.js';
import { defineTool, type ToolDef, type ToolGroup, type ToolHints, toolJsonSchema } from '../mcp/tool.js';

/** Where a tool may be used: inside a run's tool loop, or called by an MCP client. */
export type ToolUse = 'run' | 'mcp';

/**
 * What re-executing a call whose result was never recorded does: `safe` — the tool has no effect
 * worth guarding (a read, a pure computation); `keyed` — its effect is deduplicated by the call's
 * `idempotencyKey` (run id + call id inside a run), so the retry answers the first effect.
 */
export type ToolIdempotency = 'safe' | 'keyed';

/** One call of a tool: who, for which org, from where, for which run. */
export interface ToolCall {
  use: ToolUse;
  orgId: number;
  /** Who the effects are attributed to: `token:<id>`, `mcp`, or the run's creator. */
  actor: string;
  /**
   * The agent the call acts for: the run's `agentSlug` in a run, the `agent_slug` argument over MCP
   * (only agent-scoped tools take it); null: none. Agent-scoped tools check it at every call.
   */
  agentSlug: string | null;
  apiTokenId: string | null;
  runId: number | null;
  missionRunId: number | null;
  /** The model's call id inside a run; null over MCP. */
  callId: string | null;
  /** Deduplicates a keyed tool's effect (derived from run id + call id in a run); null: none. */
  idempotencyKey: string | null;
  requestId: string | null;
  signal: AbortSignal | undefined;
  /**
   * The org's applied version (full sha; null before the first apply) as the call's request saw it,
   * read with its authentication (MCP over HTTP): the applied resources the call reads at that
   * version may come from memory (src/features/workspace/applied.ts). Absent: read them.
   */
  appliedSha?: string | null;
}

/** An agent tool. `execute` answers the result (checked against `result`) or throws an `ApiError`. */
export interface AgentToolDef<A extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  /** MCP group (`builtin`, a connector's, …). */
  group: ToolGroup;
  /** What the model and MCP clients read. */
  description: string;
  args: A;
  result: R;
  idempotency: ToolIdempotency;
  uses: readonly ToolUse[];
  /** Over MCP: the REST access rule of the same operation. */
  access: Access;
  /**
   * The tool acts for an agent (the domain tools, docs/api.md "Sources and connectors"): over MCP it takes
   * an optional
   * `agent_slug` argument besides `args` (which must then be an object schema), handed to `execute`
   * as `call.agentSlug`; in a run the run's agent is. The model never sees `agent_slug`.
   */
  agentScoped?: boolean;
  /** Over MCP, the tool's annotations (every hint stated). */
  hints: ToolHints;
  execute(args: z.output<A>, call: ToolCall): Promise<z.output<R>>;
  /** Over MCP, the `resource_link` items of what a call made (`ToolDef.links`). */
  links?(args: z.output<A>, result: z.output<R>): ResourceLink[];
}

/** Declares a tool whose `execute` is typed by its schemas. */
export function defineAgentTool<A extends z.ZodType, R extends z.ZodType>(
  def: AgentToolDef<A, R>,
): AgentToolDef {
  return def as unknown as AgentToolDef;
}

/** The agent tools of the process. */
export interface AgentToolRegistry {
  add(...tools: AgentToolDef[]): void;
  get(name: string): AgentToolDef | undefined;
  /** Every tool, in the order added. */
  readonly all: readonly AgentToolDef[];
}

/** A registry that hands each tool usable over MCP to `addMcp` as an MCP tool. */
export function createAgentToolRegistry(addMcp: (tool: ToolDef) => void): AgentToolRegistry {
  const byName = new Map<string, AgentToolDef>();
  const all: AgentToolDef[] = [];
  return {
    add(...tools) {
      for (const tool of tools) {
        if (byName.has(tool.name)) throw new Error(`agent tool ${tool.name} registered twice`);
        byName.set(tool.name, tool);
        all.push(tool);
        if (tool.uses.includes('mcp')) addMcp(mcpToolOf(tool));
      }
    },
    get: (name) => byName.get(name),
    all,
  };
}

/**
 * Runs `tool` with `rawArgs` for `call`: arguments → the tool → the result, checked. Throws the
 * `ApiError` to answer (VALIDATION_FAILED for bad arguments; the tool's own errors as they are;
 * INTERNAL for a result that breaks the tool's schema).
 */
export async function executeTool(tool: AgentToolDef, rawArgs: unknown, call: ToolCall): Promise<unknown> {
  const unstorable = inputIssues(rawArgs ?? {}, 'arguments');
  if (unstorable.length > 0) throw validationFailed(unstorable);
  const parsed = tool.args.safeParse(rawArgs ?? {});
  if (!parsed.success) throw validationFailed(zodIssues(parsed.error, 'arguments'));
  return checkedResult(tool, await tool.execute(parsed.data, call));
}

function checkedResult(tool: AgentToolDef, result: unknown): unknown {
  const checked = tool.result.safeParse(result);
  if (!checked.success) {
    throw Object.assign(internal(), { cause: new Error(`${tool.name} answered outside its result schema`) });
  }
  return checked.data;
}

/** A skill's `tools` list and a run's agent's `tools: {allow?, deny}` (absent allow = all the skill lists). */
export interface ToolPolicy {
  skillTools: readonly string[];
  agent?: { allow?: readonly string[] | undefined; deny?: readonly string[] | undefined } | null;
}

/**
 * Whether `name` may be called under `policy` (docs/mcp.md "Built-in tools": the skill lists it and the
 * agent allows it).
 */
export function toolPermitted(name: string, policy: ToolPolicy): boolean {
  if (!policy.skillTools.includes(name)) return false;
  const agent = policy.agent;
  if (!agent) return true;
  if (agent.deny?.includes(name)) return false;
  return agent.allow === undefined || agent.allow.includes(name);
}

/** The tool as an OpenAI-compatible chat-completions `tools` entry. */
export function modelToolSpec(tool: AgentToolDef): {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
} {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: toolJsonSchema(tool.args) },
  };
}

/** The `agent_slug` argument agent-scoped tools take over MCP. */
export const agentSlugArgument = z
  .string()
  .min(1)
  .max(63)
  .optional()
  .describe(
    'The agent to act for: its sources and tool policy apply (default: none, the whole organization).',
  );

/**
 * The tool as an MCP tool: under the caller's principal, attributed as the caller, outside any run;
 * an agent-scoped tool also takes `agent_slug` (see {@link AgentToolDef.agentScoped}).
 */
export function mcpToolOf(tool: AgentToolDef): ToolDef {
  const input = tool.agentScoped
    ? (tool.args as unknown as z.ZodObject).extend({ agent_slug: agentSlugArgument })
    : tool.args;
  return defineTool({
    name: tool.name,
    title: tool.title,
    group: tool.group,
    description: tool.description,
    input,
    output: tool.result,
    access: tool.access,
    hints: tool.hints,
    ...(tool.agentScoped ? { readsApplied: true } : {}),
    ...(tool.links ? { links: tool.links } : {}),
    async run(parsed, ctx) {
      let args = parsed as Record<string, unknown>;
      let agentSlug: string | null = null;
      if (tool.agentScoped) {
        const { agent_slug, ...rest } = args;
        agentSlug = typeof agent_slug === 'string' ? agent_slug : null;
        args = rest;
      }
      const result = await tool.execute(args, {
        use: 'mcp',
        orgId: ctx.principal.orgId,
        actor: ctx.principal.actor,
        agentSlug,
        apiTokenId: ctx.principal.tokenId,
        runId: null,
        missionRunId: null,
        callId: null,
        idempotencyKey: null,
        requestId: ctx.requestId,
        signal: ctx.signal,
        ...(ctx.appliedSha !== undefined ? { appliedSha: ctx.appliedSha } : {}),
      });
      return checkedResult(tool, result) as Record<string, unknown>;
    },
  });
}
