/**
 * Worker liveness against the real database: a worker whose lock session dies is found dead by a
 * live one's sweep, its row is removed and the jobs it held are ready (and run) at once — with no
 * lease run out; a live worker, and jobs of workers without a row, are left alone.
 */

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWorkerLiveness,
  WORKER_LOCK_SPACE,
  type WorkerLiveness,
} from '../../../src/platform/jobs/liveness.js';
import { createJobQueue, type JobQueue } from '../../../src/platform/jobs/queue.js';
import { createLogger } from '../../../src/platform/log.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createCollector, waitFor } from '../../helpers/wait.js';

let t: TestApp;
let live: JobQueue;
const ran = createCollector<number>();
const log = createLogger('silent');

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  live = createJobQueue({
    db: t.app.db.sql,
    bus: t.app.bus,
    clock: t.clock,
    log,
    concurrency: 2,
    databaseUrl: t.database.url,
    // Sweeps and polls only when the test asks: what resumes the jobs must be the sweep.
    sweepMs: 3_600_000,
    pollMs: 3_600_000,
    leaseMs: 3_600_000,
  });
  live.register('t.live', async ({ job }) => ran.push(job.id));
  await live.start();
});
afterAll(async () => {
  await live.stop();
  await t.close();
});

/** Another process's worker: its liveness row and lock, and the session holding the lock. */
async function otherWorker(
  id: string,
): Promise<{ liveness: WorkerLiveness; lockPid: () => Promise<number> }> {
  const liveness = createWorkerLiveness({
    workerId: id,
    databaseUrl: t.database.url,
    db: t.app.db.sql,
    log,
    sweepMs: 3_600_000,
  });
  await liveness.start();
  return {
    liveness,
    async lockPid() {
      const row = await t.app.db.sql.one<{ pid: number }>(
        `select l.pid from pg_locks l join workers w on l.objid = w.lock_key
          where l.locktype = 'advisory' and l.classid = 29235 and l.granted and w.id = $1`,
        [id],
      );
      return row.pid;
    },
  };
}

const workerRows = async () =>
  (await t.app.db.sql.query<{ id: string }>('select id from workers order by id')).map((r) => r.id);

describe('worker liveness', () => {
  it('a started queue has a row naming a lock it holds', async () => {
    expect(await workerRows()).toContain(live.workerId);
    expect(await live.sweepDeadWorkers()).toEqual({ workers: 0, jobs: 0 });
    expect(await workerRows()).toContain(live.workerId);
  });

  it('releases and runs at once the jobs of a worker whose process died', async () => {
    // What another process leaves when it is killed: its row, and its lock session, which dies with it.
    // (Not a WorkerLiveness of this process: a live one takes a new lock when its session drops.)
    const session = new pg.Client({ connectionString: t.database.url });
    await session.connect();
    session.on('error', () => undefined);
    await session.query('select pg_advisory_lock($1, $2)', [WORKER_LOCK_SPACE, 424_242]);
    await session.query(
      `insert into workers (id, lock_key, host, pid) values ('other:1:dead', 424242, 'elsewhere', 1)`,
    );
    const ids = [
      await live.enqueue(t.app.db.sql, { kind: 't.live', payload: {} }),
      await live.enqueue(t.app.db.sql, { kind: 't.live', payload: {} }),
    ];
    // The other worker claims both (an hour's lease), then its process dies: its session is killed.
    expect((await live.claim('other:1:dead', 2)).map((j) => j.id).sort()).toEqual([...ids].sort());
    const [{ pid }] = (await session.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [
      { pid: number },
    ];
    await t.app.db.sql.query('select pg_terminate_backend($1)', [pid]);
    await waitFor(
      async () =>
        (await t.app.db.sql.query('select 1 from pg_stat_activity where pid = $1', [pid])).length === 0,
      'the killed session to be gone',
    );
    expect(await live.sweepDeadWorkers()).toEqual({ workers: 1, jobs: 2 });
    expect(await workerRows()).not.toContain('other:1:dead');
    // Released: the live workers were woken and ran them, attempt 2, long before the lease.
    await ran.until((items) => ids.every((id) => items.includes(id as number)), 'the released jobs to run');
    await waitFor(
      async () =>
        (await t.app.db.sql.query('select id from jobs where id = any($1::bigint[])', [ids])).length === 0,
      'the released jobs to be completed',
    );
    await session.end().catch(() => undefined);
  });

  it('leaves a live worker and its jobs alone', async () => {
    const other = await otherWorker('other:2:alive');
    try {
      const id = await live.enqueue(t.app.db.sql, { kind: 't.live', payload: {} });
      expect((await live.claim('other:2:alive', 1)).map((j) => j.id)).toEqual([id]);
      expect(await live.sweepDeadWorkers()).toEqual({ workers: 0, jobs: 0 });
      const [row] = await t.app.db.sql.query<{ locked_by: string }>(
        'select locked_by from jobs where id = $1',
        [id],
      );
      expect(row?.locked_by).toBe('other:2:alive');
      await t.app.db.sql.query('delete from jobs where id = $1', [id]);
    } finally {
      await other.liveness.stop();
    }
    expect(await workerRows()).not.toContain('other:2:alive');
  });

  it('a worker whose own session drops takes a new lock and row', async () => {
    const other = await otherWorker('other:3:blip');
    const before = await other.lockPid();
    await t.app.db.sql.query('select pg_terminate_backend($1)', [before]);
    await waitFor(async () => {
      const rows = await t.app.db.sql.query<{ pid: number }>(
        `select l.pid from pg_locks l join workers w on l.objid = w.lock_key
          where l.locktype = 'advisory' and l.classid = 29235 and l.granted and w.id = 'other:3:blip'`,
      );
      return rows.length === 1 && rows[0]?.pid !== before;
    }, 'a new lock for the same worker');
    expect(await live.sweepDeadWorkers()).toEqual({ workers: 0, jobs: 0 });
    await other.liveness.stop();
  });

  it('jobs of a worker with no row (an older release, a CLI drain) wait for their lease', async () => {
    const id = await live.enqueue(t.app.db.sql, { kind: 't.live', payload: {} });
    await live.claim('no-row-worker', 1);
    await live.sweepDeadWorkers();
    const [row] = await t.app.db.sql.query<{ locked_by: string }>(
      'select locked_by from jobs where id = $1',
      [id],
    );
    expect(row?.locked_by).toBe('no-row-worker');
    await t.app.db.sql.query('delete from jobs where id = $1', [id]);
  });
});
