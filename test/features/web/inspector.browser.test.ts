/**
 * The inspector in a real browser: the kind's statechart laid out by elkjs as SVG, the current state
 * highlighted, stepping through the run's transitions with the slider and the log, following it live.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';
import { type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';

describeInBrowser('the inspector in the browser', (suite) => {
  let t: TestApp;
  let org: ReviewOrg;

  beforeAll(async () => {
    t = await suite.start();
    org = await setupReviewOrg(t, 'acme');
  });

  const signedIn = (path: string): Promise<Page> =>
    suite.signIn({ org: 'acme', userId: 'insp-ines', role: 'pm' }, path);
  /** A `gate-first` workflow run, once it waits at its gate (the server's workers move it there). */
  async function pausedWorkflowRun(token: string): Promise<number> {
    const res = await t.request('POST', '/api/v1/workflows/gate-first/runs', { token, body: { input: {} } });
    expect(res.status).toBe(202);
    const id = res.body.runId as number;
    await expect
      .poll(async () => (await t.request('GET', `/api/v1/runs/${id}`, { token })).body.status)
      .toBe('paused');
    return id;
  }
  const currentState = (page: Page) =>
    page.locator('svg.statechart g.state.current').getAttribute('data-state');

  it('draws the statechart, follows the run live, and steps back through it', async () => {
    const id = await pausedWorkflowRun(org.owner.token);
    const page = await signedIn(`/inspect/workflow-run/${id}`);
    const errors = watchPageErrors(page);
    await page.locator('svg.statechart g.state[data-state="paused"]').waitFor();
    for (const state of ['running', 'paused', 'completed', 'failed', 'cancelled']) {
      expect(await page.locator(`svg.statechart g.state[data-state="${state}"]`).count(), state).toBe(1);
    }
    expect(await page.locator('svg.statechart g.edge[data-event="APPROVE"]').count()).toBeGreaterThan(0);
    await expect.poll(() => currentState(page)).toBe('paused');
    await screenshot(page, 'inspector');
    expect(await checkAccessibility(page)).toEqual([]);

    // Live: approved elsewhere, the drawing moves on to completed.
    await t.request('POST', `/api/v1/runs/${id}/approve`, { token: org.owner.token, body: {} });
    await t.app.jobs.drain();
    await expect.poll(() => currentState(page)).toBe('completed');
    const total = await page.locator('ol.log > li').count();
    expect(total).toBeGreaterThan(3);

    // The slider replays: step 1 is the first state, and the log's entries move it too.
    await page.getByRole('slider', { name: 'Step' }).fill('1');
    const first = await page.locator('ol.log > li').first().textContent();
    await expect.poll(() => currentState(page)).toBe(/→ (\w+)/.exec(first ?? '')?.[1]);
    await page.locator('ol.log > li', { hasText: '→ paused' }).first().getByRole('button').click();
    await expect.poll(() => currentState(page)).toBe('paused');
    expect(await page.locator('svg.statechart g.edge.hot').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("shows another org's actor, or an unknown kind, as not found", async () => {
    const other = await setupReviewOrg(t, 'other');
    const id = await pausedWorkflowRun(other.owner.token);
    const page = await signedIn(`/inspect/workflow-run/${id}`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.goto(`${t.url}/inspect/no-such-kind/1`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.context().close();
  });
});
