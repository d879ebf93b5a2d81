/**
 * Quality per version through the socket (docs/api.md "Quality per version", decisions.md §17):
 * runs of a skill and of a workflow on two versions, decided, edited and rated by hand — the figures
 * counted by hand below — with an evaluation's shadow runs left out; MCP `runtime_skill_quality`
 * answers the same; 404 unknown or another org's; 403 without read:all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { patchSkill } from '../../helpers/resources.js';
import { pausedWorkflowRun, pendingSkillRun, setupReviewOrg } from '../../helpers/reviews.js';

let t: TestApp;
let owner: CreatedToken;
let foreign: CreatedToken;
let noRead: CreatedToken;
let v1: string;
let v2: string;

const post = (path: string, body: unknown) =>
  t.request('POST', `/api/v1${path}`, { token: owner.token, body });
const get = (path: string, token = owner.token) => t.request('GET', `/api/v1${path}`, { token });
const applied = async () =>
  (
    await t.app.db.sql.one<{ sha: string }>(
      `select h.applied_sha as sha from workspace_heads h join orgs o on o.id = h.org_id where o.slug = 'acme'`,
    )
  ).sha;
async function decide(id: number, action: 'approve' | 'reject', edits?: unknown, kind = 'skill') {
  const res = await post('/reviews/decide', { kind, id, action, ...(edits ? { edits } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
async function rate(id: number, rating: 'up' | 'down') {
  expect((await post(`/runs/${id}/feedback`, { rating })).status).toBe(200);
}

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  owner = (await setupReviewOrg(t, 'acme')).owner;
  await setupReviewOrg(t, 'globex');
  foreign = await t.token({ org: 'globex', scopes: ALL_SCOPES });
  noRead = await t.token({ scopes: ['run:invoke'] });
  v1 = (await applied()).slice(0, 12);
  // v1: five runs — approved, approved with an edit, approved with 2 rounds of changes requested,
  // rejected, pending; rated up, up, down.
  const a = [];
  for (let i = 0; i < 5; i++) a.push(await pendingSkillRun(t, owner.token));
  await t.app.jobs.drain();
  await decide(a[0] as number, 'approve');
  await decide(a[1] as number, 'approve', { output: { text: 'edited' } });
  for (const reason of ['shorter', 'shorter still']) {
    const res = await post('/reviews/decide', { kind: 'skill', id: a[2], action: 'request_changes', reason });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await t.app.jobs.drain();
  }
  await decide(a[2] as number, 'approve');
  await decide(a[3] as number, 'reject');
  await rate(a[0] as number, 'up');
  await rate(a[1] as number, 'up');
  await rate(a[3] as number, 'down');
  // v2: two runs, both rejected, one rated down; then an evaluation's shadow runs on v2 (left out).
  await patchSkill(t, owner.token, 'gated', { promptMd: 'Sum up: {{input.text}}' });
  v2 = (await applied()).slice(0, 12);
  const b = [await pendingSkillRun(t, owner.token), await pendingSkillRun(t, owner.token)];
  await t.app.jobs.drain();
  await decide(b[0] as number, 'reject');
  await decide(b[1] as number, 'reject');
  await rate(b[1] as number, 'down');
  expect((await post('/skills/gated/evaluations', { workspace: v2 })).status).toBe(202);
  await t.app.jobs.drain();
});

afterAll(async () => {
  await t.close();
});

const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

/** Hand-counted: see beforeAll. */
const skillQuality = () => ({
  versions: [
    {
      workspaceSha: v2,
      runs: 2,
      approved: 0,
      rejected: 2,
      edited: 0,
      changesRequested: 0,
      approvalRate: 0,
      editRate: null,
      ratingsUp: 0,
      ratingsDown: 1,
      firstRunAt: at,
      lastRunAt: at,
    },
    {
      workspaceSha: v1,
      runs: 5,
      approved: 3,
      rejected: 1,
      edited: 1,
      changesRequested: 2,
      approvalRate: 0.75,
      editRate: 0.3333,
      ratingsUp: 2,
      ratingsDown: 1,
      firstRunAt: at,
      lastRunAt: at,
    },
  ],
});

describe('quality per version', () => {
  it('counts a skill’s runs per version, newest version first, shadow runs left out', async () => {
    const res = await get('/skills/gated/quality');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual(skillQuality());
  });

  it('counts a workflow’s runs: decisions at its gates', async () => {
    // gate-first: one approved at its gate, one rejected there (on v2: the workflow did not change, the version did).
    const w = [await pausedWorkflowRun(t, owner.token), await pausedWorkflowRun(t, owner.token)];
    await decide(w[0] as number, 'approve', undefined, 'workflow');
    await decide(w[1] as number, 'reject', undefined, 'workflow');
    await t.app.jobs.drain();
    const res = await get('/workflows/gate-first/quality');
    expect(res.status).toBe(200);
    expect(res.body.versions).toEqual([
      expect.objectContaining({
        workspaceSha: v2,
        runs: 2,
        approved: 1,
        rejected: 1,
        edited: 0,
        approvalRate: 0.5,
        editRate: 0,
        ratingsUp: 0,
        ratingsDown: 0,
      }),
    ]);
  });

  it('answers the same over MCP (runtime_skill_quality); NOT_FOUND, VALIDATION_FAILED, another org’s own', async () => {
    const mcp = await connectHttp(t.url, owner.token);
    try {
      expect(await ok(mcp, 'runtime_skill_quality', { slug: 'gated' })).toEqual(skillQuality());
      await fails(mcp, 'runtime_skill_quality', { slug: 'nope' }, 'NOT_FOUND');
      await fails(mcp, 'runtime_skill_quality', { slug: 'gated', extra: 1 }, 'VALIDATION_FAILED');
    } finally {
      await mcp.close();
    }
    // Another org's caller sees its own skill of that slug (no runs), none of acme's.
    const theirs = await connectHttp(t.url, foreign.token);
    try {
      expect(await ok(theirs, 'runtime_skill_quality', { slug: 'gated' })).toEqual({ versions: [] });
    } finally {
      await theirs.close();
    }
  });

  it('is empty for a resource without runs; 404 unknown or another org’s; 403 without read:all', async () => {
    expect((await get('/skills/echoer/quality')).body).toEqual({ versions: [] });
    expect((await get('/skills/nope/quality')).status).toBe(404);
    expect((await get('/workflows/nope/quality')).status).toBe(404);
    // globex has a gated skill of its own, without runs: its answer shows none of acme's.
    expect((await get('/skills/gated/quality', foreign.token)).body).toEqual({ versions: [] });
    expect((await get('/workflows/routed/quality', foreign.token)).status).toBe(404);
    expect((await get('/skills/gated/quality', noRead.token)).status).toBe(403);
  });
});
