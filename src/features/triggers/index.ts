/**
 * Workflow triggers (docs/api.md#workflow-triggers): `schedule` workflows start on their cron from durable
 * schedule jobs, one run per due time across every r3 process (schedules.ts); `object.created` workflows
 * start one run per new instance of their type, whether the API or a sync created it
 * (object-created.ts). `manual` needs nothing here: `POST /workflows/:slug/runs` works for every
 * trigger. Runs a trigger starts are attributed to `trigger:schedule` / `trigger:object.created`.
 */
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { ObjectsApi } from '../objects/index.js';
import type { RunsApi } from '../runs/index.js';
import type { WorkspaceApi } from '../workspace/index.js';
import { Migration0021WorkflowTriggers } from './migrations/0021-workflow-triggers.js';
import { Migration0023ScheduleDueIndex } from './migrations/0023-schedule-due-index.js';
import { Migration0052OrgScheduleLimits } from './migrations/0052-org-schedule-limits.js';
import { objectCreatedTriggers } from './object-created.js';
import { workflowSchedules } from './schedules.js';

export { TRIGGER_ACTORS } from './fires.js';

/** What the triggers feature offers. */
export interface TriggersApi {
  /** Creates the jobs of schedules that have none (the periodic sweep, run now); resolves with how many. */
  sweepWorkflowSchedules(): Promise<number>;
}

export const triggersFeature = defineFeature({
  name: 'triggers',
  migrations: [
    { name: '0021-workflow-triggers', class: Migration0021WorkflowTriggers },
    { name: '0023-schedule-due-index', class: Migration0023ScheduleDueIndex },
    { name: '0052-org-schedule-limits', class: Migration0052OrgScheduleLimits },
  ],
  register(
    platform: Platform,
    { workspace, runs, objects }: { workspace: WorkspaceApi; runs: RunsApi; objects: ObjectsApi },
  ): TriggersApi {
    const { db, jobs, clock, log } = platform;
    const deps = { db: db.sql, jobs, host: platform.actors, clock, log, runs: runs.runs };
    const schedules = workflowSchedules({ ...deps, defaults: platform.config.schedules });
    workspace.workspace.onApply((sql, orgId) => schedules.reconcile(sql, orgId));
    platform.addService(schedules.service);
    objects.onObjectsCreated(objectCreatedTriggers(deps));
    return { sweepWorkflowSchedules: schedules.sweep };
  },
});
