/**
 * The checks every domain-tool call makes (docs/mcp.md#domain-tools): the agent it acts for (a run's agent,
 * or MCP's `agent_slug`) must exist, be active, not deny the tool (manifest `tools: {allow?, deny}`,
 * docs/api.md#authored-resources-the-workspace) and list each source the call reads or syncs in
 * `sourceSlugs` — FORBIDDEN otherwise. A call for no agent reads every source of the caller's organization.
 *
 * Read at every call: an agent deactivated or a source removed from it takes effect on the next
 * call. A call that knows the org's applied version its request saw (MCP over HTTP: read with the
 * request's authentication) reads the agent and the sources at that version, from memory when this
 * process read them at it (src/features/workspace/applied.ts): a change applies a new version, which
 * the next request's authentication sees.
 */

import { access } from '../../platform/auth/guard.js';
import { forbidden, notFound } from '../../platform/errors.js';
import { READ_ONLY } from '../../platform/mcp/tool.js';
import type { AgentToolDef, ToolCall } from '../../platform/tools/registry.js';
import type { SourceConfig } from '../connectors/index.js';
import type { AgentManifest, AppliedResources } from '../workspace/index.js';

/** What every read-only domain tool declares: usable in runs and over MCP, for an agent, read:all. */
export const DOMAIN_READ = {
  idempotency: 'safe',
  uses: ['run', 'mcp'],
  access: access.read,
  agentScoped: true,
  hints: READ_ONLY,
} as const satisfies Partial<AgentToolDef>;

/** Who a call acts for and the sources it may use. */
export interface Acting {
  orgId: number;
  /** The agent, or null when the call acts for none. */
  agent: AgentManifest | null;
  /** The sources the call may use: the agent's (those that exist), or all of the org's. */
  sources: SourceConfig[];
}

/**
 * The tool policy of an agent manifest (docs/api.md#authored-resources-the-workspace), read defensively:
 * older manifests lack it.
 */
function toolPolicy(agent: AgentManifest): { allow?: readonly string[]; deny?: readonly string[] } {
  const tools = (agent as { tools?: unknown }).tools;
  return tools && typeof tools === 'object' ? (tools as { allow?: string[]; deny?: string[] }) : {};
}

/** The agent checks and source scopes of the domain tools. */
export class ActingAgents {
  constructor(private readonly deps: { applied: AppliedResources }) {}

  /** Resolves the call's agent for `tool` and the sources it may use; FORBIDDEN on a failed check. */
  async resolve(call: ToolCall, tool: string): Promise<Acting> {
    const at = call.appliedSha;
    if (call.agentSlug === null) {
      return { orgId: call.orgId, agent: null, sources: await this.orgSources(call.orgId, at) };
    }
    const slug = call.agentSlug;
    // Two reads on two connections at once (when read at all): the call waits for one round trip, not two.
    const [sources, applied] = await Promise.all([
      this.orgSources(call.orgId, at),
      this.deps.applied.getAgent(call.orgId, slug, at),
    ]);
    const refuse = (message: string, reason: string) => forbidden(message, { agentSlug: slug, tool, reason });
    if (!applied) throw refuse(`No agent "${slug}" in this organization.`, 'unknown_agent');
    const agent = applied.manifest;
    if (!agent.active) throw refuse(`Agent "${slug}" is not active.`, 'inactive_agent');
    const policy = toolPolicy(agent);
    if (policy.deny?.includes(tool) || (policy.allow !== undefined && !policy.allow.includes(tool))) {
      throw refuse(`Agent "${slug}" does not allow the tool ${tool}.`, 'tool_denied');
    }
    const listed = new Set(agent.sourceSlugs);
    return { orgId: call.orgId, agent, sources: sources.filter((s) => listed.has(s.slug)) };
  }

  /** The sources of `kind` the call may use; FORBIDDEN when an agent acts and lists none. */
  ofKind(acting: Acting, kind: string, tool: string): SourceConfig[] {
    const found = acting.sources.filter((s) => s.kind === kind);
    if (found.length === 0 && acting.agent) {
      throw forbidden(`Agent "${acting.agent.slug}" lists no ${kind} source in its sourceSlugs.`, {
        agentSlug: acting.agent.slug,
        tool,
        reason: 'source_not_listed',
        kind,
      });
    }
    return found;
  }

  /** Every source the call may use, by slug; FORBIDDEN when an agent acts and lists none. */
  any(acting: Acting, tool: string): string[] | null {
    if (!acting.agent) return null;
    if (acting.agent.sourceSlugs.length === 0) {
      throw forbidden(`Agent "${acting.agent.slug}" lists no source in its sourceSlugs.`, {
        agentSlug: acting.agent.slug,
        tool,
        reason: 'source_not_listed',
      });
    }
    return acting.sources.map((s) => s.slug);
  }

  /**
   * Source `slug`: FORBIDDEN when an agent acts and does not list it, 404 when the org has none.
   */
  named(acting: Acting, slug: string, tool: string): SourceConfig {
    if (acting.agent && !acting.agent.sourceSlugs.includes(slug)) {
      throw forbidden(`Agent "${acting.agent.slug}" does not list the source "${slug}" in its sourceSlugs.`, {
        agentSlug: acting.agent.slug,
        tool,
        reason: 'source_not_listed',
        source: slug,
      });
    }
    const source = acting.sources.find((s) => s.slug === slug);
    if (!source) throw notFound('source', slug);
    return source;
  }

  private async orgSources(orgId: number, at: string | null | undefined): Promise<SourceConfig[]> {
    return (await this.deps.applied.sources(orgId, at)).map((m) => ({
      slug: m.slug,
      kind: m.kind,
      connection: m.connection,
      sync: m.sync ?? null,
    }));
  }
}
