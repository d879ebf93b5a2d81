/**
 * Request changes (decisions.md §15), through the socket against the protocol-faithful fake OpenAI
 * server: a skill run's draft goes back with the reviewer's reason, the run runs again (`running`),
 * the model's second request carries the previous draft (an assistant turn) and the reason (a user
 * turn), and the new draft opens a new item (same run id, a new revision, `rounds` one more). The
 * item's `review.changes_requested` event (queue stream), the ledger's `changes_requested` entry and
 * the run's transitions show each round; the sixth request is 409. Every refusal changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatBody, type FakeOpenAI, openaiEnv, startFakeOpenAI } from '../../../fakes/openai-server.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { createMission } from '../../helpers/missions.js';
import {
  currentRevision,
  footprint,
  itemsOf,
  missionAwaitingPlan,
  outboxDrained,
  pausedWorkflowRun,
  pendingProposal,
  pendingSkillRun,
  setupReviewOrg,
} from '../../helpers/reviews.js';
import { openSse } from '../../helpers/sse.js';
import { waitFor } from '../../helpers/wait.js';

let t: TestApp;
let fake: FakeOpenAI;
let owner: CreatedToken;
let foreign: CreatedToken;

/** A message's content as JSON, or undefined. */
function parsed(content: string | null | undefined): Record<string, unknown> | undefined {
  try {
    return JSON.parse(content ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The user messages of a chat request after the prompt: the reviewers' reasons so far. */
const reasonsIn = (body: ChatBody) => body.messages.filter((m) => m.role === 'user').slice(1);

beforeAll(async () => {
  // The scripted model numbers its drafts by the reasons it was given: draft 1, then draft 2, …; as a
  // mission's planner, it answers the draft plan of its prompt, titles marked with that number.
  fake = await startFakeOpenAI({
    assistant: (body) => {
      const version = reasonsIn(body).length + 1;
      const prompt = parsed(body.messages.find((m) => m.role === 'user')?.content);
      if (!Array.isArray(prompt?.tasks) || !prompt.team) return { content: `Draft ${version}` };
      const tasks = (prompt.tasks as Array<{ title: string }>).map((t) => ({
        ...t,
        title: `${t.title} v${version}`,
      }));
      return { content: JSON.stringify({ tasks }) };
    },
  });
  t = await startTestApp(openaiEnv(fake, { R3_WORKER_CONCURRENCY: '0' }));
  owner = (await setupReviewOrg(t, 'acme')).owner;
  foreign = (await setupReviewOrg(t, 'other')).owner;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const post = (path: string, body: unknown, token = owner.token) =>
  t.request('POST', `/api/v1${path}`, { token, body });
const get = (path: string, token = owner.token) => t.request('GET', `/api/v1${path}`, { token });

/** Lets the worker execute what is queued, until run `id` has `status` and a draft. */
async function draftIn(id: number): Promise<void> {
  await expect
    .poll(
      async () => {
        await t.app.jobs.drain();
        const run = (await get(`/runs/${id}`)).body;
        return run.status === 'pending' && run.output !== null;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  await outboxDrained(t);
}

/** A `gated` run whose first draft is in. */
async function draftedRun(): Promise<number> {
  const id = await pendingSkillRun(t, owner.token);
  await draftIn(id);
  return id;
}

/** Requests changes on skill run `id` at its current revision; the answer. */
async function requestChanges(id: number, reason: string, token = owner.token) {
  const revision = await currentRevision(t, owner.token, 'skill', id);
  return post('/reviews/decide', { kind: 'skill', id, action: 'request_changes', reason, revision }, token);
}

/** The chat requests the fake received since `from`. */
const chatsSince = (from: number) =>
  fake.requests
    .slice(from)
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => r.body as ChatBody);

describe('request changes on a skill draft', () => {
  it('sends the draft back with the reason as turns, and the new draft opens a new item of the same run', async () => {
    const stream = await openSse(t.url, '/api/v1/reviews/stream', { token: owner.token });
    await stream.events.until((events) => events.some((e) => e.event === 'ready'), 'ready');
    const id = await draftedRun();
    const first = (await get(`/reviews/skill/${id}`)).body.review;
    expect(first).toMatchObject({ rounds: 0, status: 'pending' });
    expect((await get(`/runs/${id}`)).body).toMatchObject({ output: { text: 'Draft 1' }, rounds: [] });

    const asked = fake.requests.length;
    const res = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'request_changes',
      reason: 'Mention the refund.',
      reviewedBy: 'user:ann',
      revision: first.revision,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The run runs again; the item it had is closed, and the queue does not list the run meanwhile.
    const sentBack = (await get(`/runs/${id}`)).body;
    expect(sentBack).toMatchObject({ status: 'running', output: null, review: null });
    expect(sentBack.rounds).toEqual([
      {
        draft: { text: 'Draft 1' },
        reason: 'Mention the refund.',
        by: `token:${owner.id}`,
        onBehalfOf: 'user:ann',
        at: expect.any(String),
      },
    ]);
    expect((await get('/reviews')).body.reviews.map((r: { id: number }) => r.id)).not.toContain(id);
    const closed = await t.app.db.sql.one<{ decision: Record<string, unknown>; open: boolean }>(
      `select decision, open from review_items where run_id = $1 and kind = 'skill' order by id limit 1`,
      [id],
    );
    expect(closed).toMatchObject({
      open: false,
      decision: { action: 'request_changes', reason: 'Mention the refund.' },
    });

    await draftIn(id);
    // The model was asked again with its draft and the reason after the prompt.
    const chats = chatsSince(asked);
    expect(chats).toHaveLength(1);
    const messages = chats[0]?.messages ?? [];
    expect(messages.slice(-3)).toEqual([
      { role: 'user', content: expect.stringContaining('') },
      { role: 'assistant', content: 'Draft 1' },
      { role: 'user', content: 'Mention the refund.' },
    ]);
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(2);

    const second = (await get(`/reviews/skill/${id}`)).body;
    expect(second.review).toMatchObject({ id, kind: 'skill', rounds: 1, status: 'pending' });
    expect(second.review.revision).not.toEqual(first.revision);
    expect(second.subject).toMatchObject({ status: 'pending', output: { text: 'Draft 2' } });
    expect(await itemsOf(t, id)).toHaveLength(2);

    // The first round's revision is stale now; the new one approves the new draft.
    const stale = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'approve',
      revision: first.revision,
    });
    expect(stale.status).toBe(409);
    // Stale, with the revision of the item now open (the new draft's).
    expect(stale.body.error.details).toEqual({ reason: 'stale', revision: second.review.revision });
    const approved = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'approve',
      revision: second.review.revision,
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect((await get(`/runs/${id}`)).body).toMatchObject({
      status: 'approved',
      output: { text: 'Draft 2' },
      rounds: [{ draft: { text: 'Draft 1' }, reason: 'Mention the refund.' }],
    });

    // The run's transitions show the round: the change request, the new draft, the approval.
    const log = (await get(`/runs/${id}/transitions`)).body.transitions as Array<{
      actorKind: string;
      event: { type: string; reason?: string; action?: string };
      from: string;
      to: string;
    }>;
    const ofRun = log.filter((row) => row.actorKind === 'skill-run').map((row) => row.event.type);
    expect(ofRun.slice(ofRun.indexOf('REQUEST_CHANGES'))).toEqual([
      'REQUEST_CHANGES',
      'STEP_SUCCEEDED',
      'APPROVE',
    ]);
    const round = log.find((row) => row.event.type === 'REQUEST_CHANGES');
    expect(round).toMatchObject({ event: { reason: 'Mention the refund.' } });
    expect(round?.from).toMatch(/^pending/);
    expect(round?.to).toMatch(/^running/);
    const ofItems = log.filter((row) => row.actorKind === 'review-item');
    // The first item opened before its draft (which changed it); the second opened with its draft.
    expect(ofItems.map((row) => row.event.action ?? row.event.type)).toEqual([
      'xstate.init',
      'SUBJECT_CHANGED',
      'request_changes',
      'xstate.init',
      'approve',
    ]);

    // The queue stream's event, as webhooks carry it.
    const events = await stream.events.until(
      (all) => all.some((e) => e.event === 'review.decided' && e.json?.id === id),
      'decided',
    );
    const ours = events.filter((e) => e.json?.id === id && e.event !== 'review.updated').map((e) => e.event);
    expect(ours).toEqual([
      'review.requested',
      'review.changes_requested',
      'review.requested',
      'review.decided',
    ]);
    const changed = events.find((e) => e.event === 'review.changes_requested');
    expect(changed?.json).toMatchObject({
      kind: 'skill',
      id,
      status: 'decided',
      revision: null,
      action: 'request_changes',
      reason: 'Mention the refund.',
      by: `token:${owner.id}`,
    });
    stream.close();

    // The ledger has the round.
    const ledger = await get(`/audit/reviews?kind=skill&id=${id}`);
    expect(ledger.status).toBe(200);
    expect(ledger.body.entries.map((e: { event: string }) => e.event)).toEqual([
      'opened',
      'changes_requested',
      'opened',
      'decided',
    ]);
    expect(ledger.body.entries[1]).toMatchObject({
      event: 'changes_requested',
      details: { action: 'request_changes', reason: 'Mention the refund.' },
    });
  });

  it('takes at most 5 rounds: the sixth request is 409 and changes nothing; approve still works', async () => {
    const id = await draftedRun();
    for (let round = 1; round <= 5; round++) {
      const res = await requestChanges(id, `Change ${round}.`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await draftIn(id);
    }
    const review = (await get(`/reviews/skill/${id}`)).body.review;
    expect(review.rounds).toBe(5);
    expect((await get(`/runs/${id}`)).body.output).toEqual({ text: 'Draft 6' });
    const before = await footprint(t, owner.token, id);
    const sixth = await requestChanges(id, 'Once more.');
    expect(sixth.status).toBe(409);
    expect(sixth.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'max_rounds', rounds: 5, maxRounds: 5 },
    });
    expect(await footprint(t, owner.token, id)).toEqual(before);
    const ok = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'approve',
      revision: review.revision,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await get(`/runs/${id}`)).body.rounds.map((r: { reason: string }) => r.reason)).toEqual([
      'Change 1.',
      'Change 2.',
      'Change 3.',
      'Change 4.',
      'Change 5.',
    ]);
  });
});

describe('request changes over MCP (runtime_request_changes)', () => {
  it('sends the draft back through the same choke point; refuses without a reason, stale, a workflow', async () => {
    const id = await draftedRun();
    const mcp = await connectHttp(t.url, owner.token);
    try {
      const revision = await currentRevision(t, owner.token, 'skill', id);
      await fails(mcp, 'runtime_request_changes', { runId: id, reason: '' }, 'VALIDATION_FAILED');
      await fails(mcp, 'runtime_request_changes', { runId: id, reason: 'x', revision: 'zz.1' }, 'CONFLICT');
      const sent = await ok(mcp, 'runtime_request_changes', { runId: id, reason: 'Warmer.', revision });
      expect(sent).toMatchObject({
        id,
        status: 'running',
        rounds: [{ reason: 'Warmer.', by: `token:${owner.id}` }],
      });
      await draftIn(id);
      expect((await get(`/reviews/skill/${id}`)).body.review.rounds).toBe(1);
      const workflow = await pausedWorkflowRun(t, owner.token);
      const refused = await fails(
        mcp,
        'runtime_request_changes',
        { runId: workflow, reason: 'x' },
        'VALIDATION_FAILED',
      );
      expect(refused.message).toMatch(/takes no request_changes/);
    } finally {
      await mcp.close();
    }
  });
});

describe('request changes on a mission plan', () => {
  it('sends the plan back to the planner with the reason as turns; the new plan is a new item, then approved', async () => {
    const id = await missionAwaitingPlan(t, owner.token, 'revised');
    const first = (await get(`/reviews/mission/${id}`)).body;
    expect(first.review).toMatchObject({ rounds: 0, status: 'awaiting_review' });
    const plan = first.subject.plan.tasks as Array<{ id: string; title: string }>;
    expect(plan.every((task) => task.title.endsWith(' v1'))).toBe(true);
    const asked = fake.requests.length;
    const res = await post('/reviews/decide', {
      kind: 'mission',
      id,
      action: 'request_changes',
      reason: 'One task per member is too coarse.',
      revision: first.review.revision,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sentBack = (await get(`/mission-runs/${id}`)).body;
    expect(sentBack).toMatchObject({ status: 'planning', plan: null, reviewStage: null });
    expect(sentBack.rounds).toEqual([
      {
        draft: { tasks: expect.arrayContaining([expect.objectContaining({ title: plan[0]?.title })]) },
        reason: 'One task per member is too coarse.',
        by: `token:${owner.id}`,
        onBehalfOf: null,
        at: expect.any(String),
      },
    ]);

    await waitFor(async () => {
      await t.app.jobs.drain();
      return (await get(`/mission-runs/${id}`)).body.status === 'awaiting_review';
    }, 'the new plan to await review');
    // The planner was asked again: its plan as its answer, then the reviewer's reason (in a document
    // that carries the plan to revise).
    const planner = chatsSince(asked).at(-1);
    const turns = planner?.messages.slice(-2) ?? [];
    expect(turns[0]?.role).toBe('assistant');
    expect(parsed(turns[0]?.content)).toEqual(sentBack.rounds[0].draft);
    expect(turns[1]?.role).toBe('user');
    expect(parsed(turns[1]?.content)).toMatchObject({
      reviewerAsks: 'One task per member is too coarse.',
      tasks: sentBack.rounds[0].draft.tasks,
    });
    const second = (await get(`/reviews/mission/${id}`)).body;
    expect(second.review).toMatchObject({ rounds: 1, status: 'awaiting_review' });
    expect(second.review.revision).not.toEqual(first.review.revision);
    expect(second.subject.plan.tasks.every((task: { title: string }) => task.title.endsWith(' v2'))).toBe(
      true,
    );
    const ok = await post('/reviews/decide', {
      kind: 'mission',
      id,
      action: 'approve',
      revision: second.review.revision,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await get(`/mission-runs/${id}`)).body.status).not.toBe('awaiting_review');
    const ledger = (await get(`/audit/reviews?kind=mission&id=${id}`)).body.entries;
    expect(ledger.map((e: { event: string }) => e.event)).toEqual([
      'opened',
      'changes_requested',
      'opened',
      'decided',
    ]);
  });

  it('refuses request changes at result review (400 body.action), nothing changes', async () => {
    await missionAwaitingPlan(t, owner.token, 'revised'); // creates the team
    await createMission(t, owner.token, 'reviewed-result', ['writer', 'editor'], { review: 'result' });
    const res = await post('/mission-runs', { missionSlug: 'reviewed-result', input: { product: 'r3' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = res.body.missionRunId as number;
    await waitFor(async () => {
      await t.app.jobs.drain();
      return (await get(`/mission-runs/${id}`)).body.status === 'awaiting_review';
    }, 'the result to await review');
    await outboxDrained(t);
    const before = await footprint(t, owner.token, id, 'mission');
    const refused = await post('/reviews/decide', {
      kind: 'mission',
      id,
      action: 'request_changes',
      reason: 'Redo it.',
    });
    expect(field(refused)).toBe('body.action');
    expect(await footprint(t, owner.token, id, 'mission')).toEqual(before);
  });
});

/** The first issue's field of a 400. */
function field(res: { status: number; body: { error: { details: { issues: Array<{ field: string }> } } } }) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  return res.body.error.details.issues[0]?.field;
}

describe('request changes refused', () => {
  it('without a reason (400 body.reason), with edits (400 body.edits) — nothing changes', async () => {
    const id = await draftedRun();
    const before = await footprint(t, owner.token, id);
    const decide = (body: Record<string, unknown>) =>
      post('/reviews/decide', { kind: 'skill', id, action: 'request_changes', ...body });
    expect(field(await decide({}))).toBe('body.reason');
    expect(field(await decide({ reason: null }))).toBe('body.reason');
    expect(field(await decide({ reason: '   ' }))).toBe('body.reason');
    expect(field(await decide({ reason: 'x', edits: { output: { text: 'y' } } }))).toBe('body.edits');
    expect(field(await decide({ reason: 'x', action: 'redo' }))).toBe('body.action');
    expect(await footprint(t, owner.token, id)).toEqual(before);
  });

  it('on kinds that take none: a workflow gate, an action (400 body.action) — nothing changes', async () => {
    const workflow = await pausedWorkflowRun(t, owner.token);
    await outboxDrained(t);
    const before = await footprint(t, owner.token, workflow, 'workflow');
    const res = await post('/reviews/decide', {
      kind: 'workflow',
      id: workflow,
      action: 'request_changes',
      reason: 'Redo it.',
    });
    expect(field(res)).toBe('body.action');
    expect(res.body.error.details.issues[0].message).toMatch(/skill runs and mission plans/);
    expect(await footprint(t, owner.token, workflow, 'workflow')).toEqual(before);

    const proposal = await pendingProposal(t, 'acme');
    const action = await post('/reviews/decide', {
      kind: 'action',
      id: proposal,
      action: 'request_changes',
      reason: 'Other deal.',
    });
    expect(field(action)).toBe('body.action');
    expect((await get(`/proposals/${proposal}`)).body.status).toBe('pending');
  });

  it('a stale revision (409 with the current one), a draft not ready yet (409) — nothing changes', async () => {
    const id = await draftedRun();
    const revision = await currentRevision(t, owner.token, 'skill', id);
    await post('/reviews/assign', { kind: 'skill', id, assignedTo: 'acme-owner' });
    await outboxDrained(t);
    const current = await currentRevision(t, owner.token, 'skill', id);
    const before = await footprint(t, owner.token, id);
    const stale = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'request_changes',
      reason: 'Shorter.',
      revision,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details).toEqual({ reason: 'stale', revision: current });
    expect(await footprint(t, owner.token, id)).toEqual(before);

    const early = await pendingSkillRun(t, owner.token);
    await outboxDrained(t);
    const beforeEarly = await footprint(t, owner.token, early);
    const res = await post('/reviews/decide', {
      kind: 'skill',
      id: early,
      action: 'request_changes',
      reason: 'Shorter.',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error.message).toMatch(/not ready/);
    expect(await footprint(t, owner.token, early)).toEqual(beforeEarly);
  });

  it("another org's item is 404, a token without run:approve 403 — nothing changes", async () => {
    const id = await draftedRun();
    const reader = await t.token({ org: 'acme', user: 'reader', scopes: ['read:all'] });
    const before = await footprint(t, owner.token, id);
    const body = { kind: 'skill', id, action: 'request_changes', reason: 'Shorter.' };
    const cross = await post('/reviews/decide', body, foreign.token);
    expect(cross.status).toBe(404);
    expect(cross.body.error.code).toBe('NOT_FOUND');
    const denied = await post('/reviews/decide', body, reader.token);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect(await footprint(t, owner.token, id)).toEqual(before);
  });
});
