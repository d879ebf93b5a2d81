/**
 * Recurring work on durable timers: a schedule is one job whose `key` names it; when the job runs,
 * its handler does the work due and says when it is due next, and the job's completion and its next
 * occurrence (same key, later `run_at`) commit in one transaction. The database holds the only
 * record of a schedule's next time, so a restart loses none, and because at most one job exists per
 * key and a claim is exclusive, each occurrence runs on one node at a time.
 *
 * A handler may still run twice for one occurrence (a worker that lost its lease): work that must
 * happen once per due time makes itself idempotent by that time (e.g. an idempotency key).
 */
import type { Db } from '../db/sql.js';
import type { Job, JobContext, JobQueue } from './queue.js';

/** When a schedule is due next (epoch ms) and what its job carries then; null ends the schedule. */
export type NextOccurrence = { runAt: number; payload: unknown } | null;

/** Runs one occurrence; resolves with the next. */
export type RecurringHandler = (job: Job, ctx: JobContext) => Promise<NextOccurrence>;

/** Registers `kind` as recurring work (see the top of this file). */
export function registerRecurring(
  jobs: JobQueue,
  db: Db,
  kind: string,
  handler: RecurringHandler,
  options: { maxAttempts?: number } = {},
): void {
  jobs.register(
    kind,
    async (ctx) => {
      const next = await handler(ctx.job, ctx);
      const requeued = await db.tx(async (tx) => {
        if (!(await ctx.complete(tx))) return false;
        if (next && ctx.job.key) {
          await jobs.enqueue(tx, {
            kind,
            orgId: ctx.job.orgId,
            key: ctx.job.key,
            payload: next.payload,
            runAt: next.runAt,
            maxAttempts: ctx.job.maxAttempts,
          });
        }
        return next !== null;
      });
      if (requeued) jobs.notifyEnqueued();
    },
    options,
  );
}

/**
 * Starts a schedule unless it exists (its key already has a job); true when this call started it.
 * An existing, unclaimed occurrence whose payload differs (`payloadKey` compares them: the schedule
 * changed) is moved to the new `runAt` and payload when that is sooner, so a shortened interval
 * takes effect without waiting out the old one.
 */
export async function ensureRecurring(
  jobs: JobQueue,
  db: Db,
  spec: {
    kind: string;
    key: string;
    orgId: number | null;
    runAt: number;
    payload: unknown;
    maxAttempts?: number;
  },
): Promise<boolean> {
  const id = await jobs.enqueue(db, {
    kind: spec.kind,
    orgId: spec.orgId,
    key: spec.key,
    runAt: spec.runAt,
    payload: spec.payload,
    maxAttempts: spec.maxAttempts ?? 5,
  });
  if (id !== null) {
    jobs.notifyEnqueued();
    return true;
  }
  await db.query(
    `update jobs set payload = $2::jsonb, run_at = least(run_at, $3)
      where key = $1 and locked_by is null and dead_at is null and payload <> $2::jsonb`,
    [spec.key, JSON.stringify(spec.payload), new Date(spec.runAt).toISOString()],
  );
  return false;
}
