/**
 * The finish stage (src/platform/actors/finish.ts), with no database: after a transition's write it
 * counts the tables' growth, asks for the loops its rows gave work to be woken (jobs, urgent jobs,
 * outbox, timers — not for a job leased to this process), starts leased jobs only after the commit (a
 * creation's with the actor as created), keeps an updated actor for later transitions of the
 * transaction, and runs the follow-ups in order, one transition deeper.
 */
import { describe, expect, it } from 'vitest';
import { createFinishStage } from '../../../src/platform/actors/finish.js';
import type { ActorKindDef } from '../../../src/platform/actors/kind.js';
import type { Prepared } from '../../../src/platform/actors/prepare.js';
import type { KindEntry } from '../../../src/platform/actors/registry.js';
import type { TransitionRows } from '../../../src/platform/actors/statements.js';
import { type ActorTx, actorTx, singleTx, TxState } from '../../../src/platform/actors/tx.js';
import { TransitionWrites } from '../../../src/platform/actors/writes.js';
import type { Sql } from '../../../src/platform/db/sql.js';
import type { Job, JobOrigin } from '../../../src/platform/jobs/interfaces.js';

const def = { name: 'skill-run', table: 'runs' } as unknown as ActorKindDef;

/** A written transition of run 9 (version 3 before it), with `fill` adding to its writes. */
function prepared(
  fill: (writes: TransitionWrites) => void,
  options: { created?: boolean; leased?: Job[] } = {},
) {
  const writes = new TransitionWrites(4);
  fill(writes);
  const timersSet = [...writes.timers.values()].filter((timer) => timer !== null);
  const p: Prepared = {
    kind: { def } as KindEntry,
    row: { id: 9, orgId: 1, version: 3, lastSeq: 4, snapshot: null, columns: {} },
    from: 'running',
    to: 'completed',
    next: { value: 'completed' } as Prepared['next'],
    effects: [],
    projection: { status: 'completed' },
    persisted: { value: 'completed' },
    writes,
    rows: { actors: [{ id: 9 }], timersSet } as unknown as TransitionRows,
    created: options.created ?? false,
    locked: false,
    leased: options.leased ?? [],
  };
  return p;
}

const job = (priority = 0) => ({
  kind: 'execute_step',
  payload: {},
  key: null,
  run_at: '',
  max_attempts: null,
  priority,
});

function finishing() {
  const grew: Array<[string, number]> = [];
  const started: Array<{ job: Job; origin: JobOrigin | undefined }> = [];
  const finish = createFinishStage({
    growth: { grew: (table, rows) => void grew.push([table, rows]) },
    jobs: { startLeased: (j, origin) => void started.push({ job: j, origin }) },
  });
  return { finish, grew, started };
}

const noSql = {} as Sql;

describe('the finish stage', () => {
  it('asks for the loops its rows gave work, and counts the growth of the tables it inserted into', async () => {
    const { finish, grew } = finishing();
    const state = new TxState();
    await finish(
      actorTx(noSql, state),
      prepared((w) => {
        w.jobs.push(job());
        w.outbox.push({ subject: 's', event_id: 'e', payload: {} });
        w.timers.set('t', { timer_id: 't', event: { type: 'X' }, due_at: '' });
      }),
    );
    expect([...state.wakes].sort()).toEqual(['jobs', 'outbox', 'timers']);
    expect(grew).toEqual([['jobs', 1]]);
    const urgent = new TxState();
    await finish(
      actorTx(noSql, urgent),
      prepared((w) => w.jobs.push(job(1)), { created: true }),
    );
    expect([...urgent.wakes]).toEqual(['urgentJobs']);
    expect(grew.slice(1)).toEqual([
      ['runs', 1],
      ['jobs', 1],
    ]);
    const quiet = new TxState();
    await finish(
      actorTx(noSql, quiet),
      prepared(() => undefined),
    );
    expect(quiet.wakes.size).toBe(0);
  });

  it('starts leased jobs after the commit only, a creation with the actor as created, and wakes no claim for them', async () => {
    const { finish, started } = finishing();
    const leased: Job = {
      id: 5,
      orgId: 1,
      kind: 'execute_step',
      payload: {},
      key: null,
      attempts: 1,
      maxAttempts: 5,
      priority: 1,
    };
    const state = new TxState();
    await finish(
      actorTx(noSql, state),
      prepared((w) => w.jobs.push({ ...job(1), leased: { id: 5, workerId: 'w', lockedUntil: '' } }), {
        created: true,
        leased: [leased],
      }),
    );
    expect(started).toEqual([]);
    expect(state.wakes.size).toBe(0);
    for (const callback of state.callbacks) callback();
    expect(started).toMatchObject([
      { job: leased, origin: { row: { id: 9 }, actor: { row: { id: 9, version: 4 } } } },
    ]);
  });

  it('keeps an updated actor for the transaction (not a creation, nor in a single transaction), then runs the follow-ups deeper, in order', async () => {
    const { finish } = finishing();
    const state = new TxState();
    const depths: string[] = [];
    const done = await finish(
      actorTx(noSql, state),
      prepared((w) => {
        w.nextSeq();
        w.followUp(async (tx: ActorTx) => void depths.push(`first at ${tx.depth}`));
        w.followUp(
          async (tx: ActorTx) =>
            void depths.push(`second at ${tx.depth}, own write kept: ${tx.updated.has('runs:9')}`),
        );
      }),
    );
    expect(depths).toEqual(['first at 1', 'second at 1, own write kept: true']);
    expect(done).toMatchObject({
      from: 'running',
      to: 'completed',
      actor: { row: { version: 4, lastSeq: 5 } },
    });
    expect(state.updated.get('runs:9')).toBe(done.actor);
    const creation = new TxState();
    await finish(
      actorTx(noSql, creation),
      prepared(() => undefined, { created: true }),
    );
    expect(creation.updated.size).toBe(0);
    const single = new TxState();
    await finish(
      singleTx(noSql, single),
      prepared(() => undefined),
    );
    expect(single.updated.size).toBe(0);
  });
});
