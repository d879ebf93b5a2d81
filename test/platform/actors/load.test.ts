/**
 * The load stage (src/platform/actors/load.ts) against the real database: a load finds an actor only
 * in its org and picks the kind of a shared table by its discriminator; a send starts from the
 * transaction's own write of the actor or the caller's copy (its own, or the transaction's) without
 * a statement (the copy only on a first attempt without lock), from the locked load sent
 * ahead without a second one, or else from a load — and knows whether the row is the transaction's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_KINDS, SKILL_RUN_KIND, WORKFLOW_RUN_KIND } from '../../../src/features/runs/run-kinds.js';
import { createLoadStage } from '../../../src/platform/actors/load.js';
import { createKindRegistry } from '../../../src/platform/actors/registry.js';
import { type ActorTx, actorTx, TxState } from '../../../src/platform/actors/tx.js';
import type { Sql } from '../../../src/platform/db/sql.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkillRun, orgIdOf } from '../../helpers/runs.js';
import { recordStatements } from '../../helpers/statements.js';

let t: TestApp;
let org: number;
let otherOrg: number;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  await t.token({ org: 'acme' });
  await t.token({ org: 'other' });
  org = await orgIdOf(t.app, 'acme');
  otherOrg = await orgIdOf(t.app, 'other');
});
afterAll(() => t.close());

/** The load stage over the app's run kinds. */
function stage() {
  const kinds = createKindRegistry(t.app.db.sql);
  for (const kind of RUN_KINDS) kinds.register(t.app.actors.kind(kind));
  return createLoadStage(kinds);
}

/** Runs `fn` in a real transaction, as the host's transaction at `attempt`; rolled back. */
async function inTx<T>(fn: (tx: ActorTx) => Promise<T>, attempt = 1): Promise<T> {
  let result: T | undefined;
  await t.app.db.sql
    .tx(async (sql: Sql) => {
      result = await fn(actorTx(sql, new TxState(), attempt));
      throw new Error('rollback');
    })
    .catch((error: Error) => {
      if (error.message !== 'rollback') throw error;
    });
  return result as T;
}

/** The statements sent by `fn`, by name. */
async function sent(fn: () => Promise<unknown>): Promise<string[]> {
  const { order } = await recordStatements(fn);
  return order.filter((entry) => entry.startsWith('sent actor_')).map((entry) => entry.slice(5));
}

describe('the load stage', () => {
  it("loads an actor in its org only, of the kind its row's discriminator names", async () => {
    const load = stage();
    const run = await createSkillRun(t.app, org);
    const found = await load.load(t.app.db.sql, RUN_KINDS, { orgId: org, id: run.actor.row.id });
    expect(found?.def.name).toBe(SKILL_RUN_KIND);
    expect(found?.row).toMatchObject({
      id: run.actor.row.id,
      orgId: org,
      version: 1,
      columns: { kind: 'skill' },
    });
    expect(found?.snapshot.value).toEqual({ running: 'awaitingModel' });
    expect(await load.load(t.app.db.sql, RUN_KINDS, { orgId: otherOrg, id: run.actor.row.id })).toBeNull();
    // A skill run's row is no workflow run.
    expect(await load.load(t.app.db.sql, WORKFLOW_RUN_KIND, { orgId: org, id: run.actor.row.id })).toBeNull();
  });

  it("starts a send from the transaction's own write, or the caller's copy on a first attempt, without a statement", async () => {
    const load = stage();
    const run = await createSkillRun(t.app, org);
    const ref = { orgId: org, id: run.actor.row.id };
    const names = await sent(() =>
      inTx(async (tx) => {
        tx.updated.set(`runs:${ref.id}`, run.actor);
        expect(await load.forSend(tx, RUN_KINDS, ref, { lock: true })).toEqual({
          actor: run.actor,
          locked: true,
        });
        // Not for another org's id.
        expect(await load.forSend(tx, RUN_KINDS, { ...ref, orgId: otherOrg }, {})).toBeNull();
      }),
    );
    expect(names).toEqual(['actor_load_runs']);
    expect(
      await sent(() =>
        inTx(async (tx) =>
          expect(await load.forSend(tx, SKILL_RUN_KIND, ref, { loaded: run.actor })).toEqual({
            actor: run.actor,
            locked: false,
          }),
        ),
      ),
    ).toEqual([]);
    // A later attempt, or a locked send, loads it afresh.
    expect(
      await sent(() => inTx((tx) => load.forSend(tx, SKILL_RUN_KIND, ref, { loaded: run.actor }), 2)),
    ).toEqual(['actor_load_runs']);
    const locked = await sent(() =>
      inTx(async (tx) => {
        const starting = await load.forSend(tx, SKILL_RUN_KIND, ref, { loaded: run.actor, lock: true });
        expect(starting?.locked).toBe(true);
        expect(starting?.actor.row.version).toBe(1);
      }),
    );
    expect(locked).toEqual(['actor_lock_runs']);
  });

  it('starts a send from an actor the caller read before the transaction, on a first attempt only', async () => {
    const load = stage();
    const run = await createSkillRun(t.app, org);
    const ref = { orgId: org, id: run.actor.row.id };
    const known = new Map([[`runs:${ref.id}`, run.actor]]);
    const inKnowing = async <T>(fn: (tx: ActorTx) => Promise<T>, attempt = 1) =>
      t.app.db.sql.tx(async (sql: Sql) => fn(actorTx(sql, new TxState(known), attempt)));
    expect(
      await sent(() =>
        inKnowing(async (tx) =>
          expect(await load.forSend(tx, RUN_KINDS, ref, {})).toEqual({ actor: run.actor, locked: false }),
        ),
      ),
    ).toEqual([]);
    // Not for another org's id, nor on a later attempt, nor with the lock.
    expect(
      await sent(() => inKnowing((tx) => load.forSend(tx, RUN_KINDS, { ...ref, orgId: otherOrg }, {}))),
    ).toEqual(['actor_load_runs']);
    expect(await sent(() => inKnowing((tx) => load.forSend(tx, RUN_KINDS, ref, {}), 2))).toEqual([
      'actor_load_runs',
    ]);
    expect(await sent(() => inKnowing((tx) => load.forSend(tx, RUN_KINDS, ref, { lock: true })))).toEqual([
      'actor_lock_runs',
    ]);
  });

  it('sends a locked load ahead once however often asked, and a locked send takes it once', async () => {
    const load = stage();
    const run = await createSkillRun(t.app, org);
    const ref = { orgId: org, id: run.actor.row.id };
    const names = await sent(() =>
      inTx(async (tx) => {
        load.loadAhead(tx, RUN_KINDS, ref);
        load.loadAhead(tx, RUN_KINDS, ref);
        const first = await load.forSend(tx, RUN_KINDS, ref, { lock: true });
        expect(first).toMatchObject({ locked: true, actor: { row: { id: ref.id } } });
        // Taken: the next locked send loads anew (a send without lock would not have taken it).
        await load.forSend(tx, RUN_KINDS, ref, { lock: true });
      }),
    );
    expect(names).toEqual(['actor_lock_runs', 'actor_lock_runs']);
  });
});
