/**
 * Workflow runs end to end through the socket: steps templated from the input and earlier steps,
 * two approve gates, reject and cancel at a gate, a failing step, input validation, and runs pinned to
 * the workspace version current at their creation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createAgent, createSkill, createWorkflow, patchSkill } from '../../helpers/resources.js';
import { runEventNames } from '../../helpers/runs.js';

let t: TestApp;
let admin: CreatedToken;
let foreign: CreatedToken;

const twoGates = {
  slug: 'publishing',
  name: 'Publishing',
  inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
  steps: [
    { name: 'draft', type: 'skill', skill: 'echoer', input: { text: 'about {{input.topic}}' } },
    { name: 'review1', type: 'approve', title: 'Editor check', assignTo: 'ed' },
    {
      name: 'polish',
      type: 'skill',
      skill: 'echoer',
      input: { text: 'polished {{steps.draft.output.text}}' },
    },
    { name: 'review2', type: 'approve' },
    {
      name: 'publish',
      type: 'skill',
      skill: 'echoer',
      input: { text: 'final {{steps.polish.output.text}}' },
    },
  ],
};

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  admin = await t.token({ scopes: ALL_SCOPES });
  foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  await createSkill(t, admin.token, { slug: 'echoer', name: 'Echoer' }, '<{{input.text}}>');
  await createSkill(t, admin.token, { slug: 'pinned', name: 'Pinned' }, 'v1 {{input.text}}');
  await createSkill(
    t,
    admin.token,
    { slug: 'picky', outputSchema: { type: 'object', required: ['summary'] } },
    '{{input.text}}',
  );
  await createSkill(t, admin.token, { slug: 'retiring' }, '{{input.text}}');
  await createWorkflow(t, admin.token, twoGates);
  await createWorkflow(t, admin.token, {
    slug: 'breaks',
    steps: [
      { name: 'first', type: 'skill', skill: 'echoer', input: { text: 'one' } },
      { name: 'second', type: 'skill', skill: 'picky', input: { text: 'two {{input.nothing}}' } },
    ],
  });
  await createWorkflow(t, admin.token, {
    slug: 'gate-first',
    steps: [
      { name: 'gate', type: 'approve', title: 'Go?' },
      { name: 'work', type: 'skill', skill: 'pinned', input: { text: 'x' } },
    ],
  });
  await createWorkflow(t, admin.token, {
    slug: 'uses-retiring',
    steps: [{ name: 'only', type: 'skill', skill: 'retiring', input: {} }],
  });
  await createAgent(t, admin.token, { slug: 'pub-bot', workflowSlugs: ['publishing'] });
});
afterAll(() => t.close());

const post = (path: string, body: unknown = {}, token = admin.token) =>
  t.request('POST', `/api/v1${path}`, { token, body });
const run = async (id: number) => (await t.request('GET', `/api/v1/runs/${id}`, { token: admin.token })).body;
const events = (id: number) => runEventNames(t.app, id);
const items = (id: number) =>
  t.app.db.sql.query<{ title: string; status: string; assigned_to: string | null }>(
    `select title, status, assigned_to from review_items where run_id = $1 and kind = 'workflow' order by id`,
    [id],
  );

/** Starts a run, which answers `running` (docs/api.md "Runs"), even when its first step is a gate. */
async function start(slug: string, body: Record<string, unknown>) {
  const res = await post(`/workflows/${slug}/runs`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body).toEqual({
    runId: expect.any(Number),
    status: 'running',
    pollUrl: `/api/v1/runs/${res.body.runId}`,
  });
  return res.body.runId as number;
}

/** Starts a run whose first step is a gate, and lets the worker bring it there (paused). */
async function startAtGate(slug: string, body: Record<string, unknown>) {
  const id = await start(slug, body);
  expect((await run(id)).status).toBe('running');
  await t.app.jobs.drain();
  expect(await run(id)).toMatchObject({ status: 'paused', pausedAt: 'gate' });
  return id;
}

describe('a workflow with two approve gates', () => {
  it('runs, pauses at each gate, advances on approval and completes', async () => {
    const id = await start('publishing', { input: { topic: 'cats' }, agentSlug: 'pub-bot' });
    await t.app.jobs.drain();
    let r = await run(id);
    expect(r).toMatchObject({
      kind: 'workflow',
      slug: 'publishing',
      status: 'paused',
      pausedAt: 'review1',
      reviewState: null,
      agentSlug: 'pub-bot',
      stepResults: { draft: { output: { text: '<about cats>' } } },
      output: { text: '<about cats>' },
    });
    expect(await items(id)).toEqual([
      { title: `Editor check (run ${id})`, status: 'assigned', assigned_to: 'ed' },
    ]);
    expect((await post(`/runs/${id}/cancel`, {}, foreign.token)).status).toBe(404);

    const approved = await post(`/runs/${id}/approve`, { note: 'fine' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'running', pausedAt: null });
    await t.app.jobs.drain();
    r = await run(id);
    expect(r).toMatchObject({ status: 'paused', pausedAt: 'review2' });
    expect(r.stepResults.polish).toEqual({ output: { text: '<polished <about cats>>' } });
    expect(r.stepResults.review1).toEqual({
      output: { approved: true, by: `token:${admin.id}`, note: 'fine' },
    });
    expect(await items(id)).toEqual([
      { title: `Editor check (run ${id})`, status: 'decided', assigned_to: 'ed' },
      { title: `Publishing: review2 (run ${id})`, status: 'unassigned', assigned_to: null },
    ]);

    expect((await post(`/runs/${id}/approve`)).status).toBe(200);
    await t.app.jobs.drain();
    r = await run(id);
    expect(r).toMatchObject({
      status: 'completed',
      pausedAt: null,
      output: { text: '<final <polished <about cats>>>' },
      error: null,
    });
    expect(Object.keys(r.stepResults)).toEqual(['draft', 'review1', 'polish', 'review2', 'publish']);
    expect(r.completedAt).toEqual(expect.any(String));
    expect(await events(id)).toEqual([
      'started',
      'step_started:draft',
      'step_completed:draft',
      'paused_for_review:review1',
      'approved:review1',
      'step_started:polish',
      'step_completed:polish',
      'paused_for_review:review2',
      'approved:review2',
      'step_started:publish',
      'step_completed:publish',
      'completed',
    ]);
    expect((await items(id)).map((i) => i.status)).toEqual(['decided', 'decided']);
    expect((await post(`/runs/${id}/approve`)).status).toBe(409);
    expect((await post(`/runs/${id}/cancel`)).status).toBe(409);
  });

  it('is cancelled by a reject at a gate', async () => {
    const id = await startAtGate('gate-first', { input: {} });
    expect((await run(id)).status).toBe('paused');
    const res = await post(`/runs/${id}/reject`, { reason: 'not now' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'cancelled',
      review: { decision: 'rejected', reason: 'not now' },
    });
    expect(await items(id)).toEqual([{ title: `Go? (run ${id})`, status: 'decided', assigned_to: null }]);
    expect(await events(id)).toEqual(['started', 'paused_for_review:gate', 'rejected:gate', 'cancelled']);
    expect((await post(`/runs/${id}/approve`)).status).toBe(409);
  });

  it('is cancelled at a gate by cancel, which takes the item out of the queue', async () => {
    const id = await startAtGate('gate-first', { input: {} });
    expect((await post(`/runs/${id}/cancel`)).body.status).toBe('cancelled');
    expect((await items(id)).map((i) => i.status)).toEqual(['cancelled']);
  });

  it('answers 409 to approve while a step runs', async () => {
    const id = await start('publishing', { input: { topic: 'dogs' } });
    const res = await post(`/runs/${id}/approve`);
    expect(res.status).toBe(409);
    expect(res.body.error.details.status).toBe('running');
  });
});

describe('a failing step', () => {
  it('fails the run with error.step, keeping the earlier steps', async () => {
    const id = await start('breaks', { input: {} });
    await t.app.jobs.drain();
    const r = await run(id);
    expect(r).toMatchObject({
      status: 'failed',
      error: { code: 'OUTPUT_INVALID', step: 'second' },
      stepResults: { first: { output: { text: '<one>' } } },
    });
    expect(await events(id)).toEqual([
      'started',
      'step_started:first',
      'step_completed:first',
      'step_started:second',
      'failed',
    ]);
    const [execution] = await t.app.db.sql.query<{ meta: { missingInput?: string[] } }>(
      `select meta from step_executions where run_id = $1 and step = 'second'`,
      [id],
    );
    expect(execution?.meta.missingInput).toEqual(['input.nothing']);
  });
});

describe('triggering a workflow', () => {
  it.each([
    ['unknown workflow', 'nope', { input: {} }, 404],
    ['input against inputSchema', 'publishing', { input: { topic: 1 } }, 400],
    ['missing required input', 'publishing', { input: {} }, 400],
    ['an agent without the workflow', 'gate-first', { input: {}, agentSlug: 'pub-bot' }, 400],
  ])('%s', async (_name, slug, body, status) => {
    expect((await post(`/workflows/${slug}/runs`, body)).status).toBe(status);
  });

  it("is 404 for another org's workflow and 403 without run:invoke", async () => {
    expect((await post('/workflows/publishing/runs', { input: { topic: 'x' } }, foreign.token)).status).toBe(
      404,
    );
    const reader = await t.token({ scopes: ['read:all'] });
    expect((await post('/workflows/publishing/runs', { input: { topic: 'x' } }, reader.token)).status).toBe(
      403,
    );
  });

  it('is 409 when a step runs a skill that is no longer active', async () => {
    await patchSkill(t, admin.token, 'retiring', { manifest: { status: 'archived' } });
    const res = await post('/workflows/uses-retiring/runs', { input: {} });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toMatchObject({ slug: 'retiring', status: 'archived' });
  });

  it('lists workflow runs by kind and slug', async () => {
    const id = await startAtGate('gate-first', { input: {} });
    const res = await t.request('GET', '/api/v1/runs?kind=workflow&workflowSlug=gate-first&limit=1', {
      token: admin.token,
    });
    expect(res.body.runs.map((r: { id: number }) => r.id)).toEqual([id]);
  });
});

describe('the workspace version of a run', () => {
  it('is the one current at creation, even when the skill changes while it runs', async () => {
    const wf = await startAtGate('gate-first', { input: {} });
    const skillRun = (await post('/skills/pinned/runs', { input: { text: 'a' } })).body.runId as number;
    const shaBefore = (await run(skillRun)).workspaceSha;
    await patchSkill(t, admin.token, 'pinned', { promptMd: 'v2 {{input.text}}' });
    await t.app.jobs.drain();
    expect(await run(skillRun)).toMatchObject({
      status: 'completed',
      output: { text: 'v1 a' },
      workspaceSha: shaBefore,
    });
    await post(`/runs/${wf}/approve`);
    await t.app.jobs.drain();
    expect(await run(wf)).toMatchObject({ status: 'completed', output: { text: 'v1 x' } });
    const fresh = (await post('/skills/pinned/runs', { input: { text: 'b' } })).body.runId as number;
    await t.app.jobs.drain();
    const after = await run(fresh);
    expect(after).toMatchObject({ output: { text: 'v2 b' } });
    expect(after.workspaceSha).not.toBe(shaBefore);
  });
});
