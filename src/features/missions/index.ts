/**
 * Missions (docs/api.md#missions): open-ended team work with a plan, a team and artifacts. Mission
 * definitions are authored resources (`missions/<slug>.yaml`, on the workspace, routes here); a
 * mission run is a `mission-run` actor whose planner and tasks are child skill runs; mission runs
 * awaiting review are items of the review queue (kind `mission`); progress is an event log (SSE) and
 * `mission.*` webhooks.
 */
import { z } from 'zod';
import { missionRunMachine } from '../../../machines/index.js';
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { ArtifactsApi } from '../artifacts/index.js';
import type { ReviewsApi } from '../reviews/index.js';
import { createSchemaCache, type RunsApi } from '../runs/index.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { missionTasks, missionTools } from './mcp-tools.js';
import { Migration0020Missions } from './migrations/0020-missions.js';
import { MISSION_RUN_KIND, missionRunKind, reportChildEvent } from './mission-kind.js';
import { missionRunRoutes } from './routes/mission-runs.js';
import { missionRoutes } from './routes/missions.js';
import { MissionService } from './service.js';

export { MISSION_RUN_KIND, type MissionEventPayload } from './mission-kind.js';
export type { MissionService } from './service.js';
export type { MissionRunView } from './view.js';

/** What the missions feature offers. */
export interface MissionsApi {
  missions: MissionService;
}

export const missionsFeature = defineFeature({
  name: 'missions',
  migrations: [{ name: '0020-missions', class: Migration0020Missions }],
  machines: { 'mission-run': missionRunMachine },
  register(
    platform: Platform,
    {
      workspace,
      reviews,
      runs,
      artifacts,
    }: { workspace: WorkspaceApi; reviews: ReviewsApi; runs: RunsApi; artifacts: ArtifactsApi },
  ): MissionsApi {
    const { actors, db, clock, log, bus, config } = platform;
    actors.register(missionRunKind({ host: actors, items: reviews.reviewItems }));
    runs.childRuns.onEvent(reportChildEvent(actors));
    const missions = new MissionService({
      db: db.sql,
      host: actors,
      clock,
      applied: workspace.applied,
      schemas: createSchemaCache(),
      artifacts: artifacts.artifacts,
      baseUrl: platform.baseUrl,
    });
    reviews.reviewSubjects.register('mission', {
      decide: (tx, decider, id, decision) => missions.decideIn(tx, decider, id, decision),
      // A plan at plan review may go back to the planner (decisions.md §15); a result may not.
      requestChanges: (tx, decider, id, request) => missions.requestChangesIn(tx, decider, id, request),
      // A plan at plan review, checked as a planner's would be (MissionService.decideIn).
      edits: z.strictObject({ plan: z.record(z.string(), z.unknown()) }),
      view: (principal, id) => missions.get(principal, id),
      reviewUrl: (id) => `${platform.baseUrl()}/review/missions/${id}`,
      table: 'mission_runs',
      pollUrl: (id) => `/api/v1/mission-runs/${id}`,
    });
    platform.mcp.add(...missionTools(missions, workspace, reviews.decisions));
    platform.mcp.addTaskKinds(missionTasks(missions, { bus, log }));
    platform.routes.add(
      ...missionRoutes(workspace),
      ...missionRunRoutes(missions, { db: db.sql, bus, log, heartbeatMs: config.sse.heartbeatMs }),
    );
    void MISSION_RUN_KIND;
    return { missions };
  },
});
