/**
 * `POST /runs/:id/fork` through the socket (docs/api.md "Fork a run"): a workflow forked from a later
 * step (earlier results copied, never executed again), through a gate (which pauses again), a skill
 * run forked with and without new input, on the run's own version, the applied one and a named one;
 * lineage both ways; every refusal, with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill, createWorkflow, patchSkill } from '../../helpers/resources.js';
import { runEventNames } from '../../helpers/runs.js';

let t: TestApp;
let admin: CreatedToken;
let foreign: CreatedToken;
let readOnly: CreatedToken;

const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  admin = await t.token({ scopes: ALL_SCOPES });
  foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  readOnly = await t.token({ scopes: ['read:all'] });
  await createSkill(t, admin.token, { slug: 'echo', inputSchema: text }, 'v1 <{{input.text}}>');
  await createSkill(t, admin.token, { slug: 'picky', outputSchema: { type: 'object', required: ['x'] } });
  await createWorkflow(t, admin.token, {
    slug: 'chain',
    steps: [
      { name: 'one', type: 'skill', skill: 'echo', input: { text: '{{input.topic}}' } },
      { name: 'two', type: 'skill', skill: 'echo', input: { text: '2 {{steps.one.output.text}}' } },
      { name: 'three', type: 'skill', skill: 'echo', input: { text: '3 {{steps.two.output.text}}' } },
    ],
  });
  await createWorkflow(t, admin.token, {
    slug: 'gated',
    steps: [
      { name: 'draft', type: 'skill', skill: 'echo', input: { text: 'd' } },
      { name: 'check', type: 'approve', title: 'Check' },
      { name: 'publish', type: 'skill', skill: 'echo', input: { text: 'p {{steps.draft.output.text}}' } },
    ],
  });
  await createWorkflow(t, admin.token, {
    slug: 'breaks',
    steps: [
      { name: 'first', type: 'skill', skill: 'echo', input: { text: 'f' } },
      { name: 'second', type: 'skill', skill: 'picky', input: {} },
      { name: 'third', type: 'skill', skill: 'echo', input: { text: 't' } },
    ],
  });
});
afterAll(() => t.close());

const post = (path: string, body: unknown = {}, token = admin.token) =>
  t.request('POST', `/api/v1${path}`, { token, body });
const run = async (id: number) => (await t.request('GET', `/api/v1/runs/${id}`, { token: admin.token })).body;
const events = (id: number) => runEventNames(t.app, id);
const runCount = async () =>
  Number((await t.app.db.sql.query<{ n: string }>('select count(*) as n from runs'))[0]?.n);

/** Starts a run and lets the workers take it as far as they can. */
async function settled(path: string, body: Record<string, unknown>): Promise<number> {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await t.app.jobs.drain();
  return res.body.runId as number;
}

/** Forks run `id`, expects the 202 answer, and lets the workers execute the fork. */
async function fork(id: number, body: Record<string, unknown>, fromStep: string | null): Promise<number> {
  const res = await post(`/runs/${id}/fork`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body).toEqual({
    runId: expect.any(Number),
    status: 'running',
    pollUrl: `/api/v1/runs/${res.body.runId}`,
    forkOf: { runId: id, fromStep },
  });
  await t.app.jobs.drain();
  return res.body.runId as number;
}

describe('forking a workflow run', () => {
  it('copies the steps before fromStep without executing them and executes the rest', async () => {
    const id = await settled('/workflows/chain/runs', { input: { topic: 'cats' } });
    const original = await run(id);
    expect(original).toMatchObject({ status: 'completed', forkOf: null, forks: [] });
    expect(original.stepResults.two).toEqual({ output: { text: 'v1 <2 v1 <cats>>' } });
    await patchSkill(t, admin.token, 'echo', { promptMd: 'v2 <{{input.text}}>' });

    // On the applied version: step one keeps the original's output; two and three run the new prompt.
    const current = await fork(id, { fromStep: 'two', workspace: 'current' }, 'two');
    const forked = await run(current);
    expect(forked).toMatchObject({
      status: 'completed',
      input: { topic: 'cats' },
      forkOf: { runId: id, fromStep: 'two' },
      forks: [],
      output: { text: 'v2 <3 v2 <2 v1 <cats>>>' },
    });
    expect(forked.workspaceSha).not.toBe(original.workspaceSha);
    expect(forked.stepResults).toEqual({
      one: { output: { text: 'v1 <cats>' }, copied: true },
      two: { output: { text: 'v2 <2 v1 <cats>>' } },
      three: { output: { text: 'v2 <3 v2 <2 v1 <cats>>>' } },
    });
    // Step one was never executed by the fork.
    expect(await events(current)).toEqual([
      'started',
      'step_started:two',
      'step_completed:two',
      'step_started:three',
      'step_completed:three',
      'completed',
    ]);

    // Without `workspace`: the original's own version, with new input, from its last step.
    const own = await fork(id, { fromStep: 'three', input: { topic: 'dogs' } }, 'three');
    expect(await run(own)).toMatchObject({
      status: 'completed',
      input: { topic: 'dogs' },
      workspaceSha: original.workspaceSha,
      stepResults: {
        one: { output: { text: 'v1 <cats>' }, copied: true },
        two: { output: { text: 'v1 <2 v1 <cats>>' }, copied: true },
        three: { output: { text: 'v1 <3 v1 <2 v1 <cats>>>' } },
      },
    });

    // A named version (the original's sha, as runs show it); no fromStep: from the first step.
    const named = await fork(id, { workspace: original.workspaceSha }, 'one');
    expect(await run(named)).toMatchObject({
      status: 'completed',
      workspaceSha: original.workspaceSha,
      output: { text: 'v1 <3 v1 <2 v1 <cats>>>' },
      stepResults: { one: { output: { text: 'v1 <cats>' } } },
    });

    expect((await run(id)).forks).toEqual([current, own, named]);
    const listed = await t.request('GET', '/api/v1/runs?workflowSlug=chain', { token: admin.token });
    expect(listed.body.runs.find((r: { id: number }) => r.id === own).forkOf).toEqual({
      runId: id,
      fromStep: 'three',
    });
    await patchSkill(t, admin.token, 'echo', { promptMd: 'v1 <{{input.text}}>' });
  });

  it('pauses again at a gate at or after fromStep; a gate before it is copied', async () => {
    const id = await settled('/workflows/gated/runs', { input: {} });
    expect(await run(id)).toMatchObject({ status: 'paused', pausedAt: 'check' });
    expect((await post(`/runs/${id}/approve`, { note: 'ok' })).status).toBe(200);
    await t.app.jobs.drain();
    const original = await run(id);
    expect(original.status).toBe('completed');

    const again = await fork(id, { fromStep: 'check' }, 'check');
    expect(await run(again)).toMatchObject({
      status: 'paused',
      pausedAt: 'check',
      stepResults: { draft: { output: { text: 'v1 <d>' }, copied: true } },
    });
    const items = await t.app.db.sql.query<{ status: string }>(
      `select status from review_items where run_id = $1 and kind = 'workflow'`,
      [again],
    );
    expect(items.map((i) => i.status)).toEqual(['unassigned']);
    expect((await post(`/runs/${again}/approve`)).status).toBe(200);
    await t.app.jobs.drain();
    expect(await run(again)).toMatchObject({ status: 'completed', output: { text: 'v1 <p v1 <d>>' } });

    const past = await fork(id, { fromStep: 'publish' }, 'publish');
    const forked = await run(past);
    expect(forked).toMatchObject({ status: 'completed', output: { text: 'v1 <p v1 <d>>' } });
    expect(forked.stepResults.check).toEqual({ ...original.stepResults.check, copied: true });
    expect(await events(past)).not.toContain('paused_for_review:check');

    // A paused run can be forked too (it is not running).
    const paused = await settled('/workflows/gated/runs', { input: {} });
    expect((await run(paused)).status).toBe('paused');
    const fromPaused = await fork(paused, { fromStep: 'draft' }, 'draft');
    expect((await run(fromPaused)).status).toBe('paused');
  });
});

describe('forking a skill run', () => {
  it('re-runs the skill with the given input or the original one', async () => {
    const id = await settled('/skills/echo/runs', { input: { text: 'a' } });
    expect(await run(id)).toMatchObject({ status: 'completed', output: { text: 'v1 <a>' } });
    const same = await fork(id, {}, null);
    expect(await run(same)).toMatchObject({
      kind: 'skill',
      status: 'completed',
      input: { text: 'a' },
      output: { text: 'v1 <a>' },
      forkOf: { runId: id, fromStep: null },
      stepResults: expect.not.objectContaining({ echo: expect.objectContaining({ copied: true }) }),
    });
    const other = await fork(id, { input: { text: 'b' }, workspace: 'current' }, null);
    expect(await run(other)).toMatchObject({ input: { text: 'b' }, output: { text: 'v1 <b>' } });
    expect((await run(id)).forks).toEqual([same, other]);
  });
});

describe('refusals', () => {
  let skillRun: number;
  let failedRun: number;
  let completed: number;
  beforeAll(async () => {
    skillRun = await settled('/skills/echo/runs', { input: { text: 'z' } });
    failedRun = await settled('/workflows/breaks/runs', { input: {} });
    completed = await settled('/workflows/chain/runs', { input: { topic: 'x' } });
    expect((await run(failedRun)).status).toBe('failed');
  });

  /** Expects `body` to be refused with `status`, and no run to be written. */
  async function refused(id: number, body: unknown, status: number, token = admin.token) {
    const before = await runCount();
    const res = await post(`/runs/${id}/fork`, body, token);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(await runCount()).toBe(before);
    expect((await run(id)).forks ?? []).toEqual([]);
    return res.body.error;
  }

  it('404 for an unknown run, an id that is no run, and another org’s run', async () => {
    expect((await refused(999_999, {}, 404)).details).toEqual({ kind: 'run', id: '999999' });
    expect((await post('/runs/abc/fork', {})).status).toBe(404);
    expect((await refused(completed, {}, 404, foreign.token)).code).toBe('NOT_FOUND');
  });

  it('403 without run:invoke', async () => {
    expect((await refused(completed, {}, 403, readOnly.token)).code).toBe('FORBIDDEN');
  });

  it('400 for fromStep on a skill run, an unknown step, or a step after one without a result', async () => {
    const onSkill = await refused(skillRun, { fromStep: 'echo' }, 400);
    expect(onSkill.details.issues).toEqual([expect.objectContaining({ field: 'body.fromStep' })]);
    const unknown = await refused(completed, { fromStep: 'nope' }, 400);
    expect(unknown.details.issues).toEqual([
      expect.objectContaining({ field: 'body.fromStep', fromStep: 'nope', steps: ['one', 'two', 'three'] }),
    ]);
    const afterFailure = await refused(failedRun, { fromStep: 'third' }, 400);
    expect(afterFailure.details.issues).toEqual([
      expect.objectContaining({ field: 'body.fromStep', missing: ['second'] }),
    ]);
    // From the failed step itself is fine: its earlier step is copied.
    const retry = await post(`/runs/${failedRun}/fork`, { fromStep: 'second' });
    expect(retry.status).toBe(202);
    await t.app.jobs.drain();
    expect((await run(retry.body.runId)).stepResults.first.copied).toBe(true);
  });

  it('400 for a malformed workspace, 404 for a version the org does not have', async () => {
    const malformed = await refused(completed, { workspace: 'HEAD' }, 400);
    expect(malformed.details.issues).toEqual([expect.objectContaining({ field: 'body.workspace' })]);
    const unknown = await refused(completed, { workspace: '0000000' }, 404);
    expect(unknown.details).toEqual({ kind: 'workspace version', id: '0000000' });
    await createSkill(t, foreign.token, { slug: 'theirs' });
    const foreignSha = (
      await t.app.db.sql.query<{ sha: string }>(
        `select v.sha from workspace_versions v join orgs o on o.id = v.org_id where o.slug = 'other' limit 1`,
      )
    )[0]?.sha as string;
    expect((await refused(completed, { workspace: foreignSha }, 404)).code).toBe('NOT_FOUND');
  });

  it('400 for input that does not match the schema, or unknown fields', async () => {
    const bad = await refused(skillRun, { input: { text: 5 } }, 400);
    expect(bad.details.issues).toEqual([expect.objectContaining({ field: 'body.input.text' })]);
    expect((await refused(skillRun, { from: 'x' }, 400)).code).toBe('VALIDATION_FAILED');
    expect((await refused(skillRun, { input: 'x' }, 400)).code).toBe('VALIDATION_FAILED');
  });

  it('409 for a run that is still running', async () => {
    const res = await post('/skills/echo/runs', { input: { text: 'r' } });
    const running = res.body.runId as number;
    expect((await run(running)).status).toBe('running');
    const error = await refused(running, {}, 409);
    expect(error.details).toEqual({ runId: running, status: 'running', action: 'fork' });
    await t.app.jobs.drain();
  });
});
