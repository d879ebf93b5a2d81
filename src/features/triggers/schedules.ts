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
 * Each trigger has a floor and a quota (docs/api.md "Workflow triggers"; the org's own, else the
 * deployment's): a due time sooner than the minimum interval after the trigger's last firing is passed
 * over (the next job waits for the first due time after the floor), and a due time at which the
 * trigger's runs already have the maximum of open review items starts no run — it is recorded as
 * skipped (its `workflow_trigger_fires` row's error, an audit row `trigger.skipped`, a warning).
 *
 * Job workers find delayed jobs by polling (every second); so that a schedule fires at its due time
 * rather than up to a poll later, each process also reads the earliest due time of the schedule jobs
 * (at most a second ahead) and wakes the workers when it comes. That timer is only a wake-up: the
 * rows say what is due, and a process without it still fires every schedule on the next poll.
 */
import { recordAuditSql } from '../../platform/audit/audit.js';
import type { Db, Sql } from '../../platform/db/sql.js';
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

/** The floor and quota of a schedule trigger (0: none); the deployment's unless its org has its own. */
export interface ScheduleLimits {
  minIntervalMs: number;
  maxOpenReviews: number;
}

/**
 * The applied cron of workflow `slug` (null when it has none: gone, or not a schedule) and the
 * limits of its org (null: the deployment's).
 */
async function appliedSchedule(
  sql: Db,
  orgId: number,
  slug: string,
): Promise<{ cron: string | null; min_interval_ms: number | null; max_open_reviews: number | null } | null> {
  return sql.maybeOne(
    `select w.manifest -> 'trigger' ->> 'cron' as cron, o.schedule_min_interval_ms::float8 as min_interval_ms,
            o.schedule_max_open_reviews as max_open_reviews
       from orgs o
       left join workflows w on w.org_id = o.id and w.slug = $2 and w.trigger_type = 'schedule'
      where o.id = $1`,
    [orgId, slug],
  );
}

/** The due time of the trigger's last firing (its keys sort as their ISO times do), or null. */
async function lastDue(sql: Db, orgId: number, slug: string): Promise<number | null> {
  const row = await sql.maybeOne<{ fire_key: string }>(
    `select fire_key from workflow_trigger_fires
      where org_id = $1 and workflow_slug = $2 and fire_key like 'schedule:%'
      order by fire_key desc limit 1`,
    [orgId, slug],
  );
  return row ? Date.parse(row.fire_key.slice('schedule:'.length)) : null;
}

/** The open review items of the runs the trigger started, counted up to `cap`. */
async function openReviews(sql: Db, orgId: number, slug: string, cap: number): Promise<number> {
  const row = await sql.one<{ open: number }>(
    `select count(*)::int as open from (
       select 1 from workflow_trigger_fires f
         join review_items i on i.org_id = f.org_id and i.kind = 'workflow' and i.run_id = f.run_id and i.open
        where f.org_id = $1 and f.workflow_slug = $2 and f.trigger_type = 'schedule' and f.run_id is not null
        limit $3) capped`,
    [orgId, slug, cap],
  );
  return row.open;
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
export function workflowSchedules(deps: TriggerDeps & { defaults: ScheduleLimits }): {
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
      const schedule = await appliedSchedule(db, orgId, payload.slug);
      const cron = schedule?.cron ?? null;
      // Gone, or no longer a schedule: the job completes and nothing follows it.
      if (cron === null) return;
      const minIntervalMs = schedule?.min_interval_ms ?? deps.defaults.minIntervalMs;
      const cap = schedule?.max_open_reviews ?? deps.defaults.maxOpenReviews;
      // The cron changed while this job was held: nothing fires for the old one; the new one goes on.
      let due = cron === payload.cron ? cronTimes(cron).latest(now) : null;
      // The floor: a due time sooner than the minimum interval after the last firing is passed over.
      const last = minIntervalMs > 0 ? await lastDue(db, orgId, payload.slug) : null;
      if (due !== null && last !== null && due < last + minIntervalMs) due = null;
      // The quota: at the cap of open review items the due time is recorded as skipped.
      const open = due !== null && cap > 0 ? await openReviews(db, orgId, payload.slug, cap) : 0;
      const skipped = due !== null && cap > 0 && open >= cap;
      const start: Start | null =
        due === null
          ? null
          : skipped
            ? { error: `SKIPPED: the trigger's runs have ${open} open review items (the cap is ${cap})` }
            : await prepareStart(runs, orgId, payload.slug, {});
      await host.transact(async (tx) => {
        if (!(await ctx.complete(tx.sql))) return;
        if (due !== null && start !== null) {
          const fired = await fireOnce(tx, runs, {
            orgId,
            slug: payload.slug,
            key: `schedule:${iso(due)}`,
            type: 'schedule',
            at: new Date(now),
            start,
            details: { cron, dueAt: iso(due) },
          });
          if (fired.claimed && skipped) {
            await recordAuditSql(tx.sql, {
              orgId,
              apiTokenId: null,
              actor: 'trigger:schedule',
              action: 'trigger.skipped',
              targetKind: 'workflow',
              targetId: payload.slug,
              details: { cron, dueAt: iso(due), openReviews: open, maxOpenReviews: cap },
              at: new Date(now),
            });
          }
          if (fired.runId === null && 'error' in start) {
            log.warn({ orgId, workflow: payload.slug, error: start.error }, 'scheduled run not started');
          }
        }
        const fromDue = Math.max(now, due ?? now);
        const floor = minIntervalMs > 0 ? (due ?? last ?? -Infinity) + minIntervalMs - 1 : -Infinity;
        await enqueueNext(jobs, tx, orgId, payload.slug, cron, Math.max(fromDue, floor));
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
