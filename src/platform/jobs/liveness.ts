/**
 * Worker liveness: how a process tells, without waiting for a lease to run out, that another process
 * which claimed jobs is dead — and gives its jobs back to the queue at once.
 *
 * Each process with workers holds a session-level advisory lock on a connection of its own for its
 * whole life, and names the lock in a `workers` row. That connection is the one the process opens
 * beside its pool (src/platform/db/database.ts): lent from the pool for the process's life it would
 * take one of the pool's connections for good, and this module must see the session end. PostgreSQL frees such a lock the moment the
 * session ends, whatever ended it (`kill -9`, a lost host, a closed socket). A sweep tries each other
 * row's lock with `pg_try_advisory_xact_lock`: taking it proves its holder gone, so the row is deleted
 * and the jobs locked by that worker are made ready again, in the same statement. Every process sweeps
 * when it starts (a restart resumes the dead process's work at once) and every `sweepMs` (a surviving
 * node resumes a dead one's within seconds, with no restart).
 *
 * Leases stay as the last resort for a process that is alive (its lock held) but stuck.
 *
 * If the lock's own connection drops while the process lives, others may sweep it and hand its jobs
 * to other workers; completing such a job then finds it no longer held (`'lost'`), as after an
 * expired lease, and the process takes a new lock and row.
 */
import { randomInt } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import type { Db } from '../db/sql.js';
import type { Logger } from '../log.js';

/** The first key of the two-key advisory lock space workers use ("r3" in ASCII): apart from others. */
export const WORKER_LOCK_SPACE = 0x7233;

/** How often a live process looks for dead ones (default). */
export const WORKER_SWEEP_MS = 2_000;

const SWEEP = `
  with dead as (
    delete from workers
     where id <> $1 and pg_try_advisory_xact_lock(${WORKER_LOCK_SPACE}, lock_key)
    returning id
  ), released as (
    update jobs set locked_by = null, locked_until = null
      from dead
     where jobs.locked_by = dead.id
    returning jobs.id
  )
  select (select count(*) from dead)::int as workers, (select count(*) from released)::int as jobs`;

export interface SweepResult {
  /** Dead workers whose rows were removed. */
  workers: number;
  /** Jobs they held, ready again. */
  jobs: number;
}

export interface WorkerLiveness {
  /** Takes the lock and writes the row, then sweeps once. */
  start(): Promise<void>;
  /** Releases dead workers' jobs now. */
  sweep(): Promise<SweepResult>;
  /** Deletes the row and frees the lock. */
  stop(): Promise<void>;
}

export interface WorkerLivenessOptions {
  workerId: string;
  databaseUrl: string;
  /** The pool sweeps run on. */
  db: Db;
  log: Logger;
  sweepMs?: number;
  /** Called after a sweep released jobs (wake the workers). */
  onReleased?: (result: SweepResult) => void;
}

export function createWorkerLiveness(options: WorkerLivenessOptions): WorkerLiveness {
  const { workerId, db, log } = options;
  const sweepMs = options.sweepMs ?? WORKER_SWEEP_MS;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopping = false;
  let registering: Promise<void> | null = null;

  /** A session of its own holds the lock; the row names it. */
  async function register(): Promise<void> {
    const session = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: 'r3 worker liveness',
    });
    await session.connect();
    try {
      let key = 0;
      for (let tries = 0; ; tries++) {
        key = randomInt(1, 2 ** 31 - 1);
        const [row] = (
          await session.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [
            WORKER_LOCK_SPACE,
            key,
          ])
        ).rows;
        if (row?.ok) break;
        if (tries > 20) throw new Error('no free worker lock key after 20 tries');
      }
      // A row left by this id (a reconnect after its session dropped) is replaced.
      await session.query(
        `insert into workers (id, lock_key, host, pid) values ($1, $2, $3, $4)
         on conflict (id) do update set lock_key = excluded.lock_key`,
        [workerId, key, os.hostname(), process.pid],
      );
    } catch (error) {
      await session.end().catch(() => undefined);
      throw error;
    }
    session.on('error', (error) => log.warn({ err: error }, 'worker liveness session failed'));
    session.on('end', () => {
      if (client !== session || stopping) return;
      client = null;
      log.warn('worker liveness session ended; taking a new lock');
      reregister();
    });
    client = session;
  }

  function reregister(): void {
    if (stopping || registering) return;
    registering = register()
      .catch((error) => {
        log.error({ err: error }, 'worker liveness: could not take a new lock (retrying)');
        setTimeout(reregister, sweepMs).unref();
      })
      .finally(() => {
        registering = null;
      });
  }

  async function sweep(): Promise<SweepResult> {
    const [row] = await db.query<{ workers: number; jobs: number }>(SWEEP, [workerId]);
    const result = { workers: row?.workers ?? 0, jobs: row?.jobs ?? 0 };
    if (result.workers > 0) {
      log.info(result, 'released the jobs of dead workers');
      if (result.jobs > 0) options.onReleased?.(result);
    }
    return result;
  }

  return {
    async start() {
      stopping = false;
      await register();
      await sweep();
      timer = setInterval(() => {
        sweep().catch((error) => log.warn({ err: error }, 'sweeping dead workers failed'));
      }, sweepMs);
      timer.unref();
    },
    sweep,
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = null;
      await registering;
      const session = client;
      client = null;
      if (!session) return;
      await session.query('delete from workers where id = $1', [workerId]).catch(() => undefined);
      await session.end().catch(() => undefined);
    },
  };
}
