/**
 * The review queue through the socket: GET /reviews (fields, order, lanes, pages, snoozes) and
 * POST /reviews/decide|assign|snooze with every success and error code, tenancy (404), the
 * attribution of every change (transition log and audit rows) and the review events in the outbox.
 * The permission matrix, concurrent decisions and the workflow's first gate are in reviews-access.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { fields } from '../../helpers/api.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import {
  footprint,
  ids,
  itemsOf,
  openItem,
  pausedWorkflowRun,
  pendingSkillRun,
  setupReviewOrg,
} from '../../helpers/reviews.js';

let t: TestApp;
let owner: CreatedToken;
let foreign: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  // The tests fire timers themselves (runDue), so a snooze's end is seen before its timer fires.
  await t.app.timers.stop();
  // They read what transitions wrote to the outbox, which the relay deletes as it publishes.
  await t.app.outbox.stop();
  owner = (await setupReviewOrg(t, 'acme', 'ann')).owner;
  await t.token({ org: 'acme', user: 'ann', role: 'pm', scopes: ALL_SCOPES });
  await t.token({ org: 'acme', user: 'bob', role: 'client_reviewer' });
  foreign = (await setupReviewOrg(t, 'other')).owner;
  await t.token({ org: 'other', user: 'olga', role: 'pm' });
});
afterAll(() => t.close());

const get = (path: string, token = owner.token) => t.request('GET', `/api/v1${path}`, { token });
const post = (path: string, body: unknown, token = owner.token) =>
  t.request('POST', `/api/v1${path}`, { token, body });
const decide = (body: Record<string, unknown>, token = owner.token) => post('/reviews/decide', body, token);
const assign = (body: Record<string, unknown>, token = owner.token) => post('/reviews/assign', body, token);
const snooze = (body: Record<string, unknown>, token = owner.token) => post('/reviews/snooze', body, token);
const inFuture = (ms: number) => new Date(t.clock.now() + ms).toISOString();
const HOUR = 3_600_000;

/** Decides every open item of acme, so a test starts from an empty queue. */
async function emptyQueue(): Promise<void> {
  for (;;) {
    const page = await get('/reviews?includeSnoozed=true&limit=200');
    if (page.body.reviews.length === 0) return;
    for (const item of page.body.reviews as Array<{ kind: string; id: number }>) {
      await post(`/runs/${item.id}/cancel`, {});
    }
  }
}

describe('GET /reviews', () => {
  it('lists pending skill runs and paused workflow runs, oldest first, with every field', async () => {
    await emptyQueue();
    const skillRun = await pendingSkillRun(t, owner.token);
    const skillCreated = new Date(t.clock.now()).toISOString();
    t.clock.advance(1_000);
    const workflowRun = await pausedWorkflowRun(t, owner.token);
    const workflowCreated = new Date(t.clock.now()).toISOString();
    t.clock.advance(90_000);

    const res = await get('/reviews');
    expect(res.status).toBe(200);
    const base = t.app.config.baseUrl;
    expect(res.body).toEqual({
      reviews: [
        {
          kind: 'skill',
          id: skillRun,
          title: `Gated draft (run ${skillRun})`,
          // The draft may be in or not yet (the worker writes it when it gets to it).
          summary: expect.toSatisfy((summary) => summary === null || summary === 'Summarize: x'),
          status: 'pending',
          revision: expect.stringMatching(/^[0-9a-z]+\.[0-9a-z]+$/),
          rounds: 0,
          assignedTo: null,
          snoozedUntil: null,
          note: null,
          effectiveAt: null,
          decision: null,
          slug: 'gated',
          pausedAt: null,
          createdAt: skillCreated,
          ageSeconds: 91,
          dueAt: null,
          overdue: false,
          reviewUrl: `${base}/review/runs/${skillRun}`,
          pollUrl: `/api/v1/runs/${skillRun}`,
          required: 1,
          approvals: [],
        },
        {
          kind: 'workflow',
          id: workflowRun,
          title: `Go? (run ${workflowRun})`,
          // Nothing ran before the gate.
          summary: null,
          status: 'paused',
          revision: expect.stringMatching(/^[0-9a-z]+\.[0-9a-z]+$/),
          rounds: 0,
          assignedTo: null,
          snoozedUntil: null,
          note: null,
          effectiveAt: null,
          decision: null,
          slug: 'gate-first',
          pausedAt: 'gate',
          createdAt: workflowCreated,
          ageSeconds: 90,
          dueAt: null,
          overdue: false,
          reviewUrl: `${base}/review/runs/${workflowRun}`,
          pollUrl: `/api/v1/runs/${workflowRun}`,
          required: 1,
          approvals: [],
        },
      ],
      nextCursor: null,
    });
    // The run's own reviewUrl is the item's.
    expect((await get(`/runs/${skillRun}`)).body.reviewUrl).toBe(res.body.reviews[0].reviewUrl);
  });

  it('pages with limit and an opaque cursor', async () => {
    await emptyQueue();
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      runs.push(await pendingSkillRun(t, owner.token));
      if (i % 2 === 0) t.clock.advance(1); // some share a createdAt: the item id breaks the tie
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/reviews?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.reviews.length).toBeLessThanOrEqual(2);
      seen.push(...ids(res.body));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(runs);
    expect(pages).toBe(3);
  });

  it.each([
    ['limit=0', 'query.limit'],
    ['limit=201', 'query.limit'],
    ['limit=ten', 'query.limit'],
    ['cursor=nonsense', 'query.cursor'],
    ['includeSnoozed=yes', 'query.includeSnoozed'],
    ['assignedTo=', 'query.assignedTo'],
  ])('answers 400 naming the field for %s', async (query, field) => {
    const res = await get(`/reviews?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(fields(res.body)).toEqual([field]);
  });

  it('serves lanes: one user, or the unassigned triage lane', async () => {
    await emptyQueue();
    const mine = await pendingSkillRun(t, owner.token);
    const triage = await pendingSkillRun(t, owner.token);
    const bobs = await pendingSkillRun(t, owner.token);
    const routed = await pausedWorkflowRun(t, owner.token, 'routed'); // its gate names ann
    expect((await assign({ kind: 'skill', id: mine, assignedTo: 'ann' })).status).toBe(200);
    expect((await assign({ kind: 'skill', id: bobs, assignedTo: 'bob' })).status).toBe(200);

    expect(ids((await get('/reviews?assignedTo=ann')).body)).toEqual([mine, routed]);
    expect(ids((await get('/reviews?assignedTo=bob')).body)).toEqual([bobs]);
    expect(ids((await get('/reviews?assignedTo=unassigned')).body)).toEqual([triage]);
    expect(ids((await get('/reviews')).body)).toEqual([mine, triage, bobs, routed]);
    // A user with nothing assigned, or no such user: an empty lane (a filter, not a lookup).
    expect((await get('/reviews?assignedTo=nobody')).body).toEqual({ reviews: [], nextCursor: null });
  });

  it('is read:all, and shows only the caller org', async () => {
    await emptyQueue();
    const id = await pendingSkillRun(t, owner.token);
    const theirs = await pendingSkillRun(t, foreign.token);
    expect(ids((await get('/reviews')).body)).toEqual([id]);
    expect(ids((await get('/reviews', foreign.token)).body)).toContain(theirs);
    expect(ids((await get('/reviews', foreign.token)).body)).not.toContain(id);
    const invoker = await t.token({ org: 'acme', scopes: ['run:invoke'] });
    const res = await get('/reviews', invoker.token);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    // read:all is enough to list (deciding needs the approve capability).
    const reader = await t.token({ org: 'acme', role: 'specialist', scopes: ['read:all'] });
    expect(ids((await get('/reviews', reader.token)).body)).toEqual([id]);
    expect((await t.request('GET', '/api/v1/reviews')).status).toBe(401);
  });

  it('drops an item when its run is cancelled, or its draft fails', async () => {
    await emptyQueue();
    const cancelled = await pendingSkillRun(t, owner.token);
    const failing = await pendingSkillRun(t, owner.token, 'gated-strict');
    const kept = await pendingSkillRun(t, owner.token);
    expect(ids((await get('/reviews')).body)).toEqual([cancelled, failing, kept]);
    expect((await post(`/runs/${cancelled}/cancel`, {})).status).toBe(200);
    await t.app.jobs.drain();
    expect((await get(`/runs/${failing}`)).body.status).toBe('failed');
    expect(ids((await get('/reviews?includeSnoozed=true')).body)).toEqual([kept]);
    expect((await itemsOf(t, cancelled)).map((i) => i.status)).toEqual(['cancelled']);
    expect((await itemsOf(t, failing)).map((i) => i.status)).toEqual(['cancelled']);
  });
});

describe('POST /reviews/decide', () => {
  it('approves a pending skill run: the refreshed queue, the reviewer on the run, log and audit', async () => {
    await emptyQueue();
    const id = await pendingSkillRun(t, owner.token);
    const other = await pendingSkillRun(t, owner.token);
    const res = await decide({
      kind: 'skill',
      id,
      action: 'approve',
      reason: 'looks right',
      reviewedBy: 'ann',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      reviews: [expect.objectContaining({ id: other })],
      nextCursor: null,
    });
    const run = (await get(`/runs/${id}`)).body;
    expect(run).toMatchObject({
      status: 'approved',
      reviewState: 'approved',
      review: {
        decision: 'approved',
        by: `token:${owner.id}`,
        onBehalfOf: 'ann',
        note: 'looks right',
        reason: null,
      },
    });
    expect(await itemsOf(t, id)).toMatchObject([{ status: 'decided', open: false }]);
    const log = await t.app.db.sql.query<{
      actor_kind: string;
      event_type: string;
      actor: string;
      api_token_id: string;
    }>(
      `select actor_kind, event_type, actor, api_token_id from actor_transitions
        where (actor_kind = 'skill-run' and actor_id = $1) or (actor_kind = 'review-item' and actor_id = $2)
        order by id`,
      [id, (await itemsOf(t, id))[0]?.id],
    );
    expect(log.filter((l) => l.event_type === 'APPROVE' || l.event_type === 'DECIDE')).toEqual([
      { actor_kind: 'skill-run', event_type: 'APPROVE', actor: `token:${owner.id}`, api_token_id: owner.id },
      { actor_kind: 'review-item', event_type: 'DECIDE', actor: `token:${owner.id}`, api_token_id: owner.id },
    ]);
    const audit = await t.app.db.sql.query(
      `select action, api_token_id, actor, target_kind, target_id, details from audit_log
        where action = 'review.decide' and target_id = $1`,
      [String(id)],
    );
    expect(audit).toEqual([
      {
        action: 'review.decide',
        api_token_id: owner.id,
        actor: `token:${owner.id}`,
        target_kind: 'run',
        target_id: String(id),
        details: expect.objectContaining({
          kind: 'skill',
          action: 'approve',
          reviewedBy: 'ann',
          note: 'looks right',
        }),
      },
    ]);
  });

  it('rejects a pending skill run with the reason', async () => {
    const id = await pendingSkillRun(t, owner.token);
    expect((await decide({ kind: 'skill', id, action: 'reject', reason: 'off topic' })).status).toBe(200);
    expect((await get(`/runs/${id}`)).body).toMatchObject({
      status: 'rejected',
      review: { decision: 'rejected', by: `token:${owner.id}`, reason: 'off topic', note: null },
    });
  });

  it('resumes a paused workflow on approve: it runs on and completes', async () => {
    const id = await pausedWorkflowRun(t, owner.token);
    const res = await decide({ kind: 'workflow', id, action: 'approve' });
    expect(res.status).toBe(200);
    expect(ids(res.body)).not.toContain(id);
    expect((await get(`/runs/${id}`)).body).toMatchObject({ status: 'running', pausedAt: null });
    await t.app.jobs.drain();
    expect((await get(`/runs/${id}`)).body).toMatchObject({ status: 'completed', output: { text: '<x>' } });
    expect(await itemsOf(t, id, 'workflow')).toMatchObject([{ status: 'decided' }]);
  });

  it('cancels a paused workflow on reject', async () => {
    const id = await pausedWorkflowRun(t, owner.token);
    expect((await decide({ kind: 'workflow', id, action: 'reject', reason: 'not now' })).status).toBe(200);
    expect((await get(`/runs/${id}`)).body).toMatchObject({
      status: 'cancelled',
      review: { decision: 'rejected', reason: 'not now' },
    });
    await t.app.jobs.drain();
    expect((await get(`/runs/${id}`)).body.status).toBe('cancelled');
  });

  it('answers 409 to a second decision and changes nothing', async () => {
    const id = await pendingSkillRun(t, owner.token);
    expect((await decide({ kind: 'skill', id, action: 'approve' })).status).toBe(200);
    const before = await footprint(t, owner.token, id);
    for (const action of ['approve', 'reject']) {
      const res = await decide({ kind: 'skill', id, action });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'CONFLICT',
        details: { kind: 'skill', id, status: 'approved' },
      });
    }
    expect(await footprint(t, owner.token, id)).toEqual(before);
  });

  it('answers 409 when the run was cancelled meanwhile, or its draft failed', async () => {
    const cancelled = await pausedWorkflowRun(t, owner.token);
    expect((await post(`/runs/${cancelled}/cancel`, {})).status).toBe(200);
    const failed = await pendingSkillRun(t, owner.token, 'gated-strict');
    await t.app.jobs.drain();
    for (const [kind, id, status] of [
      ['workflow', cancelled, 'cancelled'],
      ['skill', failed, 'failed'],
    ] as const) {
      const before = await footprint(t, owner.token, id, kind);
      const res = await decide({ kind, id, action: 'approve' });
      expect(res.status).toBe(409);
      expect(res.body.error.details).toEqual({ kind, id, status });
      expect(await footprint(t, owner.token, id, kind)).toEqual(before);
    }
  });

  it('answers 409 for a workflow that is running between gates (nothing to decide)', async () => {
    const res = await post('/workflows/gate-first/runs', { input: {} });
    const id = res.body.runId as number;
    const answer = await decide({ kind: 'workflow', id, action: 'approve' });
    expect(answer.status).toBe(409);
    expect(answer.body.error.details.status).toBe('running');
  });

  it('answers 404 for an unknown id, the wrong kind, a mission id with no mission run, and another org', async () => {
    const skillRun = await pendingSkillRun(t, owner.token);
    const theirs = await pendingSkillRun(t, foreign.token);
    for (const body of [
      { kind: 'skill', id: 999_999 },
      { kind: 'workflow', id: skillRun },
      { kind: 'mission', id: skillRun },
      { kind: 'mission', id: 1 },
      { kind: 'skill', id: theirs },
    ]) {
      const res = await decide({ ...body, action: 'approve' });
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await get(`/runs/${theirs}`, foreign.token)).body.status).toBe('pending');
  });

  it.each([
    ['no action', { kind: 'skill', id: 1 }, ['body.action']],
    ['an unknown action', { kind: 'skill', id: 1, action: 'defer' }, ['body.action']],
    ['an unknown kind', { kind: 'proposal', id: 1, action: 'approve' }, ['body.kind']],
    ['a string id', { kind: 'skill', id: '1', action: 'approve' }, ['body.id']],
    ['a fractional id', { kind: 'skill', id: 1.5, action: 'approve' }, ['body.id']],
    ['an unknown field', { kind: 'skill', id: 1, action: 'approve', note: 'x' }, ['body']],
    ['a numeric reason', { kind: 'skill', id: 1, action: 'reject', reason: 3 }, ['body.reason']],
  ])('answers 400 for %s', async (_why, body, expected) => {
    const res = await decide(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(fields(res.body)).toEqual(expected);
  });

  it('answers with the view its query string names', async () => {
    await emptyQueue();
    const mine = await pendingSkillRun(t, owner.token);
    const triage = await pendingSkillRun(t, owner.token);
    const decided = await pendingSkillRun(t, owner.token);
    await assign({ kind: 'skill', id: mine, assignedTo: 'ann' });
    const res = await post('/reviews/decide?assignedTo=unassigned', {
      kind: 'skill',
      id: decided,
      action: 'approve',
    });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([triage]);
  });
});

describe('POST /reviews/assign', () => {
  it('routes an item to a user with a note, and back to triage', async () => {
    await emptyQueue();
    const id = await pendingSkillRun(t, owner.token);
    const res = await assign({ kind: 'skill', id, assignedTo: 'ann', note: 'your area' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      reviews: [expect.objectContaining({ id, assignedTo: 'ann', note: 'your area' })],
      nextCursor: null,
    });
    expect(await openItem(t, id)).toMatchObject({
      status: 'assigned',
      assigned_to: 'ann',
      note: 'your area',
    });

    const back = await assign({ kind: 'skill', id, assignedTo: null });
    expect(back.body.reviews).toEqual([expect.objectContaining({ id, assignedTo: null, note: null })]);
    expect(await openItem(t, id)).toMatchObject({ status: 'unassigned', assigned_to: null });

    const audit = await t.app.db.sql.query(
      `select api_token_id, actor, details from audit_log where action = 'review.assign' and target_id = $1 order by id`,
      [String(id)],
    );
    expect(audit).toEqual([
      {
        api_token_id: owner.id,
        actor: `token:${owner.id}`,
        details: { kind: 'skill', reviewItemId: expect.any(Number), assignedTo: 'ann', note: 'your area' },
      },
      {
        api_token_id: owner.id,
        actor: `token:${owner.id}`,
        details: { kind: 'skill', reviewItemId: expect.any(Number), assignedTo: null, note: null },
      },
    ]);
    const log = await t.app.db.sql.query(
      `select actor, api_token_id, to_state from actor_transitions
        where actor_kind = 'review-item' and actor_id = $1 and event_type = 'ASSIGN' order by id`,
      [(await openItem(t, id)).id],
    );
    expect(log).toEqual([
      { actor: `token:${owner.id}`, api_token_id: owner.id, to_state: 'assigned' },
      { actor: `token:${owner.id}`, api_token_id: owner.id, to_state: 'unassigned' },
    ]);
  });

  it('answers 400 naming body.assignedTo for someone who is not a user of the org', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const before = await footprint(t, owner.token, id);
    for (const assignedTo of ['nobody', 'olga']) {
      const res = await assign({ kind: 'skill', id, assignedTo });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(fields(res.body)).toEqual(['body.assignedTo']);
    }
    expect(await footprint(t, owner.token, id)).toEqual(before);
  });

  it.each([
    ['no assignedTo', { kind: 'skill', id: 1 }, ['body.assignedTo']],
    ['an empty assignedTo', { kind: 'skill', id: 1, assignedTo: '' }, ['body.assignedTo']],
    ['a numeric note', { kind: 'skill', id: 1, assignedTo: null, note: 1 }, ['body.note']],
    ['no id', { kind: 'skill', assignedTo: null }, ['body.id']],
  ])('answers 400 for %s', async (_why, body, expected) => {
    const res = await assign(body);
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(expected);
  });

  it('answers 404 for unknown and foreign items, and 409 for a decided one', async () => {
    const theirs = await pendingSkillRun(t, foreign.token);
    expect((await assign({ kind: 'skill', id: theirs, assignedTo: null })).status).toBe(404);
    expect((await assign({ kind: 'skill', id: 987_654, assignedTo: null })).status).toBe(404);
    expect((await assign({ kind: 'mission', id: 1, assignedTo: null })).status).toBe(404);
    const id = await pendingSkillRun(t, owner.token);
    await decide({ kind: 'skill', id, action: 'reject' });
    const before = await footprint(t, owner.token, id);
    const res = await assign({ kind: 'skill', id, assignedTo: 'ann' });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual({ kind: 'skill', id, status: 'rejected' });
    expect(await footprint(t, owner.token, id)).toEqual(before);
  });
});

describe('POST /reviews/snooze', () => {
  it('hides the item until then; it is back by the clock alone, and the timer tidies it', async () => {
    await emptyQueue();
    const id = await pendingSkillRun(t, owner.token);
    await assign({ kind: 'skill', id, assignedTo: 'ann' });
    const until = inFuture(HOUR);
    const res = await snooze({ kind: 'skill', id, until });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, reviews: [], nextCursor: null });
    expect((await get('/reviews?assignedTo=ann')).body.reviews).toEqual([]);
    const shown = await get('/reviews?includeSnoozed=true');
    expect(shown.body.reviews).toEqual([
      expect.objectContaining({ id, snoozedUntil: until, assignedTo: 'ann' }),
    ]);
    expect(await openItem(t, id)).toMatchObject({ status: 'snoozed', snoozed_until: new Date(until) });

    t.clock.advance(HOUR - 1);
    expect((await get('/reviews')).body.reviews).toEqual([]);
    t.clock.advance(1);
    // Back without anyone touching it: the query compares snoozed_until with the clock.
    expect((await get('/reviews?assignedTo=ann')).body.reviews).toEqual([
      expect.objectContaining({ id, snoozedUntil: until }),
    ]);
    expect(await openItem(t, id)).toMatchObject({ status: 'snoozed' });

    // The durable timer then wakes the item (and publishes `woken`).
    expect(await t.app.timers.runDue()).toBe(1);
    expect(await openItem(t, id)).toMatchObject({
      status: 'assigned',
      snoozed_until: null,
      assigned_to: 'ann',
    });
    expect((await get('/reviews?assignedTo=ann')).body.reviews).toEqual([
      expect.objectContaining({ id, snoozedUntil: null }),
    ]);
    const wake = await t.app.db.sql.query(
      `select actor from actor_transitions where actor_kind = 'review-item' and actor_id = $1 and event_type = 'WAKE'`,
      [(await openItem(t, id)).id],
    );
    expect(wake).toEqual([{ actor: 'timer' }]);
  });

  it('is back after the timer even when the clock is read before it', async () => {
    const id = await pendingSkillRun(t, owner.token);
    await snooze({ kind: 'skill', id, until: inFuture(60_000) });
    expect(ids((await get('/reviews')).body)).not.toContain(id);
    t.clock.advance(60_000);
    expect(await t.app.timers.runDue()).toBeGreaterThanOrEqual(1);
    expect(ids((await get('/reviews')).body)).toContain(id);
    expect(await openItem(t, id)).toMatchObject({ status: 'unassigned', snoozed_until: null });
  });

  it('snoozes again (replacing the timer), and deciding a snoozed item cancels its timer', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const itemId = (await openItem(t, id)).id;
    const timers = () =>
      t.app.db.sql.query(`select due_at from timers where actor_kind = 'review-item' and actor_id = $1`, [
        itemId,
      ]);
    await snooze({ kind: 'skill', id, until: inFuture(HOUR) });
    const later = inFuture(2 * HOUR);
    expect((await snooze({ kind: 'skill', id, until: later })).status).toBe(200);
    expect(await timers()).toEqual([{ due_at: new Date(later) }]);
    t.clock.advance(HOUR);
    expect(await t.app.timers.runDue()).toBe(0);
    expect(ids((await get('/reviews')).body)).not.toContain(id);
    expect((await decide({ kind: 'skill', id, action: 'approve' })).status).toBe(200);
    expect(await timers()).toEqual([]);
    expect(await itemsOf(t, id)).toMatchObject([{ status: 'decided', snoozed_until: null }]);
  });

  it.each([
    ['in the past', -1_000, ['body.until']],
    ['now', 0, ['body.until']],
  ])('answers 400 for an until %s, changing nothing', async (_why, offset, expected) => {
    const id = await pendingSkillRun(t, owner.token);
    const before = await footprint(t, owner.token, id);
    const res = await snooze({ kind: 'skill', id, until: inFuture(offset) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(fields(res.body)).toEqual(expected);
    expect(await footprint(t, owner.token, id)).toEqual(before);
  });

  it.each([
    ['not a timestamp', 'tomorrow'],
    ['a date without time', '2030-01-01'],
    ['a number', 1_900_000_000],
  ])('answers 400 for an until that is %s', async (_why, until) => {
    const res = await snooze({ kind: 'skill', id: 1, until });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['body.until']);
  });

  it('accepts an offset and stores the instant in UTC', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const instant = new Date(t.clock.now() + HOUR);
    instant.setUTCMilliseconds(0);
    const local = `${new Date(instant.getTime() + 2 * HOUR).toISOString().slice(0, 19)}+02:00`;
    expect((await snooze({ kind: 'skill', id, until: local })).status).toBe(200);
    expect(await openItem(t, id)).toMatchObject({ snoozed_until: instant });
  });

  it('answers 404 for a foreign item and 409 for a cancelled run', async () => {
    const theirs = await pendingSkillRun(t, foreign.token);
    expect((await snooze({ kind: 'skill', id: theirs, until: inFuture(HOUR) })).status).toBe(404);
    const id = await pendingSkillRun(t, owner.token);
    await post(`/runs/${id}/cancel`, {});
    const res = await snooze({ kind: 'skill', id, until: inFuture(HOUR) });
    expect(res.status).toBe(409);
    expect(res.body.error.details.status).toBe('cancelled');
  });
});

describe('review events', () => {
  it('puts one event per transition in the outbox, under evt.<org>.review.<itemId>.<event>', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const item = await openItem(t, id);
    const until = inFuture(HOUR);
    await assign({ kind: 'skill', id, assignedTo: 'ann', note: 'n' });
    await snooze({ kind: 'skill', id, until });
    t.clock.advance(HOUR);
    await t.app.timers.runDue();
    await decide({ kind: 'skill', id, action: 'reject', reason: 'no' });
    const orgId = (await t.app.db.sql.one<{ id: number }>(`select id from orgs where slug = 'acme'`)).id;
    const rows = await t.app.db.sql.query<{
      subject: string;
      event_id: string;
      payload: Record<string, unknown>;
    }>(`select subject, event_id, payload from outbox_messages where subject like $1 order by id, ord`, [
      `evt.${orgId}.review.${item.id}.%`,
    ]);
    expect(rows.map((r) => r.subject.split('.').at(-1))).toEqual([
      'opened',
      'assigned',
      'snoozed',
      'woken',
      'decided',
    ]);
    for (const row of rows) {
      expect(row.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.payload.eventId).toBe(row.event_id);
    }
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(rows.length);
    const by = `token:${owner.id}`;
    expect(rows.map((r) => r.payload)).toEqual([
      expect.objectContaining({ event: 'opened', status: 'unassigned', assignedTo: null, by }),
      expect.objectContaining({ event: 'assigned', status: 'assigned', assignedTo: 'ann', note: 'n', by }),
      expect.objectContaining({ event: 'snoozed', status: 'snoozed', snoozedUntil: until, by }),
      expect.objectContaining({ event: 'woken', status: 'assigned', snoozedUntil: null, by: 'timer' }),
      expect.objectContaining({
        event: 'decided',
        status: 'decided',
        decision: 'reject',
        revision: null,
        by,
      }),
    ]);
    expect(rows[1]?.payload).toEqual({
      eventId: rows[1]?.event_id,
      orgId,
      reviewItemId: item.id,
      kind: 'skill',
      runId: id,
      event: 'assigned',
      title: `Gated draft (run ${id})`,
      summary: expect.toSatisfy((summary) => summary === null || summary === 'Summarize: x'),
      status: 'assigned',
      // The item's second version: its creation wrote the first.
      revision: `${item.id.toString(36)}.2`,
      assignedTo: 'ann',
      snoozedUntil: null,
      note: 'n',
      dueAt: null,
      decision: null,
      edited: false,
      reason: null,
      by,
      at: expect.any(String),
    });
  });

  it('publishes a cancelled event when the run goes away', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const item = await openItem(t, id);
    await post(`/runs/${id}/cancel`, {});
    const rows = await t.app.db.sql.query<{ subject: string }>(
      `select subject from outbox_messages where subject like $1 order by id, ord`,
      [`%.review.${item.id}.%`],
    );
    expect(rows.map((r) => r.subject.split('.').at(-1))).toEqual(['opened', 'cancelled']);
  });
});
