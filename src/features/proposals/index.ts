/**
 * Proposals (docs/api.md#proposals): `propose_action` (an agent tool, in runs and over MCP) creates a
 * persisted `proposal` actor that waits in the review queue as an item of kind `action`; deciding
 * approve executes its connector write exactly once (the `execute_action` job), reject and cancel
 * never execute. `GET /proposals[/:id]`, `POST /proposals/:id/cancel`, `GET /proposals/:id/stream`;
 * its events (`proposal.created`, `proposal.executed`, `proposal.failed`, …) go out on the bus.
 */
import { z } from 'zod';
import { proposalMachine } from '../../../machines/index.js';
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { ConnectorsApi } from '../connectors/index.js';
import { ActingAgents } from '../domain-tools/index.js';
import type { ReviewsApi } from '../reviews/index.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { createExecuteActionJob, EXECUTE_ACTION_JOB } from './execute-job.js';
import { Migration0019Proposals } from './migrations/0019-proposals.js';
import { Migration0041ProposalSummary } from './migrations/0041-proposal-summary.js';
import { ACTION_REVIEW_KIND, proposalKind } from './proposal-kind.js';
import { proposeActionTool } from './propose-tool.js';
import { proposalRoutes } from './routes.js';
import { ProposalService } from './service.js';

export type { ProposalEventPayload } from './proposal-kind.js';
export type { ProposalService, ProposalView } from './service.js';

/** What the proposals feature offers. */
export interface ProposalsApi {
  proposals: ProposalService;
}

export const proposalsFeature = defineFeature({
  name: 'proposals',
  migrations: [
    { name: '0019-proposals', class: Migration0019Proposals },
    { name: '0041-proposal-summary', class: Migration0041ProposalSummary },
  ],
  machines: { proposal: proposalMachine },
  register(
    platform: Platform,
    {
      workspace,
      reviews,
      connectors,
    }: { workspace: WorkspaceApi; reviews: ReviewsApi; connectors: ConnectorsApi },
  ): ProposalsApi {
    const { db, clock, log, actors, jobs, bus } = platform;
    actors.register(proposalKind(reviews.reviewItems));
    const proposals = new ProposalService({
      db: db.sql,
      host: actors,
      clock,
      baseUrl: platform.baseUrl,
      sources: connectors.sources,
    });
    reviews.reviewSubjects.register(ACTION_REVIEW_KIND, {
      decide: (tx, decider, id, decision) => proposals.decideIn(tx, decider, id, decision),
      // Params merged over the proposed ones; which may change is the service's (EDITABLE_PARAMS).
      edits: z.strictObject({ params: z.record(z.string(), z.unknown()) }),
      view: (principal, id) => proposals.detail(principal, id),
      reviewUrl: (id) => proposals.reviewUrl(id),
      pollUrl: (id) => `/api/v1/proposals/${id}`,
      table: 'proposals',
    });
    const job = createExecuteActionJob({
      db: db.sql,
      host: actors,
      clock,
      log,
      connections: connectors.connections,
      sources: connectors.sources,
    });
    jobs.register(EXECUTE_ACTION_JOB, job.handler, job.options);
    platform.agentTools.add(
      proposeActionTool({ proposals, acting: new ActingAgents({ applied: workspace.applied }) }),
    );
    platform.routes.add(...proposalRoutes(proposals, bus, platform.config.sse.heartbeatMs));
    return { proposals };
  },
});
