/**
 * The review queue's guards and races through the socket: the permission matrix of decide, assign
 * and snooze (the approve capability, checked before anything dispatches: a refused call changes
 * nothing), concurrent decisions (exactly one wins), and a workflow whose first step is a gate
 * (answers `running`, then reaches the gate through the worker and enters the queue).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import type { Role, Scope } from '../../../src/platform/auth/principal.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { footprint, ids, itemsOf, openItem, pendingSkillRun, setupReviewOrg } from '../../helpers/reviews.js';

let t: TestApp;
let owner: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  await t.app.timers.stop();
  // Footprints count outbox rows, which the relay deletes as it publishes.
  await t.app.outbox.stop();
  owner = (await setupReviewOrg(t, 'acme')).owner;
  await t.token({ org: 'acme', user: 'ann', role: 'pm' });
});
afterAll(() => t.close());

const post = (path: string, body: unknown, token: string) =>
  t.request('POST', `/api/v1${path}`, { token, body });

/** Each endpoint's body for the item of run `id`. */
const calls = {
  decide: (id: number) => ({ kind: 'skill', id, action: 'approve', reason: 'ok' }),
  assign: (id: number) => ({ kind: 'skill', id, assignedTo: 'ann', note: 'yours' }),
  snooze: (id: number) => ({ kind: 'skill', id, until: new Date(t.clock.now() + 60_000).toISOString() }),
} as const;
type Endpoint = keyof typeof calls;
const ENDPOINTS = Object.keys(calls) as Endpoint[];

const WITHOUT_APPROVE: Scope[] = ['read:all', 'run:invoke', 'write:resources'];

const matrix: Array<{ role: Role; scopes: Scope[]; allowed: boolean; why: string }> = [
  { role: 'owner', scopes: ALL_SCOPES, allowed: true, why: 'approving role with run:approve' },
  { role: 'pm', scopes: ALL_SCOPES, allowed: true, why: 'approving role with run:approve' },
  {
    role: 'client_reviewer',
    scopes: ['read:all', 'run:approve'],
    allowed: true,
    why: 'approving role with run:approve',
  },
  { role: 'owner', scopes: WITHOUT_APPROVE, allowed: false, why: 'no run:approve' },
  { role: 'pm', scopes: WITHOUT_APPROVE, allowed: false, why: 'no run:approve' },
  { role: 'client_reviewer', scopes: ['read:all'], allowed: false, why: 'no run:approve' },
  { role: 'specialist', scopes: ALL_SCOPES, allowed: false, why: 'a draft-only role, even with run:approve' },
  {
    role: 'specialist',
    scopes: ['run:approve'],
    allowed: false,
    why: 'a draft-only role, even with run:approve',
  },
];

const cases = matrix.flatMap((row) => ENDPOINTS.map((endpoint) => ({ ...row, endpoint })));

describe('the approve capability', () => {
  it.each(cases)('$endpoint by $role with [$scopes]: $why', async ({ role, scopes, allowed, endpoint }) => {
    const caller = await t.token({ org: 'acme', role, scopes, user: `${role}-${scopes.length}` });
    const id = await pendingSkillRun(t, owner.token);
    const before = await footprint(t, owner.token, id);
    const res = await post(`/reviews/${endpoint}`, calls[endpoint](id), caller.token);
    if (!allowed) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.details).toMatchObject({ requiredScope: ['run:approve'], role });
      // Refused before dispatch: the run, its item and every log are as they were.
      expect(await footprint(t, owner.token, id)).toEqual(before);
      return;
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ok).toBe(true);
    const by = `token:${caller.id}`;
    if (endpoint === 'decide') {
      expect((await t.request('GET', `/api/v1/runs/${id}`, { token: owner.token })).body).toMatchObject({
        status: 'approved',
        review: { by, note: 'ok' },
      });
    } else {
      expect(await openItem(t, id)).toMatchObject(
        endpoint === 'assign' ? { status: 'assigned', assigned_to: 'ann' } : { status: 'snoozed' },
      );
    }
    const audit = await t.app.db.sql.query(
      `select api_token_id, actor from audit_log where action = $1 and target_id = $2`,
      [`review.${endpoint}`, String(id)],
    );
    expect(audit).toEqual([{ api_token_id: caller.id, actor: by }]);
  });

  it('is checked before the body: a bad body from a refused caller is 403, not 400', async () => {
    const specialist = await t.token({ org: 'acme', role: 'specialist', scopes: ALL_SCOPES });
    for (const endpoint of ENDPOINTS) {
      expect((await post(`/reviews/${endpoint}`, { nonsense: true }, specialist.token)).status).toBe(403);
    }
  });

  it('needs a token at all: 401 without one', async () => {
    const res = await t.request('POST', '/api/v1/reviews/decide', { body: calls.decide(1) });
    expect(res.status).toBe(401);
  });
});

describe('concurrent decisions', () => {
  it('let exactly one of ten reviewers win; the run is decided once', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const itemId = (await openItem(t, id)).id;
    const reviewers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.token({
          org: 'acme',
          role: i % 2 ? 'pm' : 'client_reviewer',
          user: `racer-${i}`,
          scopes: ALL_SCOPES,
        }),
      ),
    );
    const answers = await Promise.all(
      reviewers.map((r, i) =>
        post('/reviews/decide', { kind: 'skill', id, action: i % 2 ? 'approve' : 'reject' }, r.token),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect(answer.body.error.code).toBe('CONFLICT');
    }
    const winner = reviewers[answers.findIndex((a) => a.status === 200)] as CreatedToken;
    const run = (await t.request('GET', `/api/v1/runs/${id}`, { token: owner.token })).body;
    expect(['approved', 'rejected']).toContain(run.status);
    expect(run.review.by).toBe(`token:${winner.id}`);
    const decisions = await t.app.db.sql.query<{ n: number }>(
      `select count(*)::int as n from actor_transitions
        where (actor_kind = 'skill-run' and actor_id = $1 and event_type in ('APPROVE', 'REJECT'))
           or (actor_kind = 'review-item' and actor_id = $2 and event_type = 'DECIDE')`,
      [id, itemId],
    );
    expect(decisions[0]?.n).toBe(2);
    const events = await t.app.db.sql.query<{ event: string }>(
      `select event from run_events where run_id = $1 and event in ('approved', 'rejected')`,
      [id],
    );
    expect(events).toHaveLength(1);
    expect(await itemsOf(t, id)).toMatchObject([{ status: 'decided', version: 2 }]);
    const audit = await t.app.db.sql.query(
      `select api_token_id from audit_log where action = 'review.decide' and target_id = $1`,
      [String(id)],
    );
    expect(audit).toEqual([{ api_token_id: winner.id }]);
  });

  it('let a decision and a concurrent cancel of the run settle on one outcome', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const [decided, cancelled] = await Promise.all([
      post('/reviews/decide', { kind: 'skill', id, action: 'approve' }, owner.token),
      post(`/runs/${id}/cancel`, {}, owner.token),
    ]);
    expect([decided.status, cancelled.status].sort()).toEqual([200, 409]);
    const run = (await t.request('GET', `/api/v1/runs/${id}`, { token: owner.token })).body;
    const items = await itemsOf(t, id);
    expect(items).toHaveLength(1);
    if (decided.status === 200) {
      expect(run.status).toBe('approved');
      expect(items[0]?.status).toBe('decided');
    } else {
      expect(run.status).toBe('cancelled');
      expect(items[0]?.status).toBe('cancelled');
    }
  });
});

describe('a workflow whose first step is a gate', () => {
  it('answers running, then pauses at the gate through the worker and enters the queue', async () => {
    const res = await post('/workflows/gate-first/runs', { input: {} }, owner.token);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      runId: expect.any(Number),
      status: 'running',
      pollUrl: `/api/v1/runs/${res.body.runId}`,
    });
    const id = res.body.runId as number;
    const get = () => t.request('GET', `/api/v1/runs/${id}`, { token: owner.token });
    expect((await get()).body).toMatchObject({ status: 'running', pausedAt: null });
    const queue = () => t.request('GET', '/api/v1/reviews', { token: owner.token });
    expect(ids((await queue()).body)).not.toContain(id);

    await t.app.jobs.drain();
    expect((await get()).body).toMatchObject({ status: 'paused', pausedAt: 'gate' });
    expect((await queue()).body.reviews).toContainEqual(
      expect.objectContaining({ kind: 'workflow', id, status: 'paused', title: `Go? (run ${id})` }),
    );
    const events = await t.app.db.sql.query<{ event: string; step: string | null }>(
      'select event, step from run_events where run_id = $1 order by seq',
      [id],
    );
    expect(events).toEqual([
      { event: 'started', step: null },
      { event: 'paused_for_review', step: 'gate' },
    ]);
    // The gate's job is done, and running it again (a duplicate) changes nothing.
    const jobs = await t.app.db.sql.query(`select id from jobs where payload->>'actorId' = $1`, [String(id)]);
    expect(jobs).toEqual([]);
    const reached = await t.app.db.sql.query(
      `select actor from actor_transitions where actor_kind = 'workflow-run' and actor_id = $1 and event_type = 'GATE_REACHED'`,
      [id],
    );
    expect(reached).toEqual([{ actor: 'worker' }]);
  });

  it('can be cancelled before the worker reaches the gate; the gate job then does nothing', async () => {
    const res = await post('/workflows/gate-first/runs', { input: {} }, owner.token);
    const id = res.body.runId as number;
    expect((await post(`/runs/${id}/cancel`, {}, owner.token)).body.status).toBe('cancelled');
    await t.app.jobs.drain();
    expect((await t.request('GET', `/api/v1/runs/${id}`, { token: owner.token })).body.status).toBe(
      'cancelled',
    );
    expect(await itemsOf(t, id, 'workflow')).toEqual([]);
  });
});
