/**
 * `schedule` triggers: each workflow whose applied trigger is a cron has one job (kind
 * {@link SCHEDULE_JOB}, key `workflow-schedule:<org>:<slug>`) whose `run_at` is its next due time, so
 * the database holds the only record of when it is due and any r3 process's job worker may fire it.
 *
 * Firing is one transaction: complete the job (it must still be this worker's), record the due time in
 * `workflow_trigger_fires` and start the run (fires.ts: a due time that fired already starts nothing),
 * and enqueue the job of the next due time. A job that comes due late (no process ran, or all were
 * busy) fires the last due time at or before now — never the ones before it — and then the next one
 * after now.
 *
 * The jobs follow the applied version in the transaction that applies it ({@link reconcileSchedules}):
 * a new schedule workflow gets its job, a changed cron moves it, a removed workflow (or one whose
 * trigger is no longer a schedule) loses it. A job its worker holds at that moment is left alone: the
 * worker reads the applied manifest itself and ends the schedule, or fires nothing and moves it to the
 * new cron. A sweep (at start and every minute) creates jobs that are missing (versions applied
 * before this existed, a job that died).
 *
 * Job workers find delayed jobs by polling (every second); so that a schedule fires at its due time
 * rather than up to a poll later, each process also reads the earliest due time of the schedule jobs
 * (at most a second ahead) and wakes the workers when it comes. That timer is only a wake-up: the
 * rows say what is due, and a process without it still fires every schedule on the next poll.
 */
import type { Sql } from '../../platform/db/sql.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { PlatformService } from '../../platform/platform.js';
import { cronTimes } from './cron-times.js';
import { fireOnce, prepareStart, type Start, type TriggerDeps } from './fires.js';

/** The job kind of a workflow's schedule. */
export const SCHEDULE_JOB = 'workflow-schedule';
/** How often the sweep looks for schedules without a job. */
const SWEEP_MS = 60_000;
/** The longest the due-time waker sleeps before reading the next due time again. */
const WAKER_MS = 1_000;
/** Attempts of one due time's job (only database faults fail it). */
const MAX_ATTEMPTS = 20;

/** A schedule job's payload: the cron it was computed from and the due time it waits for. */
interface SchedulePayload {
  slug: string;
  cron: string;
  dueAt: string;
}

const keyOf = (orgId: number, slug: string) => `${SCHEDULE_JOB}:${orgId}:${slug}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** The applied cron of workflow `slug`, or null when it has none (gone, or not a schedule). */
async function appliedCron(sql: Sql, orgId: number, slug: string): Promise<string | null> {
  const row = await sql.maybeOne<{ cron: string | null }>(
    `select manifest -> 'trigger' ->> 'cron' as cron from workflows
      where org_id = $1 and slug = $2 and trigger_type = 'schedule'`,
    [orgId, slug],
  );
  return row?.cron ?? null;
}

/** Queues the job of `slug`'s next due time after `after` (nothing when the cron has none). */
async function enqueueNext(
  jobs: JobQueue,
  target: Parameters<JobQueue['enqueue']>[0],
  orgId: number,
  slug: string,
  cron: string,
  after: number,
): Promise<void> {
  const next = cronTimes(cron).next(after);
  if (next === null) return;
  const payload: SchedulePayload = { slug, cron, dueAt: iso(next) };
  await jobs.enqueue(target, {
    kind: SCHEDULE_JOB,
    orgId,
    key: keyOf(orgId, slug),
    payload,
    runAt: next,
    maxAttempts: MAX_ATTEMPTS,
  });
}

/** Registers the schedule job kind; returns the apply listener and the sweep service. */
export function workflowSchedules(deps: TriggerDeps): {
  reconcile: (sql: Sql, orgId: number) => Promise<void>;
  sweep(): Promise<number>;
  service: PlatformService;
} {
  const { db, jobs, host, clock, log, runs } = deps;

  jobs.register(
    SCHEDULE_JOB,
    async (ctx) => {
      const orgId = ctx.job.orgId ?? 0;
      const payload = ctx.job.payload as SchedulePayload;
      const now = clock.now();
      const cron = await appliedCron(db, orgId, payload.slug);
      // Gone, or no longer a schedule: the job completes and nothing follows it.
      if (cron === null) return;
      // The cron changed while this job was held: nothing fires for the old one; the new one goes on.
      const due = cron === payload.cron ? cronTimes(cron).latest(now) : null;
      const start: Start | null = due === null ? null : await prepareStart(runs, orgId, payload.slug, {});
      await host.transact(async (tx) => {
        if (!(await ctx.complete(tx.sql))) return;
        if (due !== null && start !== null) {
          const runId = await fireOnce(tx, runs, {
            orgId,
            slug: payload.slug,
            key: `schedule:${iso(due)}`,
            type: 'schedule',
            at: new Date(now),
            start,
            details: { cron, dueAt: iso(due) },
          });
          if (runId === null && 'error' in start) {
            log.warn({ orgId, workflow: payload.slug, error: start.error }, 'scheduled run not started');
          }
        }
        await enqueueNext(jobs, tx, orgId, payload.slug, cron, Math.max(now, due ?? now));
      });
    },
    { maxAttempts: MAX_ATTEMPTS },
  );

  /** Makes the org's schedule jobs match its applied workflows (in the applying transaction). */
  async function reconcile(sql: Sql, orgId: number): Promise<void> {
    const wanted = await sql.query<{ slug: string; cron: string }>(
      `select slug, manifest -> 'trigger' ->> 'cron' as cron from workflows
        where org_id = $1 and trigger_type = 'schedule'`,
      [orgId],
    );
    const jobsOf = await sql.query<{ id: number; slug: string; cron: string; held: boolean; dead: boolean }>(
      `select id, payload ->> 'slug' as slug, payload ->> 'cron' as cron,
              locked_by is not null and dead_at is null as held, dead_at is not null as dead
         from jobs where kind = $1 and org_id = $2`,
      [SCHEDULE_JOB, orgId],
    );
    const want = new Map(wanted.map((w) => [w.slug, w.cron]));
    for (const job of jobsOf) {
      const cron = want.get(job.slug);
      if (job.held || (cron === job.cron && !job.dead)) {
        want.delete(job.slug);
        continue;
      }
      await sql.query('delete from jobs where id = $1 and (locked_by is null or dead_at is not null)', [
        job.id,
      ]);
    }
    const now = clock.now();
    for (const [slug, cron] of want) await enqueueNext(jobs, sql, orgId, slug, cron, now);
  }

  /** Creates the missing jobs of every org's schedules; resolves with how many it created. */
  async function sweep(): Promise<number> {
    await db.query('delete from jobs where kind = $1 and dead_at is not null', [SCHEDULE_JOB]);
    const missing = await db.query<{ org_id: number; slug: string; cron: string }>(
      `select w.org_id, w.slug, w.manifest -> 'trigger' ->> 'cron' as cron from workflows w
        where w.trigger_type = 'schedule'
          and not exists (select 1 from jobs j where j.key = $1 || ':' || w.org_id || ':' || w.slug)`,
      [SCHEDULE_JOB],
    );
    for (const row of missing) await enqueueNext(jobs, db, row.org_id, row.slug, row.cron, clock.now());
    if (missing.length > 0) jobs.notifyEnqueued();
    return missing.length;
  }

  let timer: NodeJS.Timeout | null = null;
  let waker: NodeJS.Timeout | null = null;
  let running = false;
  /** The latest due time the waker woke the workers for. */
  let woken = 0;
  const sweepLogged = () =>
    sweep().catch((error) => log.warn({ err: error }, 'workflow schedule sweep failed'));

  /** Wakes the job workers when the earliest schedule job comes due; sleeps until then (≤ 1 s). */
  async function wakeWhenDue(): Promise<void> {
    let wait = WAKER_MS;
    try {
      const row = await db.maybeOne<{ run_at: Date }>(
        `select run_at from jobs
          where kind = $1 and locked_by is null and dead_at is null
          order by run_at limit 1`,
        [SCHEDULE_JOB],
      );
      const due = row?.run_at.getTime() ?? null;
      const now = clock.now();
      if (due !== null && due <= now && due > woken) {
        woken = due;
        jobs.notifyEnqueued();
      } else if (due !== null && due > now) wait = Math.min(due - now + 2, WAKER_MS);
    } catch (error) {
      log.warn({ err: error }, 'reading the next schedule due time failed');
    }
    if (!running) return;
    waker = setTimeout(() => void wakeWhenDue(), wait);
    waker.unref();
  }

  return {
    reconcile,
    sweep,
    service: {
      name: 'workflow schedules',
      async start() {
        running = true;
        await sweepLogged();
        timer = setInterval(() => void sweepLogged(), SWEEP_MS);
        timer.unref();
        void wakeWhenDue();
      },
      stop() {
        running = false;
        if (timer) clearInterval(timer);
        if (waker) clearTimeout(waker);
        timer = waker = null;
      },
    },
  };
}
