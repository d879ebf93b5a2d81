/**
 * One firing of a workflow trigger: the `workflow_trigger_fires` row keyed by what fired it (a due
 * time, an instance) and the run it started, written in one transaction, so a due time or an instance
 * starts at most one run however often its job runs. A trigger whose workflow could not start (gone,
 * an inactive skill, input its inputSchema refuses) records why instead of a run.
 */
import type { ActorHost } from '../../platform/actors/host.js';
import type { ActorTx } from '../../platform/actors/tx.js';
import type { Db } from '../../platform/db/sql.js';
import { ApiError } from '../../platform/errors.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/log.js';
import type { Clock } from '../../platform/util/clock.js';
import type { PreparedRun, RunService } from '../runs/index.js';

/** What the triggers' job handlers use. */
export interface TriggerDeps {
  db: Db;
  jobs: JobQueue;
  host: ActorHost;
  clock: Clock;
  log: Logger;
  runs: RunService;
}

/** What a trigger type's runs are attributed to (`createdBy`, the actor of their first transition). */
export const TRIGGER_ACTORS = {
  schedule: 'trigger:schedule',
  'object.created': 'trigger:object.created',
} as const;

export type TriggerType = keyof typeof TRIGGER_ACTORS;

/** The run to start for one firing, or why none can start. */
export type Start = { run: PreparedRun } | { error: string };

/** Resolves and checks the run of a firing; a refusal (unknown workflow, bad input) becomes its error. */
export async function prepareStart(
  runs: RunService,
  orgId: number,
  slug: string,
  input: Record<string, unknown>,
): Promise<Start> {
  try {
    return { run: await runs.prepareTriggered(orgId, slug, input) };
  } catch (error) {
    if (error instanceof ApiError) return { error: `${error.code}: ${error.message}` };
    throw error;
  }
}

/**
 * Records firing `key` of workflow `slug` and starts its run, in `tx`; resolves with whether this call
 * recorded it (false: the key had fired already) and the run id (null when no run started).
 */
export async function fireOnce(
  tx: ActorTx,
  runs: RunService,
  fire: {
    orgId: number;
    slug: string;
    key: string;
    type: TriggerType;
    at: Date;
    start: Start;
    details: Record<string, unknown>;
  },
): Promise<{ claimed: boolean; runId: number | null }> {
  const error = 'error' in fire.start ? fire.start.error : null;
  const claimed = await tx.sql.maybeOne(
    `insert into workflow_trigger_fires (org_id, workflow_slug, fire_key, trigger_type, error, fired_at)
     values ($1, $2, $3, $4, $5, $6)
     on conflict do nothing
     returning fire_key`,
    [fire.orgId, fire.slug, fire.key, fire.type, error, fire.at],
  );
  if (!claimed || !('run' in fire.start)) return { claimed: claimed !== null, runId: null };
  const answer = await runs.createTriggered(tx, fire.start.run, {
    createdBy: TRIGGER_ACTORS[fire.type],
    details: { trigger: { type: fire.type, ...fire.details } },
  });
  await tx.sql.query(
    `update workflow_trigger_fires set run_id = $4 where org_id = $1 and workflow_slug = $2 and fire_key = $3`,
    [fire.orgId, fire.slug, fire.key, answer.runId],
  );
  return { claimed: true, runId: answer.runId };
}
