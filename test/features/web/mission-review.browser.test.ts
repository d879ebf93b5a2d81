/**
 * The review screen of a mission run in a real browser (/review/missions/:id, the run's `reviewUrl`),
 * with the echo provider: goal, status and the plan's tasks (agent, skill, dependencies, the child
 * run's inspector link, an output excerpt, the child run's review page linking back) and artifacts shown; approving the plan from it is
 * followed live (the tasks run, the result review arrives, the plan's decision headed "Plan review",
 * at 1280 and at 360 px) and approving the result completes the run ("Result review"); reject with a
 * reason cancels it; a failed task and a cancel made elsewhere show live (the error with its code and
 * task); without the approve capability no buttons; another org's run is a not-found page.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { orgIdOf } from '../../helpers/api.js';
import { ALL_SCOPES, type TestApp } from '../../helpers/app.js';
import {
  checkAccessibility,
  describeInBrowser,
  expectNoSidewaysScroll,
  screenshot,
  watchPageErrors,
} from '../../helpers/browser.js';
import { createMission, createTeam, waitForMissionRun } from '../../helpers/missions.js';
import { decisionsTakeEffect } from '../../helpers/reviews.js';

describeInBrowser('the mission review screen in the browser', (suite) => {
  let t: TestApp;
  let owner: string;

  beforeAll(async () => {
    t = await suite.start();
    owner = (await t.token({ org: 'acme', user: 'acme-owner', role: 'owner', scopes: ALL_SCOPES })).token;
    await t.token({ org: 'other', user: 'other-owner', role: 'owner', scopes: ALL_SCOPES });
    await createTeam(t, owner, ['lead', 'writer']);
    await createMission(t, owner, 'launch', ['lead', 'writer'], { review: 'both' });
  });

  const start = async (body: Record<string, unknown>): Promise<{ id: number; reviewUrl: string }> => {
    const res = await t.request('POST', '/api/v1/mission-runs', { token: owner, body });
    expect(res.status, res.text).toBe(202);
    const id = res.body.missionRunId as number;
    const run = await waitForMissionRun(t, owner, id, ['awaiting_review', 'failed']);
    expect(run.status).toBe('awaiting_review');
    return { id, reviewUrl: run.reviewUrl };
  };
  const signedIn = (userId: string, role: 'pm' | 'specialist' = 'pm', org = 'acme'): Promise<Page> =>
    suite.signIn({ org, userId, role });

  it('approves the plan, follows the tasks live to the result review, approves it: completed', async () => {
    const { id, reviewUrl } = await start({ missionSlug: 'launch', input: { product: 'Rocket' } });
    expect(reviewUrl).toBe(`${t.app.baseUrl()}/review/missions/${id}`);
    const page = await signedIn('rev-ada');
    const errors = watchPageErrors(page);
    // From the queue: the item links to the mission's screen.
    await page.locator(`a[href="/review/missions/${id}"]`).first().click();
    await page.getByRole('heading', { name: 'Plan', exact: true }).waitFor();
    expect(page.url()).toBe(reviewUrl);
    expect(await page.locator('h1').textContent()).toContain('launch');
    await page.getByText('Launch note for Rocket').first().waitFor();
    await page.getByRole('heading', { name: 'Decide on the plan' }).waitFor();
    const tasks = page.locator('ol.tasks > li');
    expect(await tasks.count()).toBe(2);
    expect(await tasks.nth(0).textContent()).toContain('lead');
    expect(await tasks.nth(1).locator('dd').nth(3).textContent()).toBe('task-1');
    expect(await page.locator('ol.tasks .status-pending').count()).toBe(2);
    await screenshot(page, 'review-mission-plan');
    expect(await checkAccessibility(page)).toEqual([]);

    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await decisionsTakeEffect(t, owner, 'mission', id);
    // Live from the stream: the tasks run, then the run waits for the review of its result.
    await page.getByRole('heading', { name: 'Decide on the result' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('ol.tasks .status-completed').count()).toBe(2);
    const run = (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: owner })).body;
    for (const task of run.plan.tasks) {
      const item = page.locator(`ol.tasks > li[data-task="${task.id}"]`);
      expect(await item.locator(`a[href="/inspect/skill-run/${task.runId}"]`).count()).toBe(1);
      expect(await item.locator('pre.excerpt').textContent()).toContain('Launch note for Rocket');
    }
    // A task's run names the mission run it is part of on its review page: a link back here, not raw data.
    const taskPage = await signedIn('rev-ada');
    await taskPage.goto(`${t.url}/review/runs/${run.plan.tasks[0].runId}`);
    const back = taskPage.getByRole('link', { name: `mission run ${id}`, exact: true });
    await back.waitFor();
    expect(await back.getAttribute('href')).toBe(`/review/missions/${id}`);
    expect(await taskPage.locator('dl.facts').first().textContent()).toContain(`Part ofmission run ${id}`);
    expect(await taskPage.locator('main h2').allTextContents()).not.toContain('missionRunId');
    expect(await checkAccessibility(taskPage)).toEqual([]);
    await taskPage.close();
    // An artifact the run made links to its content.
    const artifact = await t.app.artifacts.create(
      { orgId: await orgIdOf(t, 'acme'), actor: 'user:acme-owner', apiTokenId: null, missionRunId: id },
      { name: 'note.md', mediaType: 'text/markdown', content: Buffer.from('# Rocket\n') },
    );
    await page.reload();
    const link = page.locator(`.artifacts a[href="/api/v1/artifacts/${artifact.id}/content"]`);
    await link.waitFor();
    expect(await (await page.request.get(`${t.url}/api/v1/artifacts/${artifact.id}/content`)).text()).toBe(
      '# Rocket\n',
    );
    // The plan's decision, while the result awaits one, is headed as the plan's.
    const decision = page.locator('section[aria-labelledby="review-title"]');
    expect(await decision.locator('h2#review-title').textContent()).toBe('Plan review');
    expect(await page.getByRole('region', { name: 'Plan review' }).textContent()).toContain('approved by');
    expect(await page.getByRole('heading', { name: 'Result review' }).count()).toBe(0);
    await screenshot(page, 'review-mission-result');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.setViewportSize({ width: 360, height: 740 });
    await screenshot(page, 'review-mission-result-360px');
    await expectNoSidewaysScroll(page, 'mission result review');
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByLabel('Note (optional)').fill('ship it');
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await decisionsTakeEffect(t, owner, 'mission', id);
    await page.locator('main > dl.facts .status-completed').waitFor();
    // The held decision ("Approval on its way … note: ship it") goes once the item is read as decided:
    // the mission's status can arrive first, on its own stream.
    await page.locator('section.held').waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await page.getByText('note: ship it').waitFor();
    expect(await decision.locator('h2#review-title').textContent()).toBe('Result review');
    await screenshot(page, 'review-mission-completed');
    const done = (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: owner })).body;
    expect(done).toMatchObject({ status: 'completed', review: { decision: 'approved', note: 'ship it' } });
    expect(errors).toEqual([]);
  });

  it('an ad hoc mission: rejected with a reason, it is cancelled', async () => {
    const { id, reviewUrl } = await start({ team: ['lead', 'writer'], goal: 'A tagline for Comet' });
    const page = await signedIn('rev-bo');
    await page.goto(reviewUrl);
    await page.getByRole('heading', { name: 'Ad hoc mission' }).waitFor();
    await page.getByText('A tagline for Comet').first().waitFor();
    await page.getByLabel('Reason', { exact: true }).fill('not yet');
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    await decisionsTakeEffect(t, owner, 'mission', id);
    await page.locator('main > dl.facts .status-cancelled').waitFor();
    await page.locator('section.held').waitFor({ state: 'detached' });
    await page.getByText('reason: not yet').waitFor();
    await page.getByRole('heading', { name: 'Result review' }).waitFor();
    const run = (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: owner })).body;
    expect(run).toMatchObject({ status: 'cancelled', review: { decision: 'rejected', reason: 'not yet' } });
  });

  it('a task that fails: the failure and its error show live', async () => {
    await createTeam(t, owner, ['solo', 'gone']);
    await createMission(t, owner, 'breaks', ['solo', 'gone'], { review: 'plan' });
    const { id, reviewUrl } = await start({ missionSlug: 'breaks', input: { product: 'Flop' } });
    const page = await signedIn('rev-eve');
    const errors = watchPageErrors(page);
    await page.goto(reviewUrl);
    await page.getByRole('heading', { name: 'Decide on the plan' }).waitFor();
    // The mission's definition no longer names the agent (the run keeps its own), so it can be turned off.
    const patched = await t.request('PATCH', '/api/v1/missions/breaks', {
      token: owner,
      body: { team: [{ agent: 'solo', role: 'solo role' }] },
    });
    expect(patched.status, patched.text).toBe(200);
    const off = await t.request('PATCH', '/api/v1/agents/gone', { token: owner, body: { active: false } });
    expect(off.status, off.text).toBe(200);
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await decisionsTakeEffect(t, owner, 'mission', id);
    await page.locator('main > dl.facts .status-failed').waitFor({ timeout: 20_000 });
    await page.getByRole('heading', { name: 'Error' }).waitFor();
    expect(await page.locator('[aria-labelledby="error-title"] code').textContent()).toBe('TASK_FAILED');
    expect(await page.locator('[aria-labelledby="error-title"]').textContent()).toContain('(task task-2)');
    expect(await page.locator('li[data-task="task-2"] .status-failed').count()).toBe(1);
    const run = (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: owner })).body;
    expect(run).toMatchObject({ status: 'failed', error: { code: 'TASK_FAILED', task: 'task-2' } });
    expect(errors).toEqual([]);
  });

  it('cancelled elsewhere while open: the screen shows it without a reload', async () => {
    const { id, reviewUrl } = await start({ missionSlug: 'launch', input: { product: 'Nova' } });
    const page = await signedIn('rev-fay');
    await page.goto(reviewUrl);
    await page.getByRole('heading', { name: 'Decide on the plan' }).waitFor();
    const cancelled = await t.request('POST', `/api/v1/mission-runs/${id}/cancel`, {
      token: owner,
      body: {},
    });
    expect(cancelled.status).toBe(200);
    await page.locator('main > dl.facts .status-cancelled').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
  });

  it('without the approve capability: no buttons; another org: not found', async () => {
    const { reviewUrl } = await start({ missionSlug: 'launch', input: { product: 'Probe' } });
    const specialist = await signedIn('spec-cy', 'specialist');
    await specialist.goto(reviewUrl);
    await specialist.getByRole('heading', { name: 'Plan', exact: true }).waitFor();
    expect(await specialist.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    const stranger = await signedIn('other-dee', 'pm', 'other');
    await stranger.goto(reviewUrl);
    await stranger.getByText('There is no such mission run here.').waitFor();
  });
  it('at plan review: the task graph drawn, each task’s instructions; edits the plan (an instruction, a task removed), reads the diff, approves the edit', async () => {
    const { id, reviewUrl } = await start({ missionSlug: 'launch', input: { product: 'Plane' } });
    const page = await signedIn('rev-pia');
    const errors = watchPageErrors(page);
    await page.goto(reviewUrl);
    await page.getByRole('heading', { name: 'Decide on the plan' }).waitFor();
    const planned = (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: owner })).body.plan.tasks;
    // The graph: a box per task, an arrow per dependency, said in words too.
    const graph = page.locator('figure.task-graph svg');
    await expect.poll(() => graph.locator('g[data-task]').count()).toBe(planned.length);
    expect(await graph.locator('line.edge').count()).toBe(
      planned.reduce((n: number, task: { dependsOn: string[] }) => n + task.dependsOn.length, 0),
    );
    expect(await graph.getAttribute('aria-label')).toContain('task-2 after task-1');
    expect(await page.locator('ol.tasks p.instructions').first().textContent()).toBe(planned[0].instructions);
    expect(await checkAccessibility(page)).toEqual([]);

    await page.getByRole('button', { name: 'Edit the plan before approving' }).click();
    await page.getByLabel('Instructions').first().fill('Write the launch note, short.');
    await page.getByRole('button', { name: 'Remove task task-2' }).click();
    await expect.poll(() => graph.locator('g[data-task]').count()).toBe(planned.length - 1);
    await page.getByRole('button', { name: 'Review changes…' }).click();
    const changes = page.getByRole('region', { name: 'Your changes' });
    await expect
      .poll(() => changes.locator('.ins').allTextContents())
      .toEqual(expect.arrayContaining([expect.stringContaining('Write the launch note, short.')]));
    expect(await checkAccessibility(page)).toEqual([]);
    await page.getByRole('button', { name: 'Approve with these changes' }).click();
    await decisionsTakeEffect(t, owner, 'mission', id);
    await expect
      .poll(
        async () => (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: owner })).body.draftPlan,
      )
      .not.toBeNull();
    const run = (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: owner })).body;
    expect(run.plan.tasks.map((task: { id: string }) => task.id)).toEqual(['task-1']);
    expect(run.plan.tasks[0].instructions).toBe('Write the launch note, short.');
    expect(run.draftPlan.tasks).toHaveLength(planned.length);
    expect(run.review).toMatchObject({ decision: 'approved', stage: 'plan', edited: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });
  it('at plan review: requests changes with a reason — the planner plans again and the new plan awaits review (round 2)', async () => {
    const { id, reviewUrl } = await start({ missionSlug: 'launch', input: { product: 'Rounds' } });
    const page = await signedIn('rev-rc');
    const errors = watchPageErrors(page);
    await page.goto(reviewUrl);
    await page.getByRole('heading', { name: 'Decide on the plan' }).waitFor();
    const reason = page.getByLabel('What must change (sent to the model for a new draft)');
    await reason.focus();
    await page.keyboard.type('Split the writing into two tasks.');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.getByRole('button', { name: 'Request changes' }).focus();
    await page.keyboard.press('Enter');
    // The echo planner answers the plan it was asked to revise: a new plan, a new item (round 2).
    await expect
      .poll(
        async () =>
          (await t.request('GET', `/api/v1/reviews/mission/${id}`, { token: owner })).body.review.rounds,
        {
          timeout: 30_000,
        },
      )
      .toBe(1);
    const run = (await t.request('GET', `/api/v1/mission-runs/${id}`, { token: owner })).body;
    expect(run.status).toBe('awaiting_review');
    expect(run.rounds).toEqual([expect.objectContaining({ reason: 'Split the writing into two tasks.' })]);
    await page.getByRole('heading', { name: 'Decide on the plan' }).waitFor();
    expect(errors).toEqual([]);
  });
});
