/**
 * The job queue against the real database, with the manual clock: claiming, completion, retries with
 * backoff, death after the last attempt, keys, leases of dead workers, and wake-ups of idle workers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobQueue, type Job, type JobQueue } from '../../../src/platform/jobs/queue.js';
import { createLogger } from '../../../src/platform/log.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createCollector, deferred, withTimeout } from '../../helpers/wait.js';

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
    const workers = createJobQueue({
      db: t.app.db.sql,
      bus: t.app.bus,
      clock: t.clock,
      log: createLogger('silent'),
      concurrency: 8,
      pollMs: 3_600_000,
    });
    const release = deferred();
    const started = createCollector<number>();
    const urgentRan = deferred<number>();
    workers.register('t.slow', async ({ job }) => {
      started.push(job.id);
      await release.promise;
    });
    workers.register('t.first', async ({ job }) => urgentRan.resolve(job.priority));
    for (let n = 0; n < 7; n++) await queue.enqueue(t.app.db.sql, { kind: 't.slow' });
    await workers.start();
    try {
      await started.untilCount(7, 'slow jobs started');
      // Waits for a quarter of the slots to be free, however it is woken.
      await queue.enqueue(t.app.db.sql, { kind: 't.slow' });
      workers.notifyEnqueued();
      await workers.enqueue(t.app.db.sql, { kind: 't.first', priority: 1 });
      workers.notifyEnqueued({ urgent: true });
      expect(await withTimeout(urgentRan.promise, 'the job that goes first to run', 2_000)).toBe(1);
      expect(started.items).toHaveLength(7);
    } finally {
      release.resolve();
      await workers.stop();
      await workers.drain();
    }
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
