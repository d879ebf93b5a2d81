/**
 * Mission runs end to end with the echo provider (no configuration): POST /mission-runs from a
 * mission and ad hoc, the planner's one task per member in order, tasks as child skill runs of their
 * agents (GET /runs?missionRunId=), dependants given finished outputs, the result review, the stage
 * each decision records (`review.stage`, null for one stored before it was), the event stream, cancel,
 * and every endpoint's 400/403/404/409.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, fields } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createMission, createTeam, waitForMissionRun } from '../../helpers/missions.js';

let t: TestApp;
let c: Callers;

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'mission-runs');
  await createTeam(t, c.writer, ['lead', 'writer', 'critic']);
  await createMission(t, c.writer, 'launch', ['lead', 'writer', 'critic'], {
    inputSchema: { type: 'object', properties: { product: { type: 'string' } }, required: ['product'] },
  });
  await createMission(t, c.writer, 'reviewed-twice', ['lead', 'writer'], { review: 'both' });
});
afterAll(() => t.close());

/** Starts a `reviewed-twice` run, approves its plan and waits for its result review. */
async function awaitingResultAfterPlanApproval(product: string): Promise<number> {
  const started = await t.request('POST', '/api/v1/mission-runs', {
    token: c.invoker,
    body: { missionSlug: 'reviewed-twice', input: { product } },
  });
  const id = started.body.missionRunId as number;
  const plan = await waitForMissionRun(t, c.reader, id, ['awaiting_review', 'failed']);
  expect(plan).toMatchObject({ status: 'awaiting_review', reviewStage: 'plan', review: null });
  const approved = await t.request('POST', '/api/v1/reviews/decide', {
    token: c.writer,
    body: { kind: 'mission', id, action: 'approve', reason: 'good plan' },
  });
  expect(approved.status).toBe(200);
  await waitForMissionRun(t, c.reader, id, ['awaiting_review', 'failed']);
  return id;
}

describe('a mission with the echo provider', () => {
  it('plans one task per member in order, runs them as child runs, waits for the result review, completes', async () => {
    const started = await t.request('POST', '/api/v1/mission-runs', {
      token: c.invoker,
      body: { missionSlug: 'launch', input: { product: 'Rocket' } },
    });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      missionRunId: expect.any(Number),
      status: 'planning',
      pollUrl: `/api/v1/mission-runs/${started.body.missionRunId}`,
    });
    const id = started.body.missionRunId as number;
    const waiting = await waitForMissionRun(t, c.reader, id, ['awaiting_review', 'failed']);
    expect(waiting).toMatchObject({
      id,
      mission: 'launch',
      status: 'awaiting_review',
      reviewStage: 'result',
      goal: 'Launch note for Rocket',
      input: { product: 'Rocket' },
      review: null,
      error: null,
      completedAt: null,
      artifacts: [],
      reviewUrl: `${t.app.config.baseUrl}/review/missions/${id}`,
    });
    const tasks = waiting.plan.tasks;
    expect(tasks.map((task: { agent: string }) => task.agent)).toEqual(['lead', 'writer', 'critic']);
    expect(tasks.map((task: { dependsOn: string[] }) => task.dependsOn)).toEqual([
      [],
      ['task-1'],
      ['task-2'],
    ]);
    for (const task of tasks) {
      expect(task.status).toBe('completed');
      expect(task.runId).toEqual(expect.any(Number));
      expect(task.output.text).toContain('Launch note for Rocket');
    }
    // A dependant is given its dependency's output.
    expect(tasks[1].output.text).toContain('## task-1');
    expect(tasks[1].output.text).toContain(JSON.stringify(tasks[0].output.text).slice(1, 40));
    // The plan, with every task's output, is stored in its column only: not in the snapshot too.
    const stored = await t.app.db.sql.one<{ context: Record<string, unknown>; plan: unknown }>(
      `select snapshot->'context' as context, plan from mission_runs where id = $1`,
      [id],
    );
    expect(stored.context).not.toHaveProperty('plan');
    expect(stored.context).toMatchObject({ reviewStage: 'result' });
    expect(stored.plan).toEqual(waiting.plan);

    const children = await t.request('GET', `/api/v1/runs?missionRunId=${id}`, { token: c.reader });
    expect(children.status).toBe(200);
    expect(children.body.runs).toHaveLength(4);
    for (const run of children.body.runs) {
      expect(run).toMatchObject({ kind: 'skill', status: 'completed', missionRunId: id });
    }
    expect(children.body.runs.map((r: { agentSlug: string }) => r.agentSlug).sort()).toEqual([
      'critic',
      'lead',
      'lead',
      'writer',
    ]);

    const queue = await t.request('GET', '/api/v1/reviews', { token: c.reader });
    expect(queue.body.reviews).toContainEqual(
      expect.objectContaining({ kind: 'mission', id, status: 'awaiting_review' }),
    );
    const decided = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'mission', id, action: 'approve', reason: 'ship it' },
    });
    expect(decided.status).toBe(200);
    const done = await t.request('GET', `/api/v1/mission-runs/${id}`, { token: c.reader });
    expect(done.body).toMatchObject({
      status: 'completed',
      reviewStage: null,
      review: { decision: 'approved', note: 'ship it', stage: 'result' },
      completedAt: expect.any(String),
    });

    const stream = await fetch(`${t.url}/api/v1/mission-runs/${id}/stream`, {
      headers: { Authorization: `Bearer ${c.reader}` },
    });
    expect(stream.status).toBe(200);
    const text = await stream.text();
    const names = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(names).toEqual([
      'planned',
      'task_started',
      'task_completed',
      'task_started',
      'task_completed',
      'task_started',
      'task_completed',
      'awaiting_review',
      'approved',
      'completed',
    ]);
    const again = await fetch(`${t.url}/api/v1/mission-runs/${id}/stream`, {
      headers: { Authorization: `Bearer ${c.reader}`, 'Last-Event-ID': '10' },
    });
    expect(again.status).toBe(204);
  });

  it('review both: while the result awaits review, `review` is the plan’s decision (stage plan); then the result’s', async () => {
    const id = await awaitingResultAfterPlanApproval('Twice');
    const waiting = await t.request('GET', `/api/v1/mission-runs/${id}`, { token: c.reader });
    expect(waiting.status).toBe(200);
    expect(waiting.body).toMatchObject({
      status: 'awaiting_review',
      reviewStage: 'result',
      review: { decision: 'approved', note: 'good plan', reason: null, stage: 'plan' },
    });
    const rejected = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'mission', id, action: 'reject', reason: 'not yet' },
    });
    expect(rejected.status).toBe(200);
    const done = await t.request('GET', `/api/v1/mission-runs/${id}`, { token: c.reader });
    expect(done.body).toMatchObject({
      status: 'cancelled',
      reviewStage: null,
      review: { decision: 'rejected', reason: 'not yet', stage: 'result' },
    });
  });

  it('a decision stored before the stage was recorded reads stage null, and the run goes on from its old snapshot', async () => {
    const id = await awaitingResultAfterPlanApproval('Old');
    // The row as r3 wrote it before decisions kept their stage: neither the column nor the snapshot has one.
    await t.app.db.sql.query(
      `update mission_runs
          set review = (review::jsonb - 'stage')::json,
              snapshot = jsonb_set(snapshot::jsonb, '{context,decision}',
                                   (snapshot::jsonb #> '{context,decision}') - 'stage')::json
        where id = $1`,
      [id],
    );
    const old = await t.request('GET', `/api/v1/mission-runs/${id}`, { token: c.reader });
    expect(old.status).toBe(200);
    expect(old.body.review).toEqual({
      decision: 'approved',
      by: expect.any(String),
      onBehalfOf: null,
      note: 'good plan',
      reason: null,
      at: expect.any(String),
      stage: null,
    });
    const approved = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'mission', id, action: 'approve' },
    });
    expect(approved.status).toBe(200);
    const done = await t.request('GET', `/api/v1/mission-runs/${id}`, { token: c.reader });
    expect(done.body).toMatchObject({
      status: 'completed',
      review: { decision: 'approved', stage: 'result' },
    });
  });

  it('starts ad hoc from a team and a goal', async () => {
    const started = await t.request('POST', '/api/v1/mission-runs', {
      token: c.invoker,
      body: { team: ['writer', 'critic'], goal: 'Write a haiku' },
    });
    expect(started.status).toBe(202);
    const run = await waitForMissionRun(t, c.reader, started.body.missionRunId, ['awaiting_review']);
    expect(run.mission).toBeNull();
    expect(run.plan.tasks.map((task: { agent: string }) => task.agent)).toEqual(['writer', 'critic']);
  });

  it('replays an idempotent start; another body with the key is 409', async () => {
    const body = { missionSlug: 'launch', input: { product: 'Idem' }, idempotencyKey: 'k-1' };
    const first = await t.request('POST', '/api/v1/mission-runs', { token: c.writer, body });
    const second = await t.request('POST', '/api/v1/mission-runs', { token: c.writer, body });
    expect(second.status).toBe(202);
    expect(second.body.missionRunId).toBe(first.body.missionRunId);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const other = await t.request('POST', '/api/v1/mission-runs', {
      token: c.writer,
      body: { ...body, input: { product: 'Other' } },
    });
    expect(other.status).toBe(409);
  });
});

describe('errors', () => {
  it('POST /mission-runs: 400 bad bodies, 403 without run:invoke, 404 unknown mission', async () => {
    const post = (token: string, body: unknown) => t.request('POST', '/api/v1/mission-runs', { token, body });
    const noProduct = await post(c.invoker, { missionSlug: 'launch', input: {} });
    expect(noProduct.status).toBe(400);
    expect(fields(noProduct.body)).toEqual(['body.input.product']);
    expect((await post(c.invoker, { goal: 'x' })).status).toBe(400);
    expect((await post(c.invoker, { missionSlug: 'launch', team: ['lead'], goal: 'x' })).status).toBe(400);
    const ghost = await post(c.invoker, { team: ['lead', 'ghost'], goal: 'x' });
    expect(ghost.status).toBe(400);
    expect(fields(ghost.body)).toEqual(['body.team.1.agent']);
    expect((await post(c.reader, { missionSlug: 'launch', input: { product: 'x' } })).status).toBe(403);
    expect((await post(c.invoker, { missionSlug: 'ghost' })).status).toBe(404);
    expect((await post(c.stranger, { missionSlug: 'launch', input: { product: 'x' } })).status).toBe(404);
  });

  it('GET: 404 for an unknown or foreign id, 400 for a bad status, 403 without read:all', async () => {
    const started = await t.request('POST', '/api/v1/mission-runs', {
      token: c.invoker,
      body: { missionSlug: 'launch', input: { product: 'Mine' } },
    });
    const id = started.body.missionRunId as number;
    expect((await t.request('GET', `/api/v1/mission-runs/${id}`, { token: c.stranger })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/mission-runs/999999', { token: c.reader })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/mission-runs/abc', { token: c.reader })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/mission-runs/${id}`, { token: c.invoker })).status).toBe(403);
    expect((await t.request('GET', '/api/v1/mission-runs?status=done', { token: c.reader })).status).toBe(
      400,
    );
    const list = await t.request('GET', '/api/v1/mission-runs?status=awaiting_review&limit=2', {
      token: c.reader,
    });
    expect(list.status).toBe(200);
    expect(list.body.missionRuns.length).toBeLessThanOrEqual(2);
    for (const run of list.body.missionRuns) expect(run.status).toBe('awaiting_review');
    const theirs = await t.request('GET', '/api/v1/mission-runs', { token: c.stranger });
    expect(theirs.body.missionRuns).toEqual([]);
    expect((await t.request('GET', `/api/v1/mission-runs/${id}/stream`, { token: c.stranger })).status).toBe(
      404,
    );
  });

  it('cancel: from awaiting_review cancels and leaves the queue; again is 409; foreign 404; 403 without run:invoke', async () => {
    const started = await t.request('POST', '/api/v1/mission-runs', {
      token: c.invoker,
      body: { missionSlug: 'launch', input: { product: 'Cancelled' } },
    });
    const id = started.body.missionRunId as number;
    await waitForMissionRun(t, c.reader, id, ['awaiting_review']);
    expect(
      (await t.request('POST', `/api/v1/mission-runs/${id}/cancel`, { token: c.reader, body: {} })).status,
    ).toBe(403);
    expect(
      (await t.request('POST', `/api/v1/mission-runs/${id}/cancel`, { token: c.stranger, body: {} })).status,
    ).toBe(404);
    const cancelled = await t.request('POST', `/api/v1/mission-runs/${id}/cancel`, {
      token: c.invoker,
      body: { reason: 'changed my mind' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const queue = await t.request('GET', '/api/v1/reviews', { token: c.reader });
    expect(
      queue.body.reviews.some((r: { kind: string; id: number }) => r.kind === 'mission' && r.id === id),
    ).toBe(false);
    const again = await t.request('POST', `/api/v1/mission-runs/${id}/cancel`, {
      token: c.invoker,
      body: {},
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    const decide = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'mission', id, action: 'approve' },
    });
    expect(decide.status).toBe(409);
    expect(
      (await t.request('POST', `/api/v1/mission-runs/${id}/cancel`, { token: c.invoker, body: { bogus: 1 } }))
        .status,
    ).toBe(400);
  });
});
