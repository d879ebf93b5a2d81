/**
 * The job queue's implementation: claims, completion, retries and the worker pool of one process
 * (terminology and the API in interfaces.ts).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Subscription } from '../bus/bus.js';
import { tickSignal } from '../bus/tick-signal.js';
import { inLane, outsideLanes } from '../db/lanes.js';
import type { Sql } from '../db/sql.js';
import {
  DEFAULT_BACKGROUND_QUIET_MS,
  DEFAULT_BACKGROUND_RATE,
  JOBS_WAKE_SIGNAL,
  type Job,
  type JobHandler,
  type JobKindOptions,
  type JobLease,
  type JobOrigin,
  type JobOutcome,
  type JobQueue,
  type JobQueueOptions,
} from './interfaces.js';
import { createWorkerLiveness, type WorkerLiveness } from './liveness.js';

export type {
  Job,
  JobContext,
  JobHandler,
  JobKindOptions,
  JobOrigin,
  JobQueue,
  JobQueueOptions,
} from './interfaces.js';

interface JobRow {
  id: number;
  org_id: number | null;
  kind: string;
  payload: unknown;
  key: string | null;
  attempts: number;
  max_attempts: number;
  priority: number;
}

// Ready jobs of $6..$7 priority, then background ones (priority below 0) in the slots they left: as
// many as $8 when the claim found other work, $9 when it found none (the pace says which: `fill`).
// One statement, where a second claim for the background jobs cost every claim that left slots free
// (most of them, under a moderate load) a round trip and a statement of its own.
const CLAIM = `
  with r as (
    select id from jobs
     where dead_at is null and run_at <= $1 and (locked_until is null or locked_until <= $1)
       and kind = any($2::text[]) and priority between $6 and $7
     order by priority desc, run_at, id
     limit $3
     for update skip locked
  ), b as (
    select id from jobs
     where dead_at is null and run_at <= $1 and (locked_until is null or locked_until <= $1)
       and kind = any($2::text[]) and priority < 0
     order by priority desc, run_at, id
     limit least($3::int - (select count(*) from r), case when exists (select 1 from r) then $8::int else $9::int end)
     for update skip locked
  )
  update jobs j set attempts = j.attempts + 1, locked_by = $4, locked_until = $5
    from (select id from r union all select id from b) c where j.id = c.id
  returning j.id, j.org_id, j.kind, j.payload, j.key, j.attempts, j.max_attempts, j.priority`;

const COMPLETE = 'delete from jobs where id = $1 and locked_by = $2';

// Backoff in SQL: exp(min(attempts, 10)) seconds, at most an hour; dead once attempts reach the max.
const FAIL = `
  update jobs set locked_by = null, locked_until = null, last_error = $3,
         run_at = $4::timestamptz + least(exp(least(attempts, 10)) * interval '1 second', interval '1 hour'),
         dead_at = case when attempts >= $5 then $4::timestamptz end
   where id = $1 and locked_by = $2
  returning dead_at`;

const MARK_DEAD = `
  update jobs set locked_by = null, locked_until = null, dead_at = $3, last_error = $4
   where id = $1 and locked_by = $2`;

const RENEW = 'update jobs set locked_until = $3 where locked_by = $1 and id = any($2::bigint[])';

/** The lowest priority a claim can ask for: every job, background ones (below 0) too. */
const ANY_PRIORITY = -32768;
/** The highest priority (`jobs.priority` is a smallint). */
const TOP_PRIORITY = 32767;

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    orgId: row.org_id,
    kind: row.kind,
    payload: row.payload,
    key: row.key,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    priority: row.priority,
  };
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** A new worker id for this process: host, pid and a random suffix. */
export function newWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** Creates the queue (workers start with `start()`). */
export function createJobQueue(options: JobQueueOptions): JobQueue {
  const { db, bus, clock, log } = options;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const pollMs = options.pollMs ?? 1_000;
  const workerId = newWorkerId();
  const handlers = new Map<string, { handler: JobHandler; options: JobKindOptions }>();
  let kindList: string[] = [];
  // Jobs that go first may run in this many slots beyond `concurrency` (a claim for them, a leased
  // start): slots full of other work do not hold up what a running mission waits on.
  const firstSlots = Math.ceil(options.concurrency / 4);
  // Background jobs (priority below 0: an evaluation's shadow runs) hold at most this many slots, and
  // are claimed only after every other ready job: they never take the whole pool from real work.
  const backgroundSlots = Math.max(1, Math.floor(options.concurrency / 2));
  let activeBackground = 0;
  // A claim left background jobs out (their slots were full, or their pace said wait): one finishing,
  // or the pace's timer, claims again.
  let backgroundHeldBack = false;
  // Pacing (interfaces.ts `backgroundRate`): while an ordinary job started or ended here in the last
  // `quietMs`, at most `backgroundRate` background jobs start a second, one by one. Real time
  // (performance.now()), not `clock`: a test's manual clock would hold them back for ever.
  const backgroundRate = options.backgroundRate ?? DEFAULT_BACKGROUND_RATE;
  const backgroundGapMs = backgroundRate > 0 ? 1000 / backgroundRate : Number.POSITIVE_INFINITY;
  const quietMs = options.backgroundQuietMs ?? DEFAULT_BACKGROUND_QUIET_MS;
  let ordinarySeen = Number.NEGATIVE_INFINITY;
  // When the next background job may start while busy (performance.now(); Infinity at a rate of 0).
  let backgroundNextAt = backgroundRate > 0 ? 0 : Number.POSITIVE_INFINITY;
  let paceTimer: NodeJS.Timeout | null = null;

  // Worker-pool state.
  let running = false;
  let active = 0;
  let filling = false;
  let again = false;
  let mayHaveMore = true;
  // A commit here enqueued jobs that go first (`Job.priority`) and none was claimed since.
  let urgentWaiting = false;
  // One bus signal per tick, however many commits enqueued jobs in it, and at most one per 2 ms:
  // other processes' workers pick a job up at most that much later while this one commits in turn
  // after turn (under load, when they are busy anyway).
  const signalEnqueued = tickSignal(bus, JOBS_WAKE_SIGNAL, 2);
  let poll: NodeJS.Timeout | null = null;
  let renew: NodeJS.Timeout | null = null;
  let subscription: Subscription | null = null;
  const inflight = new Map<number, { promise: Promise<JobOutcome>; abort: AbortController }>();
  // Liveness: a process with workers says it is alive, and hands the jobs of dead ones back at once.
  const liveness: WorkerLiveness | null =
    options.databaseUrl && options.concurrency > 0
      ? createWorkerLiveness({
          workerId,
          databaseUrl: options.databaseUrl,
          db,
          log,
          ...(options.sweepMs === undefined ? {} : { sweepMs: options.sweepMs }),
          onReleased: () => {
            wake();
            bus.signal(JOBS_WAKE_SIGNAL);
          },
        })
      : null;
  /** The signal of jobs run outside the pool (runOnce, process): never aborted. */
  const never = new AbortController().signal;

  const iso = (ms: number) => new Date(ms).toISOString();

  /**
   * Claims up to `limit` ready jobs of `minPriority` or more for `worker`, and, in the slots those
   * leave, background jobs: `background.ifOther` of them when it claimed any other, else
   * `background.ifNone` (none unless given).
   */
  async function claim(
    worker: string,
    limit: number,
    minPriority = 0,
    background = { ifOther: 0, ifNone: 0 },
  ): Promise<Job[]> {
    if (kindList.length === 0 || limit <= 0) return [];
    const now = clock.now();
    // Outside the workers' share of the pool (lanes.ts): the jobs it claims wait for it.
    const rows = await outsideLanes(() =>
      db.prepared<JobRow>('jobs_claim', CLAIM, [
        iso(now),
        kindList,
        limit,
        worker,
        iso(now + leaseMs),
        minPriority,
        TOP_PRIORITY,
        background.ifOther,
        background.ifNone,
      ]),
    );
    return rows.map(toJob).sort((a, b) => b.priority - a.priority || a.id - b.id);
  }

  async function markDead(job: Job, worker: string, error: string): Promise<void> {
    await db.query(MARK_DEAD, [job.id, worker, iso(clock.now()), error]);
    await runOnDead(job, error);
  }

  async function runOnDead(job: Job, error: string): Promise<void> {
    const onDead = handlers.get(job.kind)?.options.onDead;
    if (!onDead) return;
    try {
      await onDead(job, error);
    } catch (hookError) {
      log.error({ err: hookError, jobId: job.id, kind: job.kind }, 'onDead hook failed');
    }
  }

  async function processJob(
    job: Job,
    worker: string,
    signal: AbortSignal = never,
    origin?: JobOrigin,
  ): Promise<JobOutcome> {
    const registered = handlers.get(job.kind);
    const maxAttempts = registered?.options.maxAttempts ?? job.maxAttempts;
    const jobLog = log.child({ jobId: job.id, jobKind: job.kind, attempt: job.attempts });
    if (!registered) {
      await db.query(FAIL, [
        job.id,
        worker,
        `no handler for job kind ${job.kind}`,
        iso(clock.now()),
        maxAttempts,
      ]);
      return 'failed';
    }
    if (job.attempts > maxAttempts) {
      // The previous holder died during the last attempt (its lease expired): nothing is left to try.
      await markDead(job, worker, 'the worker of the last attempt stopped before finishing it');
      return 'dead';
    }
    // Set when the handler completed the job in its own transaction: whether the job was still ours.
    let completedInline: boolean | null = null;
    try {
      await registered.handler({
        job,
        ...(origin ? { origin } : {}),
        workerId: worker,
        signal,
        log: jobLog,
        async complete(sql) {
          const rows = await sql.query(`${COMPLETE} returning id`, [job.id, worker]);
          completedInline = rows.length === 1;
          return completedInline;
        },
        markCompleted() {
          completedInline = true;
        },
      });
      if (completedInline === null) {
        const rows = await db.query(`${COMPLETE} returning id`, [job.id, worker]);
        completedInline = rows.length === 1;
      }
      return completedInline ? 'completed' : 'lost';
    } catch (error) {
      const text = errorText(error);
      jobLog.warn({ err: error }, 'job failed');
      const [row] = await db.query<{ dead_at: Date | null }>(FAIL, [
        job.id,
        worker,
        text,
        iso(clock.now()),
        maxAttempts,
      ]);
      if (!row) return 'lost';
      if (row.dead_at) {
        jobLog.error({ error: text }, 'job is dead: out of attempts');
        await runOnDead(job, text);
        return 'dead';
      }
      return 'failed';
    }
  }

  function start(job: Job, origin?: JobOrigin): void {
    active++;
    const background = job.priority < 0;
    if (background) {
      activeBackground++;
      const now = performance.now();
      if (busy(now)) backgroundNextAt = Math.max(backgroundNextAt, now - backgroundGapMs) + backgroundGapMs;
    } else ordinarySeen = performance.now();
    const abort = new AbortController();
    // A job that goes first also goes first for connections (lanes.ts).
    const promise = inLane(job.priority > 0 ? 'urgent' : 'normal', () =>
      processJob(job, workerId, abort.signal, origin),
    )
      .catch((error) => {
        log.error({ err: error, jobId: job.id }, 'job bookkeeping failed');
        return 'failed' as JobOutcome;
      })
      .finally(() => {
        inflight.delete(job.id);
        active--;
        if (background) activeBackground--;
        else ordinarySeen = performance.now();
        if (mayHaveMore || (background && backgroundHeldBack)) wake();
      });
    inflight.set(job.id, { promise, abort });
  }

  async function fill(): Promise<void> {
    filling = true;
    try {
      do {
        again = false;
        const free = options.concurrency - active;
        // Busy: wait until a quarter of the slots are free, so claims come in batches, not one by one
        // — unless jobs that go first were enqueued here: then a free slot is claimed at once, for them
        // (of theirs too: `firstSlots`).
        const batch = active === 0 || free >= Math.ceil(options.concurrency / 4);
        if (!batch && !(urgentWaiting && free + firstSlots > 0)) break;
        const urgent = urgentWaiting;
        urgentWaiting = false;
        const limit = batch ? free : free + firstSlots;
        let jobs: Job[];
        try {
          // Background jobs in the slots real work leaves (batches only), as many as theirs and their
          // pace allow: real work claimed with them counts at once, so they are paced then.
          const ifNone = batch ? backgroundAllowed() : 0;
          const ifOther = batch ? backgroundAllowed(true) : 0;
          jobs = await claim(workerId, limit, batch ? 0 : 1, { ifOther, ifNone });
          const other = jobs.filter((job) => job.priority >= 0).length;
          if (other > 0) ordinarySeen = performance.now();
          if (batch && other < limit) {
            backgroundHeldBack = jobs.length - other === (other > 0 ? ifOther : ifNone);
          }
        } catch (error) {
          if (running) log.error({ err: error }, 'claiming jobs failed');
          urgentWaiting = urgent;
          break;
        }
        if (batch && jobs.length < limit && !again) mayHaveMore = false;
        // Only jobs that go first, as many as asked: more of them may be waiting.
        if (jobs.length === limit && jobs.every((job) => job.priority > 0)) urgentWaiting = true;
        for (const job of jobs) start(job);
        if (backgroundHeldBack) paceLater();
      } while (again && running);
    } finally {
      filling = false;
    }
  }

  /** Whether an ordinary job started or ended here within `quietMs` of `now`. */
  function busy(now: number): boolean {
    return now - ordinarySeen < quietMs;
  }

  /**
   * How many background jobs may start now: their free slots; while busy with real work (or as if,
   * `busyNow`: real work is being claimed with them), one when the pace says the next may start, else none.
   */
  function backgroundAllowed(busyNow = false): number {
    const free = Math.max(0, backgroundSlots - activeBackground);
    const now = performance.now();
    if (!busyNow && !busy(now)) return free;
    return now >= backgroundNextAt ? Math.min(free, 1) : 0;
  }

  /**
   * Background jobs were held back (called inside `fill`). Their slots full: one of them finishing
   * wakes the workers. Else, while busy with real work, the workers wake when the pace lets the next
   * start or when the quiet window after the last ordinary job ends (then they take their slots
   * again), whichever is first — and at once (`fill` claims again) when that time has come already:
   * the first start after a pause leaves the pace's next start due now, and waiting for a background
   * job to finish would hold the others back for as long as it runs (or the poll).
   */
  function paceLater(): void {
    if (paceTimer || !running || activeBackground >= backgroundSlots) return;
    const now = performance.now();
    const at = busy(now) ? Math.min(backgroundNextAt, ordinarySeen + quietMs) : now;
    if (at <= now) {
      again = true;
      return;
    }
    paceTimer = setTimeout(
      () => {
        paceTimer = null;
        wake();
      },
      Math.max(1, Math.ceil(at - now)),
    );
    paceTimer.unref();
  }

  function wake(): void {
    mayHaveMore = true;
    if (!running || options.concurrency <= 0) return;
    if (filling) {
      again = true;
      return;
    }
    void fill();
  }

  async function renewLeases(): Promise<void> {
    if (inflight.size === 0) return;
    await db
      .query(RENEW, [workerId, [...inflight.keys()], iso(clock.now() + leaseMs)])
      .catch((error) => log.warn({ err: error }, 'renewing job leases failed'));
  }

  async function runOnce(opts: { limit?: number; workerId?: string } = {}): Promise<number> {
    const worker = opts.workerId ?? workerId;
    const jobs = await claim(worker, opts.limit ?? 100, ANY_PRIORITY);
    for (const job of jobs) await processJob(job, worker);
    return jobs.length;
  }

  return {
    workerId,

    async enqueue(target, spec) {
      const tx = 'wake' in target ? target : null;
      const sql = tx ? tx.sql : (target as Sql);
      const now = clock.now();
      const [row] = await sql.query<{ id: number }>(
        `insert into jobs (org_id, kind, payload, key, run_at, max_attempts, created_at, priority)
         values ($1, $2, $3::jsonb, $4, $5, $6, $7, $8)
         on conflict (key) where key is not null do nothing
         returning id`,
        [
          spec.orgId ?? null,
          spec.kind,
          JSON.stringify(spec.payload ?? {}),
          spec.key ?? null,
          iso(spec.runAt ?? now),
          spec.maxAttempts ?? 5,
          iso(now),
          spec.priority ?? 0,
        ],
      );
      tx?.wake((spec.priority ?? 0) > 0 ? 'urgentJobs' : 'jobs');
      return row?.id ?? null;
    },

    register(kind, handler, kindOptions = {}) {
      handlers.set(kind, { handler, options: kindOptions });
      kindList = [...handlers.keys()];
    },

    notifyEnqueued(enqueued = {}) {
      if (enqueued.urgent) urgentWaiting = true;
      wake();
      signalEnqueued();
    },

    lease(kind) {
      if (!running || options.concurrency <= 0 || !handlers.has(kind)) return null;
      if (active >= options.concurrency + firstSlots) return null;
      return { workerId, lockedUntil: iso(clock.now() + leaseMs) } satisfies JobLease;
    },

    startLeased(job, origin) {
      // Stopping: the job stays leased to this process, whose successor's sweep (or the lease's end)
      // hands it back.
      if (!running) return;
      start(job, origin);
    },

    claim,
    process: (job, worker) => processJob(job, worker),
    runOnce,

    async drain(opts = {}) {
      let total = 0;
      for (let round = 0; round < (opts.maxRounds ?? 1_000); round++) {
        const ran = await runOnce(opts.workerId ? { workerId: opts.workerId } : {});
        if (ran === 0) break;
        total += ran;
      }
      return total;
    },

    async start() {
      if (running) return;
      running = true;
      subscription = await bus.subscribe(JOBS_WAKE_SIGNAL, () => wake());
      if (options.concurrency <= 0) return;
      // Before the first claim, so the jobs of a process that died are in it.
      await liveness?.start();
      poll = setInterval(wake, pollMs);
      poll.unref();
      renew = setInterval(() => void renewLeases(), Math.max(1_000, Math.floor(leaseMs / 3)));
      renew.unref();
      mayHaveMore = true;
      await fill();
    },

    async stop(timeoutMs = 10_000) {
      running = false;
      subscription?.unsubscribe();
      subscription = null;
      if (poll) clearInterval(poll);
      if (renew) clearInterval(renew);
      if (paceTimer) clearTimeout(paceTimer);
      paceTimer = null;
      poll = renew = null;
      const pending = [...inflight.values()].map((entry) => entry.promise);
      if (pending.length === 0) {
        await liveness?.stop();
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const result = await Promise.race([Promise.allSettled(pending), timedOut]);
      clearTimeout(timer);
      if (result === 'timeout') {
        const reason = new Error('r3 is shutting down');
        for (const entry of inflight.values()) entry.abort.abort(reason);
        await Promise.allSettled(pending);
      }
      await liveness?.stop();
    },

    async sweepDeadWorkers() {
      return liveness ? liveness.sweep() : { workers: 0, jobs: 0 };
    },
  };
}
