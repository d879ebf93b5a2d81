/** `GET /api/v1/actors/:kind/:id/transitions`: any persisted actor's log, oldest first; 404 across orgs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pendingSkillRun, type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';
import { waitFor } from '../../helpers/wait.js';

let t: TestApp;
let acme: ReviewOrg;
let other: ReviewOrg;

beforeAll(async () => {
  t = await startTestApp();
  acme = await setupReviewOrg(t, 'acme');
  other = await setupReviewOrg(t, 'other');
});
afterAll(async () => {
  await t.close();
});

describe('actor transitions', () => {
  it("answers a run's log, numbered from 1, oldest first", async () => {
    const id = await pendingSkillRun(t, acme.owner.token);
    // The step first (the run then waits for its review), so the approval is the log's last entry: a
    // run approved while still pending records STEP_SUCCEEDED → approved after it instead.
    const log = () =>
      t.request('GET', `/api/v1/actors/skill-run/${id}/transitions`, { token: acme.owner.token });
    await t.app.jobs.drain();
    // The app's own workers may have taken the step before drain() looked: wait for it to be taken.
    await waitFor(
      async () => (await log()).body.transitions.some((x: { event: string }) => x.event === 'STEP_SUCCEEDED'),
      'the step to be taken by the run',
    );
    await t.request('POST', `/api/v1/runs/${id}/approve`, { token: acme.owner.token, body: {} });
    const res = await log();
    expect(res.status).toBe(200);
    const { transitions } = res.body;
    expect(transitions[0]).toMatchObject({
      seq: 1,
      from: null,
      to: 'pending.awaitingModel',
      event: 'xstate.init',
    });
    expect(transitions.at(-1)).toMatchObject({
      to: 'approved',
      event: 'APPROVE',
      by: `token:${acme.owner.id}`,
    });
    expect(transitions.map((x: { seq: number }) => x.seq)).toEqual(
      transitions.map((_: unknown, i: number) => i + 1),
    );
  });

  it("is 404 for another org's actor, an unknown kind or id", async () => {
    const id = await pendingSkillRun(t, other.owner.token);
    for (const path of [`skill-run/${id}`, `no-such-kind/${id}`, 'skill-run/999999', 'skill-run/abc']) {
      const res = await t.request('GET', `/api/v1/actors/${path}/transitions`, { token: acme.owner.token });
      expect(res.status, path).toBe(404);
    }
  });
});
