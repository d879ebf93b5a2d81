/**
 * One review item through the socket (docs/api.md "Review queue"): `GET /reviews/:kind/:id` answers
 * the item and its subject as the subject's own GET does, for each kind, with the open item's
 * revision as `ETag`; the revision is the list's too and changes with everything a reviewer sees (a
 * draft arriving, an assignment, a snooze); a closed item has none; tenancy, kinds, ids and scopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import {
  missionAwaitingPlan,
  pausedWorkflowRun,
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
  await t.token({ org: 'acme', user: 'ann', role: 'pm', scopes: ALL_SCOPES });
  foreign = (await setupReviewOrg(t, 'other')).owner;
});
afterAll(() => t.close());

const get = (path: string, token = owner.token) => t.request('GET', `/api/v1${path}`, { token });
const post = (path: string, body: unknown) =>
  t.request('POST', `/api/v1${path}`, { token: owner.token, body });

/** The item `{kind, id}` as the queue lists it. */
async function listed(kind: string, id: number) {
  const page = await get('/reviews?includeSnoozed=true&limit=200');
  return page.body.reviews.find((r: { kind: string; id: number }) => r.kind === kind && r.id === id);
}

describe('GET /reviews/:kind/:id', () => {
  it('answers a pending skill run’s item and the run, with the revision as ETag, as the queue lists it', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const res = await get(`/reviews/skill/${id}`);
    expect(res.status).toBe(200);
    const item = await listed('skill', id);
    expect(res.body.review).toEqual(item);
    expect(res.body.review).toMatchObject({ kind: 'skill', id, status: 'pending' });
    expect(res.body.review.revision).toEqual(expect.any(String));
    expect(res.headers.get('etag')).toBe(`"${res.body.review.revision}"`);
    expect(res.body.subject).toEqual((await get(`/runs/${id}`)).body);
  });

  it('changes the revision when the draft arrives, when the item is assigned and when it is snoozed', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const seen = [(await get(`/reviews/skill/${id}`)).body.review.revision];
    await t.app.jobs.drain();
    const drafted = await get(`/reviews/skill/${id}`);
    expect(drafted.body.subject.output).toEqual({ text: expect.any(String) });
    seen.push(drafted.body.review.revision);
    expect((await post('/reviews/assign', { kind: 'skill', id, assignedTo: 'ann' })).status).toBe(200);
    seen.push((await get(`/reviews/skill/${id}`)).body.review.revision);
    const until = new Date(t.clock.now() + 3_600_000).toISOString();
    expect((await post('/reviews/snooze', { kind: 'skill', id, until })).status).toBe(200);
    const snoozed = await get(`/reviews/skill/${id}`);
    seen.push(snoozed.body.review.revision);
    expect(new Set(seen).size).toBe(4);
    expect(snoozed.headers.get('etag')).toBe(`"${seen[3]}"`);
    expect((await listed('skill', id)).revision).toBe(seen[3]);
    // The draft's arrival is a transition of the item, attributed to the worker that brought it.
    const log = await get(`/runs/${id}/transitions`);
    expect(
      log.body.transitions
        .filter((row: { actorKind: string }) => row.actorKind === 'review-item')
        .map((row: { event: { type: string }; actor: string }) => [row.event.type, row.actor]),
    ).toEqual([
      ['xstate.init', `token:${owner.id}`],
      ['SUBJECT_CHANGED', 'worker'],
      ['ASSIGN', `token:${owner.id}`],
      ['SNOOZE', `token:${owner.id}`],
    ]);
  });

  it('answers a paused workflow run’s gate, a mission run’s plan review and a proposal, each with its subject', async () => {
    const workflow = await pausedWorkflowRun(t, owner.token);
    const mission = await missionAwaitingPlan(t, owner.token);
    const proposal = await pendingProposal(t, 'acme');
    const cases = [
      ['workflow', workflow, 'paused', `/runs/${workflow}`],
      ['mission', mission, 'awaiting_review', `/mission-runs/${mission}`],
      ['action', proposal, 'pending', `/proposals/${proposal}`],
    ] as const;
    for (const [kind, id, status, subjectPath] of cases) {
      const res = await get(`/reviews/${kind}/${id}`);
      expect(res.status, kind).toBe(200);
      expect(res.body.review, kind).toEqual(await listed(kind, id));
      expect(res.body.review, kind).toMatchObject({ kind, id, status });
      expect(res.headers.get('etag'), kind).toBe(`"${res.body.review.revision}"`);
      expect(res.body.subject, kind).toEqual((await get(subjectPath)).body);
    }
  });

  it('answers a run’s steps from the version it runs: a skill with its outputSchema, a workflow’s gates and skill steps; none for missions and actions', async () => {
    const strict = await pendingSkillRun(t, owner.token, 'gated-strict');
    const skill = await get(`/reviews/skill/${strict}`);
    expect(skill.body.steps).toEqual([
      {
        name: 'gated-strict',
        type: 'skill',
        skill: 'gated-strict',
        outputSchema: { type: 'object', required: ['summary'] },
      },
    ]);
    const plain = await get(`/reviews/skill/${await pendingSkillRun(t, owner.token)}`);
    expect(plain.body.steps).toEqual([{ name: 'gated', type: 'skill', skill: 'gated', outputSchema: null }]);
    const workflow = await pausedWorkflowRun(t, owner.token);
    // A later change of the skill does not change what the run's steps say (the run's own version).
    expect(
      (
        await t.request('PATCH', '/api/v1/skills/echoer', {
          token: owner.token,
          body: { manifest: { outputSchema: { type: 'object', required: ['changed'] } } },
        })
      ).status,
    ).toBe(200);
    expect((await get(`/reviews/workflow/${workflow}`)).body.steps).toEqual([
      { name: 'gate', type: 'approve', title: 'Go?' },
      { name: 'work', type: 'skill', skill: 'echoer', outputSchema: null },
    ]);
    const mission = await missionAwaitingPlan(t, owner.token);
    expect((await get(`/reviews/mission/${mission}`)).body).not.toHaveProperty('steps');
    expect((await get(`/reviews/workflow/${workflow}`, foreign.token)).status).toBe(404);
  });

  it('answers a decided item as decided, without a revision or ETag', async () => {
    const id = await pendingSkillRun(t, owner.token);
    expect((await post('/reviews/decide', { kind: 'skill', id, action: 'reject' })).status).toBe(200);
    const res = await get(`/reviews/skill/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.review).toMatchObject({ kind: 'skill', id, status: 'decided', revision: null });
    expect(res.headers.get('etag')).toBeNull();
    expect(res.body.subject).toMatchObject({ id, status: 'rejected' });
  });

  it('answers 404 for another org’s item, another kind’s id, a run that never waited, an unknown kind or id', async () => {
    const theirs = await pendingSkillRun(t, foreign.token);
    const workflow = await pausedWorkflowRun(t, owner.token);
    const auto = await t.request('POST', '/api/v1/skills/echoer/runs', {
      token: owner.token,
      body: { input: { text: 'x' } },
    });
    for (const path of [
      `/reviews/skill/${theirs}`,
      `/reviews/skill/${workflow}`,
      `/reviews/skill/${auto.body.runId}`,
      `/reviews/skill/999999`,
      `/reviews/run/${workflow}`,
      '/reviews/skill/abc',
      '/reviews/skill/0',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code, path).toBe('NOT_FOUND');
    }
    // The other org sees its own.
    expect((await get(`/reviews/skill/${theirs}`, foreign.token)).status).toBe(200);
  });

  it('answers 403 without read:all, and 401 without a token', async () => {
    const id = await pendingSkillRun(t, owner.token);
    const skillsOnly = await t.token({ org: 'acme', user: 'sam', role: 'pm', scopes: ['read:skills'] });
    const res = await get(`/reviews/skill/${id}`, skillsOnly.token);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect((await t.request('GET', `/api/v1/reviews/skill/${id}`)).status).toBe(401);
  });
});
