/**
 * The job queue against the real database, with the manual clock: claiming, completion, retries with
 * backoff, death after the last attempt, keys, leases of dead workers, and wake-ups of idle workers.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/platform/db/sql.js';
import { createJobQueue, type Job, type JobOrigin, type JobQueue } from '../../../src/platform/jobs/queue.js';
import { createLogger } from '../../../src/platform/log.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createCollector, deferred, waitFor, withTimeout } from '../../helpers/wait.js';

let t: TestApp;
let queue: JobQueue;
const LEASE_MS = 60_000;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  queue = createJobQueue({
    db: t.app.db.sql,
    bus: t.app.bus,
    clock: t.clock,
    log: createLogger('silent'),
    concurrency: 0,
    leaseMs: LEASE_MS,
  });
});
afterAll(async () => {
  await queue.stop();
  await t.close();
});

/**
 * Workers of `concurrency` slots (no poll), `busy` of them to be held, once started, by jobs of a kind
 * of their own until `release`.
 */
function heldWorkers(concurrency: number, busy: number) {
  const workers = createJobQueue({
    db: t.app.db.sql,
    bus: t.app.bus,
    clock: t.clock,
    log: createLogger('silent'),
    concurrency,
    pollMs: 3_600_000,
    leaseMs: LEASE_MS,
  });
  const kind = `t.held-${randomUUID()}`;
  const release = deferred();
  const held = createCollector<number>();
  workers.register(kind, async ({ job }) => {
    held.push(job.id);
    await release.promise;
  });
  return {
    workers,
    kind,
    release,
    held,
    async start() {
      for (let n = 0; n < busy; n++) await queue.enqueue(t.app.db.sql, { kind });
      await workers.start();
      await held.untilCount(busy, 'the busy slots taken');
    },
    async stop() {
      release.resolve();
      await workers.stop();
      await workers.drain();
    },
  };
}

/**
 * Workers of 8 slots (no poll) on `db` whose background jobs are paced at `rate` within `quietMs` of
 * real work.
 */
function pacedWorkers(rate: number, quietMs: number, db: Db = t.app.db.sql): JobQueue {
  return createJobQueue({
    db,
    bus: t.app.bus,
    clock: t.clock,
    log: createLogger('silent'),
    concurrency: 8,
    pollMs: 3_600_000,
    leaseMs: LEASE_MS,
    backgroundRate: rate,
    backgroundQuietMs: quietMs,
  });
}

/** Registers `kind` on `workers`: each job recorded as it starts, then held until `release`. */
function recordHeld(workers: JobQueue, kind: string) {
  const release = deferred();
  const started = createCollector<{ id: number; priority: number }>();
  workers.register(kind, async ({ job }) => {
    started.push({ id: job.id, priority: job.priority });
    await release.promise;
  });
  return { release, started };
}

/** `n` background jobs (priority -1) of `kind`; their ids. */
async function enqueueBackground(workers: JobQueue, kind: string, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await workers.enqueue(t.app.db.sql, { kind, priority: -1 })) as number);
  return ids;
}

async function jobRow(id: number) {
  return t.app.db.sql.maybeOne<{
    attempts: number;
    run_at: Date;
    last_error: string | null;
    dead_at: Date | null;
  }>('select attempts, run_at, last_error, dead_at from jobs where id = $1', [id]);
}

describe('the queue', () => {
  it('runs a job once and deletes it', async () => {
    const seen = createCollector<Job>();
    queue.register('t.ok', async ({ job }) => seen.push(job));
    const id = await queue.enqueue(t.app.db.sql, { kind: 't.ok', payload: { n: 1 } });
    expect(id).not.toBeNull();
    expect(await queue.runOnce()).toBe(1);
    expect(seen.items).toEqual([
      expect.objectContaining({ id, kind: 't.ok', payload: { n: 1 }, attempts: 1 }),
    ]);
    expect(await jobRow(id as number)).toBeNull();
    expect(await queue.runOnce()).toBe(0);
  });

  it('does not run a job before run_at', async () => {
    let ran = 0;
    queue.register('t.later', async () => {
      ran++;
    });
    await queue.enqueue(t.app.db.sql, { kind: 't.later', runAt: t.clock.now() + 5_000 });
    expect(await queue.runOnce()).toBe(0);
    t.clock.advance(5_000);
    expect(await queue.runOnce()).toBe(1);
    expect(ran).toBe(1);
  });

  it('keeps one job per key', async () => {
    queue.register('t.keyed', async () => undefined);
    const first = await queue.enqueue(t.app.db.sql, { kind: 't.keyed', key: 'k-1' });
    const second = await queue.enqueue(t.app.db.sql, { kind: 't.keyed', key: 'k-1' });
    expect(first).not.toBeNull();
    expect(second).toBeNull();
    expect(await queue.drain()).toBe(1);
  });

  it('retries a failing job with backoff, then marks it dead and runs onDead once', async () => {
    let calls = 0;
    const dead = createCollector<string>();
    queue.register(
      't.fail',
      async () => {
        calls++;
        throw new Error(`boom ${calls}`);
      },
      { maxAttempts: 3, onDead: async (_job, error) => dead.push(error) },
    );
    const id = (await queue.enqueue(t.app.db.sql, { kind: 't.fail' })) as number;
    const start = t.clock.now();
    expect(await queue.runOnce()).toBe(1);
    let row = await jobRow(id);
    expect(row).toMatchObject({ attempts: 1, last_error: 'Error: boom 1', dead_at: null });
    // exp(1) seconds later.
    expect(row?.run_at.getTime()).toBe(start + Math.round(Math.exp(1) * 1000));
    expect(await queue.runOnce()).toBe(0);
    t.clock.advance(3_000);
    expect(await queue.runOnce()).toBe(1);
    row = await jobRow(id);
    expect(row).toMatchObject({ attempts: 2, last_error: 'Error: boom 2' });
    t.clock.advance(8_000);
    expect(await queue.runOnce()).toBe(1);
    row = await jobRow(id);
    expect(row?.dead_at).not.toBeNull();
    expect(dead.items).toEqual(['Error: boom 3']);
    t.clock.advance(3_600_000);
    expect(await queue.runOnce()).toBe(0);
    expect(calls).toBe(3);
  });

  it("re-claims a job whose worker died once its lease expires, and the late worker's completion is lost", async () => {
    let runs = 0;
    queue.register('t.lease', async () => {
      runs++;
    });
    const id = (await queue.enqueue(t.app.db.sql, { kind: 't.lease' })) as number;
    // Worker A claims it, then "dies" (never finishes).
    const [claimed] = await queue.claim('worker-a', 10);
    expect(claimed?.id).toBe(id);
    expect(await queue.runOnce({ workerId: 'worker-b' })).toBe(0);
    t.clock.advance(LEASE_MS - 1);
    expect(await queue.runOnce({ workerId: 'worker-b' })).toBe(0);
    t.clock.advance(1);
    expect(await queue.runOnce({ workerId: 'worker-b' })).toBe(1);
    expect(runs).toBe(1);
    expect(await jobRow(id)).toBeNull();
    // A comes back and tries to finish: the job is no longer its own.
    expect(await queue.process(claimed as Job, 'worker-a')).toBe('lost');
  });

  it('claims jobs of a higher priority first, then by run_at; a claim may ask for a least priority', async () => {
    queue.register('t.prio', async () => undefined);
    const early = (await queue.enqueue(t.app.db.sql, {
      kind: 't.prio',
      runAt: t.clock.now() - 60_000,
    })) as number;
    const first = (await queue.enqueue(t.app.db.sql, { kind: 't.prio', priority: 1 })) as number;
    expect(await queue.claim('worker-p', 10, 1)).toEqual([
      expect.objectContaining({ id: first, priority: 1 }),
    ]);
    const high = (await queue.enqueue(t.app.db.sql, { kind: 't.prio', priority: 1 })) as number;
    const claimed = await queue.claim('worker-p', 10);
    expect(claimed.map((job) => job.id)).toEqual([high, early]);
    for (const job of [...claimed, { id: first } as Job])
      await t.app.db.sql.query('delete from jobs where id = $1', [job.id]);
  });

  it('marks a job dead when its worker died during the last attempt', async () => {
    const dead = createCollector<number>();
    queue.register('t.lastgasp', async () => undefined, {
      maxAttempts: 1,
      onDead: async (job) => dead.push(job.id),
    });
    const id = (await queue.enqueue(t.app.db.sql, { kind: 't.lastgasp' })) as number;
    await queue.claim('worker-a', 10);
    t.clock.advance(LEASE_MS);
    expect(await queue.runOnce({ workerId: 'worker-b' })).toBe(1);
    expect((await jobRow(id))?.dead_at).not.toBeNull();
    expect(dead.items).toEqual([id]);
  });
});

describe('workers', () => {
  it('wake on notifyEnqueued instead of waiting for the poll', async () => {
    const workers = createJobQueue({
      db: t.app.db.sql,
      bus: t.app.bus,
      clock: t.clock,
      log: createLogger('silent'),
      concurrency: 2,
      // A poll far beyond the test's patience: only the wake-up can run the job in time.
      pollMs: 3_600_000,
    });
    const done = deferred<unknown>();
    workers.register('t.wake', async ({ job }) => done.resolve(job.payload));
    await workers.start();
    try {
      await t.app.actors.transact(async (tx) => {
        await workers.enqueue(tx, { kind: 't.wake', payload: { hello: 'world' } });
      });
      workers.notifyEnqueued();
      expect(await withTimeout(done.promise, 'the woken worker to run the job', 2_000)).toEqual({
        hello: 'world',
      });
    } finally {
      await workers.stop();
    }
  });

  it('claim for a job that goes first as soon as one slot is free, and only for such jobs', async () => {
    // 8 slots: busy, they claim once a quarter (2) are free; 7 taken leave one.
    const busy = heldWorkers(8, 7);
    const urgentRan = deferred<number>();
    busy.workers.register('t.first', async ({ job }) => urgentRan.resolve(job.priority));
    try {
      await busy.start();
      // Waits for a quarter of the slots to be free, however it is woken.
      await queue.enqueue(t.app.db.sql, { kind: busy.kind });
      busy.workers.notifyEnqueued();
      await busy.workers.enqueue(t.app.db.sql, { kind: 't.first', priority: 1 });
      busy.workers.notifyEnqueued({ urgent: true });
      expect(await withTimeout(urgentRan.promise, 'the job that goes first to run', 2_000)).toBe(1);
      expect(busy.held.items).toHaveLength(7);
    } finally {
      await busy.stop();
    }
  });

  it('run background jobs (priority below 0) in at most half the slots, after every other ready job', async () => {
    const workers = createJobQueue({
      db: t.app.db.sql,
      bus: t.app.bus,
      clock: t.clock,
      log: createLogger('silent'),
      concurrency: 4,
      pollMs: 3_600_000,
      leaseMs: LEASE_MS,
    });
    const kind = `t.bg-${randomUUID()}`;
    const { release, started } = recordHeld(workers, kind);
    try {
      const background = await enqueueBackground(workers, kind, 4);
      await workers.start();
      await started.untilCount(2, 'two background jobs started');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Half the slots: the other two wait, unclaimed (their attempt not counted).
      expect(started.items.map((j) => j.id)).toEqual(background.slice(0, 2));
      const waiting = await t.app.db.sql.query<{ attempts: number; locked_by: string | null }>(
        'select attempts, locked_by from jobs where id = any($1::bigint[]) order by id',
        [background.slice(2)],
      );
      expect(waiting).toEqual([
        { attempts: 0, locked_by: null },
        { attempts: 0, locked_by: null },
      ]);
      // Real work takes the free slots at once, before the waiting background jobs.
      const real = [
        (await workers.enqueue(t.app.db.sql, { kind })) as number,
        (await workers.enqueue(t.app.db.sql, { kind })) as number,
      ];
      workers.notifyEnqueued();
      await started.untilCount(4, 'the real jobs started');
      expect(started.items.slice(2).map((j) => j.id)).toEqual(real);
      release.resolve();
      await started.untilCount(6, 'the waiting background jobs started once slots freed');
      expect(started.items.slice(4).map((j) => j.id)).toEqual(background.slice(2));
    } finally {
      release.resolve();
      await workers.stop();
    }
  });

  it('claim real work and the background jobs in the slots it leaves in one statement', async () => {
    // The rows each claim statement of the queue's took.
    const sql = t.app.db.sql;
    const claims: number[] = [];
    const counted = new Proxy(sql, {
      get(target, prop) {
        if (prop === 'prepared') {
          return async (name: string, text: string, params: unknown[]) => {
            const rows = await target.prepared(name, text, params);
            if (name === 'jobs_claim') claims.push(rows.length);
            return rows;
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    // One background start an hour while busy: the pace lets exactly one go with the real work.
    const workers = pacedWorkers(1 / 3600, 3_600_000, counted);
    const kind = `t.both-${randomUUID()}`;
    const { release, started } = recordHeld(workers, kind);
    try {
      const background = await enqueueBackground(workers, kind, 2);
      const real = (await workers.enqueue(sql, { kind })) as number;
      await workers.start();
      await started.untilCount(2, 'the real job and one background job started');
      expect(started.items).toEqual([
        { id: real, priority: 0 },
        { id: background[0], priority: -1 },
      ]);
      // Both in the first claim.
      expect(claims[0]).toBe(2);
      const left = await sql.one<{ attempts: number; locked_by: string | null }>(
        'select attempts, locked_by from jobs where id = $1',
        [background[1]],
      );
      expect(left).toEqual({ attempts: 0, locked_by: null });
    } finally {
      release.resolve();
      await workers.stop();
    }
  });

  it('pace background jobs while real work runs: one start per gap, the rest left unclaimed', async () => {
    // One background start an hour while busy, busy for an hour after real work: deterministic.
    const workers = pacedWorkers(1 / 3600, 3_600_000);
    const kind = `t.paced-${randomUUID()}`;
    const { release, started } = recordHeld(workers, kind);
    try {
      const real = (await workers.enqueue(t.app.db.sql, { kind })) as number;
      const background = await enqueueBackground(workers, kind, 4);
      await workers.start();
      await started.untilCount(2, 'the real job and one background job started');
      expect(started.items).toEqual([
        { id: real, priority: 0 },
        { id: background[0], priority: -1 },
      ]);
      // The pace holds the others back though four background slots are free, also once the running
      // jobs end (real work ended within the quiet window): unclaimed, their attempt not counted.
      release.resolve();
      await waitFor(async () => (await jobRow(real)) === null, 'the real job completed');
      workers.notifyEnqueued();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(started.items).toHaveLength(2);
      const waiting = await t.app.db.sql.query<{ attempts: number; locked_by: string | null }>(
        'select attempts, locked_by from jobs where id = any($1::bigint[]) order by id',
        [background.slice(1)],
      );
      expect(waiting).toEqual(Array.from({ length: 3 }, () => ({ attempts: 0, locked_by: null })));
    } finally {
      release.resolve();
      await workers.stop();
      await workers.drain();
    }
  });

  it('start paced background jobs one per gap while real work runs, none of them waiting for another to end', async () => {
    // Busy for an hour after the real job, a background start every 50 ms; no poll, and no job ever
    // ends before the test releases them: only the pace itself may start the next background job.
    // (The first start after a pause left the next one due at once, and the pace set no timer for it:
    // the rest waited for a job to end or for the poll.)
    const workers = pacedWorkers(20, 3_600_000);
    const kind = `t.gaps-${randomUUID()}`;
    const { release, started } = recordHeld(workers, kind);
    try {
      const real = (await workers.enqueue(t.app.db.sql, { kind })) as number;
      const background = await enqueueBackground(workers, kind, 3);
      await workers.start();
      await started.untilCount(4, 'the real job and the three background jobs started');
      expect(started.items.map((j) => j.id)).toEqual([real, ...background]);
    } finally {
      release.resolve();
      await workers.stop();
      await workers.drain();
    }
  });

  it('start no background job while real work ran within the quiet window at a rate of 0, then all at once (woken by the pace)', async () => {
    // Only the pace's own timer can wake the workers in time (no poll).
    const workers = pacedWorkers(0, 300);
    const kind = `t.quiet-${randomUUID()}`;
    const started = createCollector<{ id: number; priority: number }>();
    let backgroundWhileReal = -1;
    workers.register(kind, async ({ job }) => {
      started.push({ id: job.id, priority: job.priority });
      if (job.priority >= 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        backgroundWhileReal = started.items.filter((j) => j.priority < 0).length;
      }
    });
    try {
      const real = (await workers.enqueue(t.app.db.sql, { kind })) as number;
      const background = await enqueueBackground(workers, kind, 3);
      await workers.start();
      await started.untilCount(4, 'the background jobs started once the real work was quiet');
      expect(backgroundWhileReal).toBe(0);
      expect(started.items.map((j) => j.id)).toEqual([real, ...background]);
    } finally {
      await workers.stop();
    }
  });

  it('run jobs that go first in a quarter more slots than their concurrency, no more', async () => {
    // 4 slots, all busy: one more for a job that goes first.
    const busy = heldWorkers(4, 4);
    const first = createCollector<number>();
    busy.workers.register('t.ahead', async ({ job }) => {
      first.push(job.id);
      await busy.release.promise;
    });
    try {
      await busy.start();
      for (let n = 0; n < 2; n++) await busy.workers.enqueue(t.app.db.sql, { kind: 't.ahead', priority: 1 });
      busy.workers.notifyEnqueued({ urgent: true });
      await first.untilCount(1, 'a job that goes first started beyond the slots');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(first.items).toHaveLength(1);
      expect(busy.held.items).toHaveLength(4);
    } finally {
      await busy.stop();
    }
  });

  it('lease a job that goes first to a transaction only while they run, for their kinds and a free slot; startLeased runs it unclaimed', async () => {
    const busy = heldWorkers(4, 4);
    const { workers } = busy;
    const ran = createCollector<{ job: Job; origin: unknown }>();
    workers.register('t.leased', async ({ job, origin }) => {
      ran.push({ job, origin });
      await busy.release.promise;
    });
    expect(workers.lease('t.leased')).toBeNull(); // not started
    try {
      await busy.start();
      expect(workers.lease('t.unknown')).toBeNull();
      const lease = workers.lease('t.leased');
      expect(lease).toEqual({
        workerId: workers.workerId,
        lockedUntil: new Date(t.clock.now() + LEASE_MS).toISOString(),
      });
      // As a transaction writes it: claimed by this process, attempt 1.
      const [row] = await t.app.db.sql.query<{ id: number }>(
        `insert into jobs (kind, payload, run_at, created_at, priority, attempts, locked_by, locked_until)
         values ('t.leased', '{"n": 1}', now(), now(), 1, 1, $1, $2) returning id`,
        [lease?.workerId, lease?.lockedUntil],
      );
      const id = Number(row?.id);
      const job: Job = {
        id,
        orgId: null,
        kind: 't.leased',
        payload: { n: 1 },
        key: null,
        attempts: 1,
        maxAttempts: 5,
        priority: 1,
      };
      const origin = { actor: null, row: { id: 7 } } as unknown as JobOrigin;
      workers.startLeased(job, origin);
      await ran.untilCount(1, 'the leased job to run');
      expect(ran.items[0]).toEqual({ job, origin });
      // The fifth slot (a quarter more than 4) is its: nothing more is leased.
      expect(workers.lease('t.leased')).toBeNull();
      // Nobody claims it meanwhile: it is this process's.
      expect(await queue.claim('someone-else', 10, 1)).toEqual([]);
      busy.release.resolve();
      await waitFor(async () => (await jobRow(id)) === null, 'the leased job completed (deleted)');
    } finally {
      await busy.stop();
    }
    expect(workers.lease('t.leased')).toBeNull(); // stopped
  });

  it('wake on the bus signal of another process', async () => {
    const workers = createJobQueue({
      db: t.app.db.sql,
      bus: t.app.bus,
      clock: t.clock,
      log: createLogger('silent'),
      concurrency: 1,
      pollMs: 3_600_000,
    });
    const done = deferred<unknown>();
    workers.register('t.remote', async ({ job }) => done.resolve(job.payload));
    await workers.start();
    try {
      await queue.enqueue(t.app.db.sql, { kind: 't.remote', payload: { from: 'elsewhere' } });
      // Another process's queue signals after its commit.
      t.app.bus.signal('sig.jobs.wake');
      expect(await withTimeout(done.promise, 'the signalled worker to run the job', 2_000)).toEqual({
        from: 'elsewhere',
      });
    } finally {
      await workers.stop();
    }
  });
});
