/**
 * Review deadlines through the socket (decisions §16): `dueAt` from the policy in force, the queue's
 * `sort=due` (soonest first, none last, pages) and `overdue` views, their validation, tenancy, and the
 * deadline's durable timers fired by the clock — the reminder once, overdue, escalation (once),
 * rejection as `system:timeout` — with their events and ledger entries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { encodeTimeCursor } from '../../../src/platform/http/pagination.js';
import { fields, orgIdOf } from '../../helpers/api.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill } from '../../helpers/resources.js';
import { ids, openItem, pendingSkillRun, setupReviewOrg } from '../../helpers/reviews.js';

let t: TestApp;
let owner: CreatedToken;
let foreign: CreatedToken;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  // The tests fire timers themselves (runDue) and read the outbox, which the relay would empty.
  await t.app.timers.stop();
  await t.app.outbox.stop();
  owner = (await setupReviewOrg(t, 'acme')).owner;
  await t.token({ org: 'acme', user: 'ann', role: 'pm', scopes: ALL_SCOPES });
  foreign = (await setupReviewOrg(t, 'other')).owner;
  const policies = [
    { slug: 'hourly', name: 'Hourly', dueIn: '1h', remindBefore: '15m' },
    {
      slug: 'escalating',
      name: 'Escalating',
      dueIn: '2h',
      remindBefore: '30m',
      onTimeout: 'escalate',
      escalateTo: { users: ['ann'] },
    },
    { slug: 'reject', name: 'Rejecting', dueIn: '30m', onTimeout: 'reject' },
  ];
  for (const policy of policies) {
    const res = await t.request('POST', '/api/v1/review-policies', { token: owner.token, body: policy });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await createSkill(t, owner.token, {
      slug: `gated-${policy.slug}`,
      requiresApproval: true,
      reviewPolicy: policy.slug,
    });
  }
});
afterAll(() => t.close());

const get = (path: string, token = owner.token) => t.request('GET', `/api/v1${path}`, { token });
const iso = (ms: number) => new Date(ms).toISOString();

/** Cancels every open item of acme, so a test starts from an empty queue. */
async function emptyQueue(): Promise<void> {
  for (;;) {
    const page = await get('/reviews?includeSnoozed=true&limit=200');
    if (page.body.reviews.length === 0) return;
    for (const item of page.body.reviews as Array<{ id: number }>) {
      await t.request('POST', `/api/v1/runs/${item.id}/cancel`, { token: owner.token, body: {} });
    }
  }
}

/** Every page of `path` (a `sort=due` or default list) followed through its cursors. */
async function allPages(path: string): Promise<number[]> {
  const seen: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(`${path}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...ids(res.body));
    cursor = res.body.nextCursor;
  } while (cursor);
  return seen;
}

/** The review events item `itemId` put in the outbox, by change name. */
async function eventsOf(itemId: number): Promise<Array<{ event: string; payload: Record<string, unknown> }>> {
  const orgId = await orgIdOf(t, 'acme');
  const rows = await t.app.db.sql.query<{ subject: string; payload: Record<string, unknown> }>(
    'select subject, payload from outbox_messages where subject like $1 order by id, ord',
    [`evt.${orgId}.review.${itemId}.%`],
  );
  return rows.map((r) => ({ event: r.subject.split('.').at(-1) as string, payload: r.payload }));
}

/** The pending timers of item `itemId`, by id. */
async function timersOf(itemId: number): Promise<Record<string, string>> {
  const rows = await t.app.db.sql.query<{ timer_id: string; due_at: Date }>(
    `select timer_id, due_at from timers where actor_kind = 'review-item' and actor_id = $1`,
    [itemId],
  );
  return Object.fromEntries(rows.map((r) => [r.timer_id, r.due_at.toISOString()]));
}

/** The ledger of an item opened by the owner and rejected at its deadline (`onTimeout: reject`). */
const timedOutLedger = () => [
  { event: 'opened', by: `token:${owner.id}` },
  { event: 'timeout', by: 'timer' },
  { event: 'decided', by: 'system:timeout' },
];

/** The ledger's events for run `id` (a skill item). */
async function ledgerOf(id: number): Promise<Array<{ event: string; by: string }>> {
  const res = await get(`/audit/reviews?kind=skill&id=${id}&limit=200`);
  expect(res.status).toBe(200);
  return res.body.entries.map((e: { event: string; by: string }) => ({ event: e.event, by: e.by }));
}

describe('dueAt and the due views', () => {
  it('an item opens due dueIn after it opened, by the policy in force; none without one', async () => {
    await emptyQueue();
    const opened = t.clock.now();
    const hourly = await pendingSkillRun(t, owner.token, 'gated-hourly');
    const plain = await pendingSkillRun(t, owner.token);
    const one = await get(`/reviews/skill/${hourly}`);
    expect(one.body.review).toMatchObject({ dueAt: iso(opened + HOUR), overdue: false });
    expect((await get(`/reviews/skill/${plain}`)).body.review).toMatchObject({ dueAt: null, overdue: false });
    // The reminder and the deadline are durable timers of the item.
    const item = await openItem(t, hourly);
    expect(await timersOf(item.id)).toEqual({ due_soon: iso(opened + 45 * MINUTE), due: iso(opened + HOUR) });
    expect(await timersOf((await openItem(t, plain)).id)).toEqual({});
  });

  it('sort=due: soonest first, items without a due time last (in the order they opened), across pages', async () => {
    await emptyQueue();
    const a = await pendingSkillRun(t, owner.token); // none
    t.clock.advance(1_000);
    const b = await pendingSkillRun(t, owner.token, 'gated-escalating'); // +2h
    t.clock.advance(1_000);
    const c = await pendingSkillRun(t, owner.token, 'gated-hourly'); // +1h
    t.clock.advance(1_000);
    const d = await pendingSkillRun(t, owner.token); // none
    t.clock.advance(1_000);
    const e = await pendingSkillRun(t, owner.token, 'gated-reject'); // +30m
    t.clock.advance(1_000);
    const f = await pendingSkillRun(t, owner.token, 'gated-hourly'); // +1h, after c
    expect(ids((await get('/reviews?sort=due')).body)).toEqual([e, c, f, b, a, d]);
    expect(ids((await get('/reviews')).body)).toEqual([a, b, c, d, e, f]);
    for (const limit of [1, 2, 4]) {
      expect(await allPages(`/reviews?sort=due&limit=${limit}`)).toEqual([e, c, f, b, a, d]);
    }
    // A lane in due order.
    expect(ids((await get('/reviews?sort=due&assignedTo=unassigned')).body)).toEqual([e, c, f, b, a, d]);
    // The other org sees none of them, in either order.
    expect(ids((await get('/reviews?sort=due', foreign.token)).body)).toEqual([]);
    expect((await get(`/reviews/skill/${e}`, foreign.token)).status).toBe(404);
  });

  it('overdue=true lists what is due by now, overdue=false the rest; items say overdue', async () => {
    await emptyQueue();
    const opened = t.clock.now();
    const strict = await pendingSkillRun(t, owner.token, 'gated-reject'); // +30m
    const hourly = await pendingSkillRun(t, owner.token, 'gated-hourly'); // +1h
    const plain = await pendingSkillRun(t, owner.token);
    expect(ids((await get('/reviews?overdue=true')).body)).toEqual([]);
    t.clock.set(opened + 30 * MINUTE);
    // Due at exactly now counts as overdue (the timer has not fired: the clock decides).
    const due = await get('/reviews?overdue=true&sort=due');
    expect(ids(due.body)).toEqual([strict]);
    expect(due.body.reviews[0]).toMatchObject({ dueAt: iso(opened + 30 * MINUTE), overdue: true });
    const notDue = await get('/reviews?overdue=false&sort=due');
    expect(ids(notDue.body)).toEqual([hourly, plain]);
    expect(notDue.body.reviews.map((r: { overdue: boolean }) => r.overdue)).toEqual([false, false]);
    t.clock.set(opened + 2 * HOUR);
    expect(ids((await get('/reviews?overdue=true')).body)).toEqual([strict, hourly]);
    expect(ids((await get('/reviews?overdue=true', foreign.token)).body)).toEqual([]);
  });
});

describe('the deadline timers', () => {
  it('reminds once, then overdue with onTimeout none: events, ledger, nothing more', async () => {
    await emptyQueue();
    const opened = t.clock.now();
    const id = await pendingSkillRun(t, owner.token, 'gated-hourly');
    const item = await openItem(t, id);
    t.clock.set(opened + 45 * MINUTE - 1);
    await t.app.timers.runDue();
    expect((await eventsOf(item.id)).map((e) => e.event)).toEqual(['opened']);
    t.clock.set(opened + 45 * MINUTE);
    await t.app.timers.runDue();
    await t.app.timers.runDue();
    expect(await timersOf(item.id)).toEqual({ due: iso(opened + HOUR) });
    t.clock.set(opened + HOUR);
    await t.app.timers.runDue();
    const events = await eventsOf(item.id);
    expect(events.map((e) => e.event)).toEqual(['opened', 'due_soon', 'overdue']);
    expect(events[1]?.payload).toMatchObject({ by: 'timer', dueAt: iso(opened + HOUR), assignedTo: null });
    expect(await timersOf(item.id)).toEqual({});
    const review = (await get(`/reviews/skill/${id}`)).body.review;
    expect(review).toMatchObject({ status: 'pending', overdue: true, assignedTo: null });
    expect((await ledgerOf(id)).map((e) => e.event)).toEqual(['opened']);
  });

  it('escalates once: assigned to escalateTo with the note escalated, due one dueIn later, then only overdue', async () => {
    await emptyQueue();
    const opened = t.clock.now();
    const id = await pendingSkillRun(t, owner.token, 'gated-escalating');
    const item = await openItem(t, id);
    const before = (await get(`/reviews/skill/${id}`)).body.review.revision;
    t.clock.set(opened + 2 * HOUR);
    expect(await t.app.timers.runDue()).toBe(2); // the reminder (late) and the deadline, in due order
    const review = (await get(`/reviews/skill/${id}`)).body.review;
    expect(review).toMatchObject({
      assignedTo: 'ann',
      note: 'escalated',
      dueAt: iso(opened + 4 * HOUR),
      overdue: false,
    });
    expect(review.revision).not.toBe(before);
    expect(await timersOf(item.id)).toEqual({ due: iso(opened + 4 * HOUR) });
    expect(ids((await get('/reviews?assignedTo=ann')).body)).toEqual([id]);
    t.clock.set(opened + 4 * HOUR);
    await t.app.timers.runDue();
    expect((await get(`/reviews/skill/${id}`)).body.review).toMatchObject({
      assignedTo: 'ann',
      overdue: true,
    });
    expect(await timersOf(item.id)).toEqual({});
    const events = await eventsOf(item.id);
    expect(events.map((e) => e.event)).toEqual(['opened', 'due_soon', 'overdue', 'escalated', 'overdue']);
    expect(events[3]?.payload).toMatchObject({
      assignedTo: 'ann',
      note: 'escalated',
      by: 'timer',
      dueAt: iso(opened + 4 * HOUR),
    });
    expect(await ledgerOf(id)).toEqual([
      { event: 'opened', by: `token:${owner.id}` },
      { event: 'escalated', by: 'timer' },
    ]);
  });

  it('onTimeout reject: the run is rejected as system:timeout, the item closes, the ledger says timeout then decided', async () => {
    await emptyQueue();
    const opened = t.clock.now();
    const id = await pendingSkillRun(t, owner.token, 'gated-reject');
    const item = await openItem(t, id);
    t.clock.set(opened + 30 * MINUTE);
    await t.app.timers.runDue();
    const run = (await get(`/runs/${id}`)).body;
    expect(run.status).toBe('rejected');
    expect(run.review).toMatchObject({
      decision: 'rejected',
      by: 'system:timeout',
      reason: `not decided by ${iso(opened + 30 * MINUTE)}`,
    });
    expect((await get(`/reviews/skill/${id}`)).body.review).toMatchObject({
      status: 'decided',
      revision: null,
    });
    expect((await eventsOf(item.id)).map((e) => e.event)).toEqual([
      'opened',
      'overdue',
      'timeout',
      'decided',
    ]);
    expect(await ledgerOf(id)).toEqual(timedOutLedger());
    const audit = await t.app.db.sql.query<{ action: string; actor: string }>(
      `select action, actor from audit_log where action = 'review.timeout' and target_id = $1`,
      [String(id)],
    );
    expect(audit).toEqual([{ action: 'review.timeout', actor: 'system:timeout' }]);
  });

  it('many due together fire in batches: each escalation and rejection once, events in order, the ledger valid', async () => {
    await emptyQueue();
    const opened = t.clock.now();
    const escalating: number[] = [];
    for (let i = 0; i < 40; i++) escalating.push(await pendingSkillRun(t, owner.token, 'gated-escalating'));
    const rejecting: number[] = [];
    for (let i = 0; i < 3; i++) rejecting.push(await pendingSkillRun(t, owner.token, 'gated-reject'));
    t.clock.set(opened + 2 * HOUR);
    // 40 reminders and deadlines (each item's reminder first), 3 deadlines that reject.
    expect(await t.app.timers.runDue()).toBe(83);
    for (const id of escalating) {
      const item = await openItem(t, id);
      expect((await eventsOf(item.id)).map((e) => e.event)).toEqual([
        'opened',
        'due_soon',
        'overdue',
        'escalated',
      ]);
      expect(await ledgerOf(id)).toEqual([
        { event: 'opened', by: `token:${owner.id}` },
        { event: 'escalated', by: 'timer' },
      ]);
      expect(await timersOf(item.id)).toEqual({ due: iso(opened + 4 * HOUR) });
    }
    for (const id of rejecting) {
      expect((await get(`/runs/${id}`)).body.status).toBe('rejected');
      expect(await ledgerOf(id)).toEqual(timedOutLedger());
    }
    expect(await t.app.ledger.verify('acme')).toMatchObject({ ok: true, brokenAt: null });
  });

  it('a decision before the deadline removes its timers; a decided item takes no deadline event', async () => {
    await emptyQueue();
    const id = await pendingSkillRun(t, owner.token, 'gated-escalating');
    const item = await openItem(t, id);
    expect(Object.keys(await timersOf(item.id)).sort()).toEqual(['due', 'due_soon']);
    const res = await t.request('POST', '/api/v1/reviews/decide', {
      token: owner.token,
      body: { kind: 'skill', id, action: 'approve' },
    });
    expect(res.status).toBe(200);
    expect(await timersOf(item.id)).toEqual({});
    t.clock.advance(5 * HOUR);
    expect(await t.app.timers.runDue()).toBe(0);
    expect((await eventsOf(item.id)).map((e) => e.event)).toEqual(['opened', 'decided']);
  });
});

describe('GET /reviews: the due views refuse what they cannot read', () => {
  it.each([
    ['an unknown sort', '/reviews?sort=soon', 'query.sort'],
    ['an empty sort', '/reviews?sort=', 'query.sort'],
    ['overdue that is not a boolean', '/reviews?overdue=yes', 'query.overdue'],
    ['a cursor that is no cursor', '/reviews?sort=due&cursor=abc', 'query.cursor'],
  ])('400 for %s, naming the field', async (_why, path, field) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(fields(res.body)).toContain(field);
  });

  it('400 for a cursor of the other order (an age cursor with sort=due, a due cursor without)', async () => {
    await pendingSkillRun(t, owner.token);
    await pendingSkillRun(t, owner.token);
    const byAge = await get('/reviews?limit=1');
    expect(byAge.status).toBe(200);
    const byDue = await get('/reviews?limit=1&sort=due');
    expect(byDue.status).toBe(200);
    expect(byDue.body.nextCursor).not.toBe(byAge.body.nextCursor);
    const mixed1 = await get(`/reviews?sort=due&cursor=${byAge.body.nextCursor}`);
    expect(mixed1.status).toBe(400);
    expect(fields(mixed1.body)).toEqual(['query.cursor']);
    const mixed2 = await get(`/reviews?cursor=${byDue.body.nextCursor}`);
    expect(mixed2.status).toBe(400);
    expect(fields(mixed2.body)).toEqual(['query.cursor']);
    // The age cursor still works in its own order.
    expect((await get(`/reviews?cursor=${encodeTimeCursor(new Date(0), 1)}`)).status).toBe(200);
  });

  it('a POST answers the refreshed queue in the view its query names; a bad view is 400 and decides nothing', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const bad = await t.request('POST', '/api/v1/reviews/decide?sort=nope', {
      token: owner.token,
      body: { kind: 'skill', id, action: 'approve' },
    });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(['query.sort']);
    expect((await get(`/runs/${id}`)).body.status).toBe('pending');
    const ok = await t.request('POST', '/api/v1/reviews/decide?sort=due&overdue=false', {
      token: owner.token,
      body: { kind: 'skill', id, action: 'approve' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.reviews.map((r: { id: number }) => r.id)).not.toContain(id);
  });
});
