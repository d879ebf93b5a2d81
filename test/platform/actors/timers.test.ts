/**
 * Durable timers: written by transitions, fired from the database by the scheduler — also by a new
 * process after a restart — and consumed when stale.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_ITEM_KIND } from '../../../src/features/reviews/review-item-kind.js';
import { SYSTEM } from '../../../src/platform/actors/acting-as.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { createSkillRun, orgIdOf } from '../../helpers/runs.js';

const HOUR = 3_600_000;
const env = { R3_WORKER_CONCURRENCY: '0' };

let database: TestDatabase;
let t: TestApp;
let org: number;

beforeAll(async () => {
  database = await createTestDatabase();
  t = await startTestApp(env, { database });
  // The tests fire timers themselves (runDue), not the background loop.
  await t.app.timers.stop();
  await t.token();
  org = await orgIdOf(t.app);
});
afterAll(async () => {
  await t.close();
  await database.drop();
});

async function openItemOf(app: TestApp, runId: number) {
  return app.app.db.sql.one<{ id: number; status: string; snoozed_until: Date | null }>(
    `select id, status, snoozed_until from review_items where run_id = $1 and kind = 'skill'`,
    [runId],
  );
}

async function snooze(app: TestApp, itemId: number, until: number) {
  const at = new Date(app.clock.now()).toISOString();
  return app.app.actors.transact((tx) =>
    app.app.actors.send(
      tx,
      REVIEW_ITEM_KIND,
      { orgId: org, id: itemId },
      { type: 'SNOOZE', until: new Date(until).toISOString(), by: 'token:abc', at },
      { actingAs: SYSTEM },
    ),
  );
}

/** `n` new open items, each snoozed until `until`: their ids. */
async function snoozedItems(n: number, until: number): Promise<number[]> {
  const items: number[] = [];
  for (let i = 0; i < n; i++) {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const item = await openItemOf(t, actor.row.id);
    expect((await snooze(t, item.id, until)).outcome).toBe('applied');
    items.push(item.id);
  }
  return items;
}

/** How many WAKE transitions each of `items` took (the ones that took any), by id. */
function wakesOf(items: number[]) {
  return t.app.db.sql.query<{ actor_id: number; n: number }>(
    `select actor_id, count(*)::int as n from actor_transitions
      where actor_kind = 'review-item' and event_type = 'WAKE' and actor_id = any($1::bigint[])
      group by actor_id`,
    [items],
  );
}

describe('durable timers', () => {
  it('fire from the database in a new process after a restart', async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const item = await openItemOf(t, actor.row.id);
    const first = t.clock.now() + HOUR;
    expect((await snooze(t, item.id, first)).outcome).toBe('applied');
    // Snoozing again replaces the timer (one per actor and timer id).
    const until = first + HOUR;
    expect((await snooze(t, item.id, until)).outcome).toBe('applied');
    const timers = await t.app.db.sql.query<{ timer_id: string; due_at: Date; event: unknown }>(
      `select timer_id, due_at, event from timers where actor_kind = 'review-item' and actor_id = $1`,
      [item.id],
    );
    expect(timers).toEqual([
      {
        timer_id: 'snooze',
        due_at: new Date(until),
        event: { type: 'WAKE', until: new Date(until).toISOString() },
      },
    ]);

    // "Restart": this process goes away; a new one starts on the same database.
    await t.close();
    t = await startTestApp(env, { database });
    await t.app.timers.stop();
    t.clock.set(until - 1);
    await t.app.timers.runDue();
    expect((await openItemOf(t, actor.row.id)).status).toBe('snoozed');
    t.clock.set(until);
    await t.app.timers.runDue();
    const woken = await openItemOf(t, actor.row.id);
    expect(woken).toMatchObject({ status: 'unassigned', snoozed_until: null });
    const left = await t.app.db.sql.query('select 1 from timers where actor_id = $1', [item.id]);
    expect(left).toHaveLength(0);
    const [log] = await t.app.db.sql.query<{ event_type: string; actor: string; from_state: string }>(
      `select event_type, actor, from_state from actor_transitions
        where actor_kind = 'review-item' and actor_id = $1 order by id desc limit 1`,
      [item.id],
    );
    expect(log).toEqual({ event_type: 'WAKE', actor: 'timer', from_state: 'snoozed' });
  });

  it('are cancelled by the transition that makes them moot', async () => {
    const { actor } = await createSkillRun(t.app, org, { requiresApproval: true });
    const item = await openItemOf(t, actor.row.id);
    await snooze(t, item.id, t.clock.now() + HOUR);
    const at = new Date(t.clock.now()).toISOString();
    await t.app.actors.transact((tx) =>
      t.app.actors.send(
        tx,
        'skill-run',
        { orgId: org, id: actor.row.id },
        { type: 'CANCEL', by: 'token:abc', at },
        { actingAs: SYSTEM },
      ),
    );
    expect((await openItemOf(t, actor.row.id)).status).toBe('cancelled');
    expect(await t.app.db.sql.query('select 1 from timers where actor_id = $1', [item.id])).toHaveLength(0);
  });

  it('are consumed when stale (their actor moved on or is gone)', async () => {
    await t.app.db.sql.query(
      `insert into timers (actor_kind, actor_id, timer_id, org_id, event, due_at, created_at)
       values ('review-item', 999999, 'snooze', $1, '{"type":"WAKE","until":"2020-01-01T00:00:00.000Z"}', $2, $2)`,
      [org, new Date(t.clock.now() - 1).toISOString()],
    );
    expect(await t.app.timers.runDue()).toBe(1);
    expect(await t.app.db.sql.query('select 1 from timers where actor_id = 999999')).toHaveLength(0);
  });

  it('due together fire concurrently, each once, and runDue counts every one', async () => {
    const until = t.clock.now() + HOUR;
    const items = await snoozedItems(24, until);
    t.clock.set(until);
    expect(await t.app.timers.runDue()).toBe(24);
    const wakes = await wakesOf(items);
    expect(wakes.map((w) => w.n)).toEqual(Array(24).fill(1));
    expect(await t.app.timers.runDue()).toBe(0);
  });

  it('in a batch whose write fails for one actor, the others fire; that one is postponed, then fires', async () => {
    const until = t.clock.now() + HOUR;
    const items = await snoozedItems(6, until);
    const bad = items[2] as number;
    // The batch's one statement for the review items fails because of this one row.
    await t.app.db.sql.query(
      `create function fail_review_item() returns trigger language plpgsql as $$
       begin
         if new.id = ${bad} then raise exception 'review item % refused', new.id; end if;
         return new;
       end $$`,
    );
    await t.app.db.sql.query(
      'create trigger fail_review_item before update on review_items for each row execute function fail_review_item()',
    );
    const statuses = async () =>
      (
        await t.app.db.sql.query<{ id: number; status: string }>(
          'select id, status from review_items where id = any($1::bigint[]) order by id',
          [items],
        )
      ).map((r) => (r.id === bad ? `bad:${r.status}` : r.status));
    try {
      t.clock.set(until);
      expect(await t.app.timers.runDue()).toBe(6);
      expect(await statuses()).toEqual(items.map((id) => (id === bad ? 'bad:snoozed' : 'unassigned')));
      const left = await t.app.db.sql.query<{ due_at: Date }>(
        `select due_at from timers where actor_kind = 'review-item' and actor_id = $1`,
        [bad],
      );
      expect(left).toEqual([{ due_at: new Date(until + 30_000) }]);
    } finally {
      await t.app.db.sql.query('drop trigger fail_review_item on review_items');
      await t.app.db.sql.query('drop function fail_review_item()');
    }
    t.clock.set(until + 30_000);
    expect(await t.app.timers.runDue()).toBe(1);
    expect(await statuses()).toEqual(items.map((id) => (id === bad ? 'bad:unassigned' : 'unassigned')));
  });

  it('on two processes, batches (several, at once) fire every timer exactly once', async () => {
    const other = await startTestApp(env, { database });
    await other.app.timers.stop();
    try {
      const until = t.clock.now() + HOUR;
      const items = await snoozedItems(100, until);
      t.clock.set(until);
      other.clock.set(until);
      const [a, b] = await Promise.all([t.app.timers.runDue(), other.app.timers.runDue()]);
      expect(a + b).toBe(100);
      const wakes = await wakesOf(items);
      expect(wakes.map((w) => w.n)).toEqual(Array(100).fill(1));
      expect(
        await t.app.db.sql.query('select 1 from timers where actor_id = any($1::bigint[])', [items]),
      ).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
