/**
 * The agent-tool registry (docs/mcp.md "Built-in tools"): one definition feeds the permission check (skill list ∩
 * agent allow/deny), the model's tool list, the MCP tools, and execution with checked arguments and
 * results.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { access } from '../../../src/platform/auth/guard.js';
import type { ToolDef } from '../../../src/platform/mcp/tool.js';
import { READ_ONLY } from '../../../src/platform/mcp/tool.js';
import {
  createAgentToolRegistry,
  defineAgentTool,
  executeTool,
  modelToolSpec,
  type ToolCall,
  toolPermitted,
} from '../../../src/platform/tools/registry.js';

const echo = defineAgentTool({
  name: 'echo_twice',
  title: 'Echo twice',
  group: 'builtin',
  description: 'Repeats text.',
  args: z.strictObject({ text: z.string().min(1).describe('What to repeat.') }),
  result: z.object({ text: z.string() }),
  idempotency: 'safe',
  uses: ['run', 'mcp'],
  access: access.invoke,
  hints: READ_ONLY,
  execute: async ({ text }) => ({ text: text === 'bad' ? 1 : `${text}${text}` }) as { text: string },
});

const runOnly = defineAgentTool({ ...echo, name: 'run_only', uses: ['run'] });

const call: ToolCall = {
  use: 'run',
  orgId: 1,
  actor: 'token:x',
  agentSlug: null,
  apiTokenId: 'x',
  runId: 7,
  missionRunId: null,
  callId: 'call_1',
  idempotencyKey: 'run:7:call_1',
  requestId: null,
  signal: undefined,
};

describe('agent tool registry', () => {
  it('adds tools usable over MCP to the MCP tools, once each', () => {
    const mcp: ToolDef[] = [];
    const registry = createAgentToolRegistry((tool) => mcp.push(tool));
    registry.add(echo, runOnly);
    expect(registry.get('echo_twice')).toBe(echo);
    expect(registry.all.map((tool) => tool.name)).toEqual(['echo_twice', 'run_only']);
    expect(mcp.map((tool) => tool.name)).toEqual(['echo_twice']);
    expect(mcp[0]?.access).toBe(access.invoke);
    expect(() => registry.add(echo)).toThrow(/twice/);
  });

  it('permits a tool the skill lists and the agent allows (absent allow = all the skill lists)', () => {
    expect(toolPermitted('a', { skillTools: ['a', 'b'] })).toBe(true);
    expect(toolPermitted('c', { skillTools: ['a', 'b'] })).toBe(false);
    expect(toolPermitted('a', { skillTools: ['a'], agent: { deny: [] } })).toBe(true);
    expect(toolPermitted('a', { skillTools: ['a'], agent: { deny: ['a'] } })).toBe(false);
    expect(toolPermitted('a', { skillTools: ['a'], agent: { allow: ['b'], deny: [] } })).toBe(false);
    expect(toolPermitted('b', { skillTools: ['a'], agent: { allow: ['b'], deny: [] } })).toBe(false);
    expect(toolPermitted('a', { skillTools: ['a'], agent: { allow: ['a'], deny: ['a'] } })).toBe(false);
  });

  it('gives the model an OpenAI-compatible function with the argument JSON Schema', () => {
    expect(modelToolSpec(echo)).toEqual({
      type: 'function',
      function: {
        name: 'echo_twice',
        description: 'Repeats text.',
        parameters: {
          type: 'object',
          properties: { text: { type: 'string', minLength: 1, description: 'What to repeat.' } },
          required: ['text'],
          additionalProperties: false,
        },
      },
    });
  });

  it('executes with checked arguments (VALIDATION_FAILED on arguments.*) and a checked result', async () => {
    expect(await executeTool(echo, { text: 'ab' }, call)).toEqual({ text: 'abab' });
    await expect(executeTool(echo, { text: '' }, call)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { issues: [expect.objectContaining({ field: 'arguments.text' })] },
    });
    await expect(executeTool(echo, { text: 'a', more: 1 }, call)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(executeTool(echo, { text: 'bad' }, call)).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('hands an agent-scoped tool the MCP `agent_slug` as call.agentSlug, never in its arguments', async () => {
    const seen: Array<{ args: unknown; agentSlug: string | null }> = [];
    const scoped = defineAgentTool({
      ...echo,
      name: 'scoped',
      agentScoped: true,
      execute: async (args, c) => {
        seen.push({ args, agentSlug: c.agentSlug });
        return { text: (args as { text: string }).text };
      },
    });
    const mcp: ToolDef[] = [];
    createAgentToolRegistry((tool) => mcp.push(tool)).add(scoped, echo);
    const [scopedMcp, echoMcp] = mcp as [ToolDef, ToolDef];
    expect(scopedMcp.input.safeParse({ text: 'a', agent_slug: 'sales' }).success).toBe(true);
    expect(echoMcp.input.safeParse({ text: 'a', agent_slug: 'sales' }).success).toBe(false);
    expect(modelToolSpec(scoped).function.parameters).not.toHaveProperty('properties.agent_slug');
    const ctx = {
      principal: { orgId: 1, actor: 'token:x', tokenId: 'x' },
      requestId: 'r',
      signal: undefined,
    } as unknown as Parameters<ToolDef['run']>[1];
    await scopedMcp.run(scopedMcp.input.parse({ text: 'a', agent_slug: 'sales' }), ctx);
    await scopedMcp.run(scopedMcp.input.parse({ text: 'b' }), ctx);
    expect(seen).toEqual([
      { args: { text: 'a' }, agentSlug: 'sales' },
      { args: { text: 'b' }, agentSlug: null },
    ]);
  });
});
