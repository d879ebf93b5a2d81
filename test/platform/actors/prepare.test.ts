/**
 * The prepare stage (src/platform/actors/prepare.ts) on the run kinds, with no database: every
 * statement would throw, so the stage is seen to compute a transition, perform its effects and build
 * its rows without sending anything. A creation takes its id and starts its machine; a send is checked
 * by the event schema (invalid, naming the field), then by the state (refused), then stepped; events
 * settled and sent after it are applied in the same rows, a refused one skipped with a warning; jobs
 * that go first are leased when the queue takes them.
 */
import { describe, expect, it } from 'vitest';
import type { RunApproveEvent, RunRequestChangesEvent, StepSucceededEvent } from '../../../machines/index.js';
import type { ReviewItems } from '../../../src/features/reviews/index.js';
import { runKinds, SHADOW_JOB_PRIORITY, SKILL_RUN_KIND } from '../../../src/features/runs/run-kinds.js';
import { SYSTEM } from '../../../src/platform/actors/acting-as.js';
import type { IdAllocator } from '../../../src/platform/actors/ids.js';
import type { ActorKindDef } from '../../../src/platform/actors/kind.js';
import { createPrepareStage, type Prepared } from '../../../src/platform/actors/prepare.js';
import { createKindRegistry } from '../../../src/platform/actors/registry.js';
import { actorTx, TxState } from '../../../src/platform/actors/tx.js';
import type { LoadedActor } from '../../../src/platform/actors/types.js';
import type { Sql } from '../../../src/platform/db/sql.js';
import type { JobQueue } from '../../../src/platform/jobs/interfaces.js';
import { createLogger, type Logger } from '../../../src/platform/log.js';
import { ManualClock } from '../../../src/platform/util/clock.js';
import { skillRunArgs } from '../../helpers/runs.js';

/** Any statement fails the test: the stage sends none. */
const noSql = new Proxy({} as Sql, {
  get: () => () => {
    throw new Error('the prepare stage sent a statement');
  },
});

const clock = new ManualClock(Date.parse('2025-03-01T10:00:00.000Z'));
const at = () => new Date(clock.now()).toISOString();

/** A prepare stage over the run kinds (`wrap` may change the skill run's kind), ids counting from 100. */
function stage(
  options: { wrap?: (def: ActorKindDef) => ActorKindDef; jobs?: Pick<JobQueue, 'lease'>; log?: Logger } = {},
) {
  const kinds = createKindRegistry(noSql);
  for (const def of runKinds({} as ReviewItems, { runs: { inc() {} } } as never)) {
    kinds.register(def.name === SKILL_RUN_KIND && options.wrap ? options.wrap(def) : def);
  }
  let next = 100;
  const ids: IdAllocator = { next: async () => next++ };
  const log = options.log ?? createLogger('silent');
  return { kinds, prepare: createPrepareStage({ kinds, ids, clock, log, jobs: options.jobs }) };
}

const tx = () => actorTx(noSql, new TxState());

/** The actor a creation's prepared transition leaves, as a load would find it once written. */
function loaded(p: Prepared): LoadedActor {
  return {
    def: p.kind.def,
    row: { ...p.row, version: 1, lastSeq: p.writes.seq, snapshot: p.persisted },
    snapshot: p.next,
  };
}

const succeeded = (): StepSucceededEvent => ({
  type: 'STEP_SUCCEEDED',
  step: 'summarize',
  attempt: 1,
  output: { text: 'draft' },
  at: at(),
});
const approve = (): RunApproveEvent => ({
  type: 'APPROVE',
  by: 'token:1',
  onBehalfOf: null,
  note: null,
  at: at(),
});

describe('the prepare stage', () => {
  it('prepares a creation: its id taken, its machine started, its effects in its rows, nothing sent', async () => {
    const { kinds, prepare } = stage();
    const p = await prepare.creation(tx(), kinds.entry(SKILL_RUN_KIND), skillRunArgs(7));
    expect(p.row).toMatchObject({ id: 100, orgId: 7, version: 0 });
    expect(p).toMatchObject({ created: true, from: null, to: 'running.awaitingModel', leased: [] });
    expect(p.effects.map((e) => e.type)).toEqual(['recordEvent', 'recordEvent', 'enqueueJob']);
    expect(p.rows.actors[0]).toMatchObject({
      id: 100,
      org_id: 7,
      version: 1,
      kind: 'skill',
      status: 'running',
    });
    expect(p.rows.transitions).toMatchObject([{ from_state: null, event_type: 'xstate.init' }]);
    expect(p.rows.events.map((e) => e.event)).toEqual(['started', 'step_started']);
    expect(p.rows.jobs).toMatchObject([{ kind: 'execute_step', actor_id: 100 }]);
    expect(p.rows.outbox).toHaveLength(2);
    // An id taken beforehand is the creation's.
    const given = await prepare.creation(tx(), kinds.entry(SKILL_RUN_KIND), { ...skillRunArgs(7), id: 55 });
    expect(given.row.id).toBe(55);
  });

  it('checks a sent event by its schema, then by the state, then steps the machine', async () => {
    const { kinds, prepare } = stage();
    const created = await prepare.creation(tx(), kinds.entry(SKILL_RUN_KIND), skillRunArgs(7));
    const actor = loaded(created);
    const starting = { actor, locked: true };
    const invalid = await prepare.send(
      tx(),
      starting,
      { ...succeeded(), attempt: 'one' },
      { actingAs: SYSTEM },
    );
    expect(invalid).toMatchObject({ outcome: 'invalid', issues: [{ field: 'event.attempt' }] });
    const refused = await prepare.send(tx(), starting, approve(), { actingAs: SYSTEM });
    expect(refused).toEqual({ outcome: 'refused', actor });
    const p = (await prepare.send(tx(), starting, succeeded(), { actingAs: SYSTEM })) as Prepared;
    expect(p).toMatchObject({ created: false, locked: true, from: 'running.awaitingModel', to: 'completed' });
    // An update expects the version it loaded.
    expect(p.rows.actors[0]).toMatchObject({ id: 100, version: 1, status: 'completed' });
    expect(p.rows.events.map((e) => e.event)).toEqual(['step_completed', 'completed']);
  });

  it('applies the events settled and sent after it in the same rows, skipping a refused one', async () => {
    const warnings: unknown[] = [];
    const log = createLogger('silent');
    log.warn = ((details: unknown) => void warnings.push(details)) as typeof log.warn;
    const { kinds, prepare } = stage({
      log,
      // The draft's run event settles an approval (as a settler that read something would).
      wrap: (def) => ({
        ...def,
        effects: {
          ...def.effects,
          recordEvent(params, ctx) {
            if (
              ctx.event.type === 'STEP_SUCCEEDED' &&
              (params as { event: string }).event === 'paused_for_review'
            ) {
              ctx.writes.settle(async () => [approve()]);
            }
            return def.effects.recordEvent?.(params, ctx);
          },
        },
      }),
    });
    const created = await prepare.creation(
      tx(),
      kinds.entry(SKILL_RUN_KIND),
      skillRunArgs(7, { requiresApproval: true }),
    );
    const cancel = { type: 'CANCEL' as const, by: 'token:1', at: at() };
    const p = (await prepare.send(tx(), { actor: loaded(created), locked: false }, succeeded(), {
      actingAs: SYSTEM,
      followedBy: [cancel],
    })) as Prepared;
    expect(p.to).toBe('approved');
    expect(p.rows.transitions.map((r) => `${r.from_state} -${r.event_type}-> ${r.to_state}`)).toEqual([
      'pending.awaitingModel -STEP_SUCCEEDED-> pending.draftReady',
      'pending.draftReady -APPROVE-> approved',
    ]);
    // Approved is final for a cancel: it is skipped, with a warning.
    expect(warnings).toMatchObject([{ kind: SKILL_RUN_KIND, event: 'CANCEL', state: 'approved' }]);
  });

  it("enqueues a shadow run's jobs in the background for its whole life: its creation's and a later transition's", async () => {
    const { kinds, prepare } = stage();
    const changes: RunRequestChangesEvent = {
      type: 'REQUEST_CHANGES',
      by: 'token:1',
      reason: 'again',
      at: at(),
    };
    /** The jobs of a run through creation, draft and a change request (its step enqueued again). */
    const jobsThroughChanges = async (shadow: boolean) => {
      const args = skillRunArgs(7, { requiresApproval: true });
      const created = await prepare.creation(tx(), kinds.entry(SKILL_RUN_KIND), {
        ...args,
        columns: { ...args.columns, shadow },
      });
      const drafted = (await prepare.send(tx(), { actor: loaded(created), locked: true }, succeeded(), {
        actingAs: SYSTEM,
      })) as Prepared;
      const sentBack = (await prepare.send(tx(), { actor: loaded(drafted), locked: true }, changes, {
        actingAs: SYSTEM,
      })) as Prepared;
      expect(sentBack.to).toBe('running.awaitingModel');
      return [...created.rows.jobs, ...sentBack.rows.jobs].map((j) => [j.kind, j.priority ?? 0]);
    };
    expect(await jobsThroughChanges(true)).toEqual([
      ['execute_step', SHADOW_JOB_PRIORITY],
      ['execute_step', SHADOW_JOB_PRIORITY],
    ]);
    expect(await jobsThroughChanges(false)).toEqual([
      ['execute_step', 0],
      ['execute_step', 0],
    ]);
  });

  it('leases the jobs that go first when the queue takes them, and no other', async () => {
    const lease = { workerId: 'w1', lockedUntil: '2025-03-01T10:05:00.000Z' };
    const taking = stage({ jobs: { lease: () => lease } });
    const first = await taking.prepare.creation(
      tx(),
      taking.kinds.entry(SKILL_RUN_KIND),
      skillRunArgs(7, { jobsPriority: 1 }),
    );
    expect(first.leased).toMatchObject([{ id: 101, kind: 'execute_step', attempts: 1, priority: 1 }]);
    expect(first.rows.jobs).toMatchObject([{ id: 101, attempts: 1, locked_by: 'w1', priority: 1 }]);
    const plain = await taking.prepare.creation(tx(), taking.kinds.entry(SKILL_RUN_KIND), skillRunArgs(7));
    expect(plain.leased).toEqual([]);
    expect(plain.rows.jobs[0]).not.toHaveProperty('locked_by');
    const busy = stage({ jobs: { lease: () => null } });
    const queued = await busy.prepare.creation(
      tx(),
      busy.kinds.entry(SKILL_RUN_KIND),
      skillRunArgs(7, { jobsPriority: 1 }),
    );
    expect(queued.leased).toEqual([]);
  });
});
