/**
 * Edits before approve (decisions.md §15), through the socket: a skill run's `{output}` checked
 * against the skill's outputSchema (the model's draft kept as `draftOutput`, `review.edited`), an
 * action's `{params}` merged over the proposed ones with only the editable fields (the proposal keeps
 * `proposedParams`), a workflow gate's `{stepOutputs}` that later steps read, a mission plan checked
 * as a planner's. Every refused edit is 400 naming the field, and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill, createWorkflow } from '../../helpers/resources.js';
import {
  footprint,
  itemsOf,
  missionAwaitingPlan,
  outboxDrained,
  pendingProposal,
  pendingSkillRun,
  setupReviewOrg,
} from '../../helpers/reviews.js';

let t: TestApp;
let owner: CreatedToken;
let foreign: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  owner = (await setupReviewOrg(t, 'acme')).owner;
  foreign = (await setupReviewOrg(t, 'other')).owner;
  await createSkill(t, owner.token, {
    slug: 'shaped',
    requiresApproval: true,
    outputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
  });
  await createWorkflow(t, owner.token, {
    slug: 'draft-gate',
    name: 'Draft, gate, use',
    steps: [
      { name: 'draft', type: 'skill', skill: 'echoer', input: { text: 'x' } },
      { name: 'gate', type: 'approve', title: 'Fine?' },
      { name: 'use', type: 'skill', skill: 'echoer', input: { text: '{{steps.draft.output.text}}' } },
    ],
  });
});
afterAll(() => t.close());

const post = (path: string, body: unknown, token = owner.token) =>
  t.request('POST', `/api/v1${path}`, { token, body });
const get = (path: string) => t.request('GET', `/api/v1${path}`, { token: owner.token });

/** A `shaped` run whose draft is in. */
async function draftedRun(): Promise<number> {
  const id = await pendingSkillRun(t, owner.token, 'shaped');
  await t.app.jobs.drain();
  await expect.poll(async () => (await get(`/runs/${id}`)).body.output).not.toBeNull();
  await outboxDrained(t);
  return id;
}

/** The first issue's field of a 400. */
function field(res: { status: number; body: { error: { details: { issues: Array<{ field: string }> } } } }) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  return res.body.error.details.issues[0]?.field;
}

describe('skill: {output}', () => {
  it('approves the edited output, keeps the draft beside it, and says so in the review and the transitions', async () => {
    const id = await draftedRun();
    const draft = (await get(`/runs/${id}`)).body.output;
    const res = await post('/reviews/decide', {
      kind: 'skill',
      id,
      action: 'approve',
      edits: { output: { text: 'Fixed the typo.' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const run = (await get(`/runs/${id}`)).body;
    expect(run).toMatchObject({
      status: 'approved',
      output: { text: 'Fixed the typo.' },
      draftOutput: draft,
      stepResults: { shaped: { output: { text: 'Fixed the typo.' } } },
      review: { decision: 'approved', edited: true },
    });
    const log = (await get(`/runs/${id}/transitions`)).body.transitions;
    const approve = log.find((row: { event: { type: string } }) => row.event.type === 'APPROVE');
    expect(approve.event.output).toEqual({ text: 'Fixed the typo.' });
    const decide = log.find((row: { event: { type: string } }) => row.event.type === 'DECIDE');
    expect(decide.event).toMatchObject({ action: 'approve', edited: true });
  });

  it('also through POST /runs/:id/approve', async () => {
    const id = await draftedRun();
    const res = await post(`/runs/${id}/approve`, { edits: { output: { text: 'Better.' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ output: { text: 'Better.' }, review: { edited: true } });
  });

  it('refuses an output outside the outputSchema, an edit before the draft, edits with reject, a wrong shape — nothing changes', async () => {
    const id = await draftedRun();
    const before = await footprint(t, owner.token, id);
    const decide = (body: Record<string, unknown>) =>
      post('/reviews/decide', { kind: 'skill', id, action: 'approve', ...body });
    expect(field(await decide({ edits: { output: { text: 5 } } }))).toBe('body.edits.output.text');
    expect(field(await decide({ edits: { output: {} } }))).toMatch(/^body\.edits\.output/);
    expect(field(await decide({ edits: { draft: { text: 'x' } } }))).toMatch(/^body\.edits/);
    expect(field(await decide({ edits: { output: 'text' } }))).toBe('body.edits.output');
    expect(field(await decide({ action: 'reject', edits: { output: { text: 'x' } } }))).toBe('body.edits');
    expect(await footprint(t, owner.token, id)).toEqual(before);

    const early = await pendingSkillRun(t, owner.token, 'shaped');
    await outboxDrained(t);
    const beforeEarly = await footprint(t, owner.token, early);
    const res = await post('/reviews/decide', {
      kind: 'skill',
      id: early,
      action: 'approve',
      edits: { output: { text: 'x' } },
    });
    expect(field(res)).toBe('body.edits.output');
    expect(await footprint(t, owner.token, early)).toEqual(beforeEarly);
  });

  it('is 404 for another org’s run, with edits too', async () => {
    const id = await draftedRun();
    const res = await post(
      '/reviews/decide',
      { kind: 'skill', id, action: 'approve', edits: { output: { text: 'x' } } },
      foreign.token,
    );
    expect(res.status).toBe(404);
  });
});

describe('action: {params}', () => {
  it('executes with the merged params and keeps the proposed ones', async () => {
    const id = await pendingProposal(t, 'acme');
    const res = await post('/reviews/decide', {
      kind: 'action',
      id,
      action: 'approve',
      edits: { params: { properties: { dealstage: 'closedlost' } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const proposal = (await get(`/proposals/${id}`)).body;
    expect(proposal).toMatchObject({
      params: { dealId: '42', properties: { dealstage: 'closedlost' } },
      proposedParams: { dealId: '42', properties: { dealstage: 'closedwon' } },
      review: { decision: 'approve', edited: true },
    });
    expect(['executing', 'failed', 'executed']).toContain(proposal.status);
    // What the execution reads (execute-job.ts): the approved params.
    const row = await t.app.db.sql.one<{ params: unknown }>(
      'select coalesce(approved_params, params) as params from proposals where id = $1',
      [id],
    );
    expect(row.params).toEqual({ dealId: '42', properties: { dealstage: 'closedlost' } });
  });

  it('refuses a field that may not change, and params the action does not take — nothing changes', async () => {
    const id = await pendingProposal(t, 'acme');
    const before = await footprint(t, owner.token, id, 'action');
    const proposalBefore = (await get(`/proposals/${id}`)).body;
    const decide = (edits: unknown) =>
      post('/reviews/decide', { kind: 'action', id, action: 'approve', edits });
    expect(field(await decide({ params: { dealId: '43' } }))).toBe('body.edits.params.dealId');
    expect(field(await decide({ params: { properties: 'closedlost' } }))).toBe(
      'body.edits.params.properties',
    );
    expect(field(await decide({ output: { text: 'x' } }))).toMatch(/^body\.edits/);
    expect((await get(`/proposals/${id}`)).body).toEqual(proposalBefore);
    expect((await footprint(t, owner.token, id, 'action')).items).toEqual(before.items);
  });
});

describe('workflow: {stepOutputs}', () => {
  it('replaces what later steps read, and keeps what the step had output', async () => {
    const res = await post('/workflows/draft-gate/runs', { input: {} });
    expect(res.status).toBe(202);
    const id = res.body.runId as number;
    await t.app.jobs.drain();
    await expect.poll(async () => (await get(`/runs/${id}`)).body.status).toBe('paused');
    const original = (await get(`/runs/${id}`)).body.stepResults.draft.output;
    expect(field(await post(`/runs/${id}/approve`, { edits: { stepOutputs: { use: { text: 'x' } } } }))).toBe(
      'body.edits.stepOutputs.use',
    );
    expect(
      field(await post(`/runs/${id}/approve`, { edits: { stepOutputs: { gate: { text: 'x' } } } })),
    ).toBe('body.edits.stepOutputs.gate');
    expect((await get(`/runs/${id}`)).body.status).toBe('paused');
    const approved = await post('/reviews/decide', {
      kind: 'workflow',
      id,
      action: 'approve',
      edits: { stepOutputs: { draft: { text: 'edited' } } },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    await t.app.jobs.drain();
    await expect.poll(async () => (await get(`/runs/${id}`)).body.status).toBe('completed');
    const run = (await get(`/runs/${id}`)).body;
    expect(run.stepResults.draft.output).toEqual({ text: 'edited' });
    expect(run.draftOutput).toEqual({ draft: original });
    expect(run.review).toMatchObject({ decision: 'approved', edited: true });
    expect(JSON.stringify(run.stepResults.use.output)).toContain('edited');
  });
});

describe('mission: {plan} at plan review', () => {
  it('runs the reviewer’s plan when it is a valid one, and refuses one that is not', async () => {
    const id = await missionAwaitingPlan(t, owner.token);
    const decide = (plan: unknown) =>
      post('/reviews/decide', { kind: 'mission', id, action: 'approve', edits: { plan } });
    const before = (await get(`/mission-runs/${id}`)).body;
    const bad = await decide({
      tasks: [{ id: 'a', title: 'A', agent: 'stranger', instructions: 'Do it.', dependsOn: [] }],
    });
    expect(field(bad)).toBe('body.edits.plan');
    expect(bad.body.error.message).toContain('not in the team');
    expect(field(await decide({ tasks: [] }))).toBe('body.edits.plan');
    expect((await get(`/mission-runs/${id}`)).body).toEqual(before);
    expect((await itemsOf(t, id, 'mission')).at(-1)).toMatchObject({ open: true });
    const res = await decide({
      tasks: [{ id: 'only', title: 'Only task', agent: 'writer', instructions: 'Write it.', dependsOn: [] }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const run = (await get(`/mission-runs/${id}`)).body;
    expect(run.status).toBe('executing');
    expect(run.plan.tasks.map((task: { id: string }) => task.id)).toEqual(['only']);
    expect(run.draftPlan.tasks.map((task: { id: string }) => task.id)).toEqual(
      before.plan.tasks.map((task: { id: string }) => task.id),
    );
    expect(before.draftPlan).toBeNull();
  });
});
