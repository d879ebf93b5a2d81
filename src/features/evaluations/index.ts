/**
 * Evaluations and quality per version (docs/api.md "Evaluations", "Quality per version";
 * decisions.md §17): a skill's reviewed runs replayed on a candidate version as shadow runs and
 * compared with what reviewers approved (`POST /skills/:slug/evaluations`, `GET /evaluations/:id`,
 * marks, `r3 eval`); what reviewers made of a skill's or workflow's runs per version
 * (`GET /skills|workflows/:slug/quality`, MCP `runtime_skill_quality`).
 */
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { RunsApi } from '../runs/index.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { evalCommand } from './cli.js';
import { EvaluationService } from './evaluation-service.js';
import { qualityTools } from './mcp-tools.js';
import { Migration0049Evaluations } from './migrations/0049-evaluations.js';
import { evaluationRoutes } from './routes.js';

/** What the evaluations feature offers. */
export interface EvaluationsApi {
  evaluations: EvaluationService;
  /** The id of the org with slug `slug`, or null (for `r3 eval`). */
  orgId(slug: string): Promise<number | null>;
}

export const evaluationsFeature = defineFeature({
  name: 'evaluations',
  migrations: [{ name: '0049-evaluations', class: Migration0049Evaluations }],
  register(
    platform: Platform,
    { workspace, runs }: { workspace: WorkspaceApi; runs: RunsApi },
  ): EvaluationsApi {
    const db = platform.db.sql;
    const evaluations = new EvaluationService({
      db,
      host: platform.actors,
      clock: platform.clock,
      runs: runs.runs,
      workspace: workspace.workspace,
    });
    platform.routes.add(...evaluationRoutes({ evaluations, db, applied: workspace.applied }));
    platform.mcp.add(...qualityTools({ db, applied: workspace.applied }));
    return {
      evaluations,
      async orgId(slug) {
        const row = await db.maybeOne<{ id: number }>('select id from orgs where slug = $1', [slug]);
        return row?.id ?? null;
      },
    };
  },
  commands: [evalCommand],
});
