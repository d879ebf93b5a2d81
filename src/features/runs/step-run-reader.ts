/**
 * The read an `execute_step` job starts with: its run, with what the host needs to transition it, and
 * any result of the step recorded by an earlier execution (src/features/runs/execute-step.ts).
 *
 * Batched (createBatchLoader): the jobs that start in one turn of the event loop — a claim hands a
 * worker process several at once — read their runs in one statement instead of a round trip each
 * (docs/performance.md, "Choices in the code"). Each key is read within its own org: a job whose
 * org does not own the run finds none, even when the same statement reads that run for its owner.
 */
import type { JsonObject, StepFailedEvent } from '../../../machines/index.js';
import type { Sql } from '../../platform/db/sql.js';
import { type BatchLoader, createBatchLoader } from '../../platform/util/batch-loader.js';
import type { RunManifest } from './targets.js';
import { type CallRow, recordedCallsSql } from './tool-loop.js';

type StepError = StepFailedEvent['error'];

/** Which run a job reads, and which step execution (`step`, `attempt`) it looks for. */
export interface StepRunKey {
  orgId: number;
  actorId: number;
  step: string;
  attempt: number;
}

/** A run as its step's job reads it (`se_*`: the step execution already recorded, if any). */
export interface StepRunRow {
  id: number;
  org_id: number;
  version: number;
  last_seq: number;
  snapshot: unknown;
  name: string;
  kind: 'skill' | 'workflow';
  slug: string;
  status: string;
  input: Record<string, unknown>;
  manifest: RunManifest;
  step_results: Record<string, { output: unknown }>;
  trace_id: string;
  workspace_sha: string | null;
  agent_slug: string | null;
  mission_run_id: number | string | null;
  /** The skill run this one replays (absent on a run created here without one). */
  replay_of_run_id?: number | string | null;
  /** An evaluation's shadow run (its events say so: never on a webhook). */
  shadow: boolean;
  created_by: string;
  api_token_id: string | null;
  created_at: Date;
  tool_calls: CallRow[] | null;
  /** A workflow step's start (its `step_started` event); null for a skill run. */
  step_started_at: Date | null;
  se_output: JsonObject | null;
  se_error: StepError | null;
  se_finished: Date | null;
}

// Read-only: nothing is committed before the outcome is known. Prepared: sent unnamed, it was
// planned on every execution, and planning cost more than executing (docs/performance.md, "Choices
// in the code"). `ord`: the key's place in the batch.
const READ = `
  select x.ord, r.id, r.org_id, r.version, r.last_seq, r.snapshot, r.kind, r.slug, r.name, r.status, r.input,
         r.manifest, r.step_results, r.trace_id, r.workspace_sha, r.mission_run_id, r.mission_task_id, r.replay_of_run_id, r.shadow,
         r.agent_slug, r.created_by, r.api_token_id, r.created_at, ${recordedCallsSql('r.id')} as tool_calls,
         case when r.kind = 'workflow' then
           (select e.at from run_events e
             where e.run_id = r.id and e.event = 'step_started' and e.step = x.step
             order by e.seq desc limit 1)
         end as step_started_at,
         s.output as se_output, s.error as se_error, s.finished_at as se_finished
    from unnest($1::bigint[], $2::bigint[], $3::text[], $4::integer[]) with ordinality
           as x(run_id, org_id, step, attempt, ord)
    join runs r on r.id = x.run_id and r.org_id = x.org_id
    left join step_executions s on s.run_id = r.id and s.step = x.step and s.attempt = x.attempt`;

/** The reader: each key's run, or undefined when its org has no such run. */
export function createStepRunReader(sql: Sql): BatchLoader<StepRunKey, StepRunRow | undefined> {
  return createBatchLoader({
    async batch(keys) {
      const rows = await sql.prepared<StepRunRow & { ord: string }>('execute_step_load', READ, [
        keys.map((k) => k.actorId),
        keys.map((k) => k.orgId),
        keys.map((k) => k.step),
        keys.map((k) => k.attempt),
      ]);
      const found = new Array<StepRunRow | undefined>(keys.length).fill(undefined);
      for (const { ord, ...row } of rows) found[Number(ord) - 1] = row;
      return found;
    },
  });
}
