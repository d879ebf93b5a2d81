/**
 * The write stage (src/platform/actors/write.ts) against the real database, given transitions the
 * prepare stage made: creations of a kind go out as one statement, each with all its rows; an update
 * whose actor moved since it was loaded is not written (OptimisticConflictError); an update of a row
 * the transaction holds does not wait for its answer, which goes to the commit; a single transaction
 * writes its one transition through the kind's batcher and asks for a real transaction, writing
 * nothing, for more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepSucceededEvent } from '../../../machines/index.js';
import { RUN_KINDS, SKILL_RUN_KIND } from '../../../src/features/runs/run-kinds.js';
import { SYSTEM } from '../../../src/platform/actors/acting-as.js';
import { createIdAllocator } from '../../../src/platform/actors/ids.js';
import { createPrepareStage, type Prepared } from '../../../src/platform/actors/prepare.js';
import { createKindRegistry } from '../../../src/platform/actors/registry.js';
import {
  type ActorTx,
  actorTx,
  NeedsTransaction,
  singleTx,
  TxState,
} from '../../../src/platform/actors/tx.js';
import { type LoadedActor, OptimisticConflictError } from '../../../src/platform/actors/types.js';
import { write } from '../../../src/platform/actors/write.js';
import type { Sql } from '../../../src/platform/db/sql.js';
import { createLogger } from '../../../src/platform/log.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkillRun, orgIdOf, skillRunArgs } from '../../helpers/runs.js';
import { recordStatements } from '../../helpers/statements.js';

let t: TestApp;
let org: number;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  await t.token({ org: 'acme' });
  org = await orgIdOf(t.app, 'acme');
});
afterAll(() => t.close());

/** The prepare stage over the app's run kinds, writing through `sql` (the pool) when single. */
function stages() {
  const kinds = createKindRegistry(t.app.db.sql);
  for (const kind of RUN_KINDS) kinds.register(t.app.actors.kind(kind));
  const prepare = createPrepareStage({
    kinds,
    ids: createIdAllocator(),
    clock: t.clock,
    log: createLogger('silent'),
  });
  return { kinds, prepare };
}

const succeeded = (): StepSucceededEvent => ({
  type: 'STEP_SUCCEEDED',
  step: 'summarize',
  attempt: 1,
  output: { text: 'draft' },
  at: new Date(t.clock.now()).toISOString(),
});

/** `event` sent to `actor`, prepared in `tx`. */
async function update(tx: ActorTx, actor: LoadedActor, locked = false): Promise<Prepared> {
  const { prepare } = stages();
  return (await prepare.send(tx, { actor, locked }, succeeded(), { actingAs: SYSTEM })) as Prepared;
}

const statusOf = async (id: number) =>
  await t.app.db.sql.one<{ status: string; version: number }>(
    'select status, version from runs where id = $1',
    [id],
  );

describe('the write stage', () => {
  it('writes creations of one kind in one statement, each with all its rows', async () => {
    const { kinds, prepare } = stages();
    const { order } = await recordStatements(() =>
      t.app.db.sql.tx(async (sql: Sql) => {
        const tx = actorTx(sql, new TxState());
        const kind = kinds.entry(SKILL_RUN_KIND);
        const list = [
          await prepare.creation(tx, kind, skillRunArgs(org, { slug: 'write-a' })),
          await prepare.creation(tx, kind, skillRunArgs(org, { slug: 'write-b' })),
        ];
        await write(tx, list, false);
      }),
    );
    expect(order.filter((entry) => entry.startsWith('sent actor_insert'))).toEqual([
      expect.stringMatching(/^sent actor_insert_skill-run#/),
    ]);
    const rows = await t.app.db.sql.query<{ slug: string; jobs: number; events: number }>(
      `select r.slug, (select count(*)::int from jobs j where (j.payload->>'actorId')::bigint = r.id) as jobs,
              (select count(*)::int from run_events e where e.run_id = r.id) as events
         from runs r where r.slug in ('write-a', 'write-b') order by r.slug`,
    );
    expect(rows).toEqual([
      { slug: 'write-a', jobs: 1, events: 2 },
      { slug: 'write-b', jobs: 1, events: 2 },
    ]);
  });

  it('does not write an update whose actor moved since its load: OptimisticConflictError', async () => {
    const run = await createSkillRun(t.app, org);
    const stale = run.actor;
    await t.app.actors.transact((tx) =>
      t.app.actors.send(tx, SKILL_RUN_KIND, { orgId: org, id: stale.row.id }, succeeded(), {
        actingAs: SYSTEM,
      }),
    );
    const failed = t.app.db.sql.tx(async (sql: Sql) => {
      const tx = actorTx(sql, new TxState());
      await write(tx, [await update(tx, stale)], false);
    });
    await expect(failed).rejects.toBeInstanceOf(OptimisticConflictError);
    expect(await statusOf(stale.row.id)).toEqual({ status: 'completed', version: 2 });
  });

  it("leaves the answer of an update of a row the transaction holds to the commit, and awaits another's", async () => {
    const run = await createSkillRun(t.app, org);
    const checks: Promise<unknown>[] = [];
    await t.app.db.sql.tx(async (sql: Sql) => {
      const held = { ...sql, atCommit: (answer: Promise<unknown>) => void checks.push(answer) } as Sql;
      const tx = actorTx(held, new TxState());
      await write(tx, [await update(tx, run.actor, true)], false);
      expect(checks).toHaveLength(1);
      await checks[0];
    });
    expect(await statusOf(run.actor.row.id)).toEqual({ status: 'completed', version: 2 });
    const other = await createSkillRun(t.app, org);
    await t.app.db.sql.tx(async (sql: Sql) => {
      const tx = actorTx(
        { ...sql, atCommit: (answer: Promise<unknown>) => void checks.push(answer) } as Sql,
        new TxState(),
      );
      await write(tx, [await update(tx, other.actor)], false);
    });
    expect(checks).toHaveLength(1);
  });

  it('writes one transition of a single transaction, and for more asks for a real one, writing nothing', async () => {
    const run = await createSkillRun(t.app, org);
    const tx = singleTx(t.app.db.sql, new TxState());
    const prepared = await update(tx, run.actor);
    await write(tx, [prepared], false);
    expect(await statusOf(run.actor.row.id)).toEqual({ status: 'completed', version: 2 });
    await expect(write(tx, [prepared], false)).rejects.toThrow('a single transaction made a second write');
    const pending = await createSkillRun(t.app, org, { requiresApproval: true });
    const withFollowUp = singleTx(t.app.db.sql, new TxState());
    const p = await update(withFollowUp, pending.actor);
    p.writes.followUp(async () => undefined);
    await expect(write(withFollowUp, [p], false)).rejects.toBeInstanceOf(NeedsTransaction);
    expect(await statusOf(pending.actor.row.id)).toEqual({ status: 'pending', version: 1 });
  });
});
