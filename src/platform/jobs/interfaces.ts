/**
 * The job queue: background work stored in PostgreSQL and run by workers in any r3 process.
 *
 * Terminology (after graphile/worker):
 * - job: a row of `jobs`: a `kind` (which handler runs it), a JSON `payload`, an optional `key`
 *   (at most one job per key exists; enqueueing an existing key does nothing), `run_at` (not before).
 * - ready: `run_at` has passed, it is not dead, and no live lease holds it.
 * - claim: a worker takes ready jobs with `… for update skip locked`, bumping `attempts` and setting a
 *   lease (`locked_by`, `locked_until`). A worker process that dies is found dead by the others' (or
 *   its successor's) liveness sweep within seconds and its jobs are ready again at once (liveness.ts);
 *   the lease, renewed while a job runs, is the last resort for a process alive but stuck. So a
 *   handler may run more than once
 *   for one job (at-least-once): handlers are idempotent (the step executor keys its results).
 * - complete: the job row is deleted (by the queue, or by the handler inside its own transaction).
 * - fail: the error is kept in `last_error` and the job waits `exp(min(attempts, 10))` seconds (capped
 *   at an hour) before it is ready again; after `max_attempts` attempts it is dead (`dead_at`), stays
 *   for inspection, and the kind's `onDead` hook runs (e.g. to fail the run).
 * - leased start (as Temporal's eager activities): a job that goes first, enqueued by a transaction of a
 *   process that can run it at once (`JobQueue.lease`), is written already claimed by that process
 *   (attempt 1, its lease) and started there right after the commit (`startLeased`), with what the
 *   transaction knew (`JobContext.origin`): no claim, no wait for a poll or a wake. If the process
 *   dies first, the liveness sweep hands it back like any claimed job.
 * - wake: after a commit that enqueued jobs, `notifyEnqueued()` wakes the idle workers of this process
 *   and signals `sig.jobs.wake` on the bus so the workers of every other process wake too; a poll
 *   every `pollMs` catches delayed jobs and expired leases.
 */
import type { ActorTx } from '../actors/tx.js';
import type { LoadedActor } from '../actors/types.js';
import type { Bus } from '../bus/bus.js';
import type { Db, Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { Clock } from '../util/clock.js';

/** `JobQueueOptions.backgroundRate`'s default (R3_SHADOW_RUN_RATE). */
export const DEFAULT_BACKGROUND_RATE = 10;
/** `JobQueueOptions.backgroundQuietMs`'s default. */
export const DEFAULT_BACKGROUND_QUIET_MS = 250;

/** The bus signal that wakes idle workers everywhere. */
export const JOBS_WAKE_SIGNAL = 'sig.jobs.wake';

/** A claimed job. */
export interface Job {
  id: number;
  orgId: number | null;
  kind: string;
  payload: unknown;
  key: string | null;
  /** This claim's attempt number (1 on the first). */
  attempts: number;
  maxAttempts: number;
  /**
   * Ready jobs are claimed highest priority first (then by `run_at`); a job above 0 also runs in the
   * pool's urgent lane (src/platform/db/lanes.ts). 0 unless its enqueuer says other work waits on it.
   * Below 0: background work (an evaluation's shadow runs), claimed after every other ready job and
   * holding at most half of a process's worker slots at once, and paced while the process has real
   * work (`JobQueueOptions.backgroundRate`), so it never crowds out real work.
   */
  priority: number;
}

/**
 * What the transaction that enqueued a job knew, given to a job started where it was enqueued
 * (`JobQueue.startLeased`): the actor whose creation enqueued it, as created.
 */
export interface JobOrigin {
  /** The actor after its creation (the row locked by nobody: the transaction committed). */
  actor: LoadedActor;
  /** The actor's row as its creation wrote it: every column (`transitionRows`' actor row). */
  row: Record<string, unknown>;
}

/** The claim a transaction writes into a job it enqueues for this process to start (`JobQueue.lease`). */
export interface JobLease {
  workerId: string;
  /** When the lease runs out (ISO), unless renewed while the job runs. */
  lockedUntil: string;
}

/** What a handler gets. */
export interface JobContext {
  job: Job;
  /** Set when the job was started where it was enqueued, right after its commit (see `JobOrigin`). */
  origin?: JobOrigin;
  workerId: string;
  /** Aborted when the process stops while the job runs. */
  signal: AbortSignal;
  log: Logger;
  /**
   * Completes the job inside the handler's own transaction, so its outcome and the job's removal
   * commit together. False when the job is no longer this worker's (its lease expired and another
   * worker claimed it): that worker will find the outcome and finish it.
   */
  complete(sql: Sql): Promise<boolean>;
  /**
   * Tells the queue that the handler completed the job in a statement of its own (e.g. the actor
   * transition that reported the job's outcome, see `SendOptions.completesJob`).
   */
  markCompleted(): void;
}

/** Runs one job; throwing fails this attempt. */
export type JobHandler = (ctx: JobContext) => Promise<void>;

/** Per-kind settings. */
export interface JobKindOptions {
  /** Attempts before the job is dead (default: the row's `max_attempts`, 5 unless enqueued otherwise). */
  maxAttempts?: number;
  /** Runs once when a job of this kind dies, with its last error. */
  onDead?(job: Job, error: string): Promise<void>;
}

/** What to enqueue. */
export interface EnqueueSpec {
  kind: string;
  orgId?: number | null;
  payload?: unknown;
  /** Not before this time (epoch ms; default now). */
  runAt?: number;
  /** At most one job per key exists. */
  key?: string;
  maxAttempts?: number;
  /** See `Job.priority` (default 0). */
  priority?: number;
}

/** How a processed job ended. */
export type JobOutcome = 'completed' | 'failed' | 'dead' | 'lost';

export interface JobQueueOptions {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  /** Jobs run at once by this process's workers; 0 = no workers (runOnce/drain still work). */
  concurrency: number;
  /** Lease of a claimed job, renewed while it runs (default 5 min). */
  leaseMs?: number;
  /** Poll for delayed jobs and expired leases (default 1 s). */
  pollMs?: number;
  /**
   * The database's URL: a process with workers holds its liveness lock on a session of its own there
   * (liveness.ts). Without it, only leases free a dead process's jobs.
   */
  databaseUrl?: string;
  /** How often dead workers are looked for (default 2 s). */
  sweepMs?: number;
  /**
   * Background jobs (`Job.priority` below 0) this process starts a second, one by one, while it
   * is busy with real work: an ordinary job (priority 0 or above) started or ended here within
   * `backgroundQuietMs`. Otherwise they take their slots (half the pool) at once. 0: none start
   * while busy. Default DEFAULT_BACKGROUND_RATE (R3_SHADOW_RUN_RATE).
   */
  backgroundRate?: number;
  /** See `backgroundRate` (default DEFAULT_BACKGROUND_QUIET_MS). */
  backgroundQuietMs?: number;
}

/** The queue. */
export interface JobQueue {
  /** This process's worker id (`locked_by`). */
  readonly workerId: string;
  /**
   * Enqueues a job inside the caller's transaction; with an `ActorTx` the workers are woken after
   * commit, with a plain `Sql` call `notifyEnqueued()` after commit. Resolves with the job id, or null
   * when a job with `key` already exists.
   */
  enqueue(target: Sql | ActorTx, spec: EnqueueSpec): Promise<number | null>;
  /** Sets the handler of `kind`; only registered kinds are claimed by this process. */
  register(kind: string, handler: JobHandler, options?: JobKindOptions): void;
  /**
   * Wakes this process's workers and signals every other process's. `urgent`: jobs of a priority
   * above 0 are among them, so this process claims as soon as one of its slots is free.
   */
  notifyEnqueued(enqueued?: { urgent?: boolean }): void;
  /**
   * A lease for a job of `kind` that goes first, if this process runs it as soon as the enqueuing
   * transaction commits: its workers run, the kind is registered here and a slot is free (jobs that go
   * first may use a quarter more than `concurrency`). The transaction writes the job with it (attempt
   * 1) and calls `startLeased` after its commit; nothing to undo on a rollback.
   */
  lease(kind: string): JobLease | null;
  /** Runs `job`, written with a lease of `lease` by a transaction that committed, without claiming it. */
  startLeased(job: Job, origin?: JobOrigin): void;
  /** Claims up to `limit` ready jobs of registered kinds (of `minPriority` or above: default 0) for `workerId`. */
  claim(workerId: string, limit: number, minPriority?: number): Promise<Job[]>;
  /** Runs a claimed job and completes or fails it. */
  process(job: Job, workerId: string): Promise<JobOutcome>;
  /** Claims and runs the ready jobs once, one after another; resolves with how many ran. */
  runOnce(options?: { limit?: number; workerId?: string }): Promise<number>;
  /** Repeats `runOnce` until no job is ready (jobs enqueued by jobs included); resolves with the total. */
  drain(options?: { maxRounds?: number; workerId?: string }): Promise<number>;
  /** Starts this process's workers (if concurrency > 0) and the wake subscription; resolves after a first claim. */
  start(): Promise<void>;
  /** Stops claiming and waits for running jobs (up to `timeoutMs`, then aborts them). */
  stop(timeoutMs?: number): Promise<void>;
  /** Releases the jobs of dead workers now (liveness.ts); a no-op without liveness. */
  sweepDeadWorkers(): Promise<{ workers: number; jobs: number }>;
}
