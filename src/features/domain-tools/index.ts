/**
 * Domain tools (docs/mcp.md#domain-tools): the agent tools over the organization's connected sources and the
 * agent's own runs, registered in the agent-tool registry (so usable in an agent's runs and over MCP
 * with an optional `agent_slug`):
 *
 * - CRM: `get_crm_deals`, `get_crm_contacts`, `get_crm_companies` (crm-tools.ts);
 * - one upstream item cache-first, or a sync: `get_meeting_transcript`, `get_mail_thread`,
 *   `freshen_source` (source-tools.ts);
 * - what r3 holds: `search_knowledge`, `lookup_objects`, `briefings` (knowledge-tools.ts);
 * - the agent's runs: `run_operation`, `learnings`, `run_history` (run-tools.ts).
 *
 * Every call first passes the agent checks of acting-agent.ts (FORBIDDEN otherwise).
 */
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { ConnectorsApi } from '../connectors/index.js';
import type { ObjectsApi } from '../objects/index.js';
import type { RunsApi } from '../runs/index.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { ActingAgents } from './acting-agent.js';
import { crmTools } from './crm-tools.js';
import { knowledgeTools } from './knowledge-tools.js';
import { runTools } from './run-tools.js';
import { sourceTools } from './source-tools.js';

export { type Acting, ActingAgents } from './acting-agent.js';

/** What the domain tools feature offers: nothing (its tools are in the platform's registry). */
export type DomainToolsApi = Record<never, never>;

export const domainToolsFeature = defineFeature({
  name: 'domain-tools',
  register(
    platform: Platform,
    {
      workspace,
      objects,
      connectors,
      runs,
    }: { workspace: WorkspaceApi; objects: ObjectsApi; connectors: ConnectorsApi; runs: RunsApi },
  ): DomainToolsApi {
    const acting = new ActingAgents({ applied: workspace.applied });
    const { clock } = platform;
    platform.agentTools.add(
      ...knowledgeTools({
        acting,
        records: objects.records,
        search: objects.search,
        clock,
        baseUrl: platform.baseUrl,
      }),
      ...crmTools({ acting, records: objects.records }),
      ...sourceTools({ acting, records: objects.records, connectors, clock }),
      ...runTools({ acting, runs: runs.runs }),
    );
    return {};
  },
});
