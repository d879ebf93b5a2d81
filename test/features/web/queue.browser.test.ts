/**
 * The review queue in a real browser: cleared with the keyboard alone (j/k, x, a, r, s, g, ?), kept
 * live over SSE in a second browser, buttons and keys by capability, a cross-site POST refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';
import { pendingSkillRun, type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';

describeInBrowser('the review queue in the browser', (suite) => {
  let t: TestApp;
  let org: ReviewOrg;

  beforeAll(async () => {
    t = await suite.start();
    org = await setupReviewOrg(t, 'acme');
  });

  const signedIn = (userId: string, role: 'pm' | 'specialist' = 'pm'): Promise<Page> =>
    suite.signIn({ org: 'acme', userId, role });

  const rows = (page: Page) => page.locator('ol.queue > li');
  const run = async (id: number) =>
    (await t.request('GET', `/api/v1/runs/${id}`, { token: org.owner.token })).body;

  it('clears a queue of 20 items with the keyboard alone', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await pendingSkillRun(t, org.owner.token));
    const page = await signedIn('keyboard-kim');
    const errors = watchPageErrors(page);
    await expect.poll(() => rows(page).count()).toBe(20);
    await screenshot(page, 'queue');
    expect(await checkAccessibility(page)).toEqual([]);

    // j/k move the cursor.
    const current = page.locator('ol.queue > li[aria-current="true"]');
    expect(await current.getAttribute('data-key')).toBe(`skill:${ids[0]}`);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    expect(await current.getAttribute('data-key')).toBe(`skill:${ids[1]}`);

    // r: reject with a reason (typed in the dialog, Enter submits).
    await page.keyboard.press('r');
    await page.getByLabel('Reason').waitFor();
    expect(await checkAccessibility(page)).toEqual([]);
    await page.keyboard.type('off topic');
    await page.keyboard.press('Enter');
    await expect.poll(() => rows(page).count()).toBe(19);
    expect((await run(ids[1]!)).review).toMatchObject({ decision: 'rejected', reason: 'off topic' });

    // s: snooze (an hour); it leaves the active lane.
    expect(await current.getAttribute('data-key')).toBe(`skill:${ids[2]}`);
    await page.keyboard.press('s');
    await page.getByLabel('Hide it for').waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(() => rows(page).count()).toBe(18);

    // g: assign to someone; it stays (now assigned).
    await page.keyboard.press('g');
    await page.getByLabel('User id (empty: unassigned)').waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('acme-owner');
    await page.keyboard.press('Enter');
    await expect.poll(() => current.textContent()).toContain('→ acme-owner');

    // x selects; a approves the selection (bulk).
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await page.getByText('2 selected').waitFor();
    await page.keyboard.press('a');
    await expect.poll(() => rows(page).count()).toBe(16);

    // ? shows the keys; Escape closes it.
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    // a, sixteen times: the queue is empty.
    for (let left = 16; left > 0; left--) {
      await page.keyboard.press('a');
      await expect.poll(() => rows(page).count()).toBe(left - 1);
    }
    await page.getByText('Nothing waits for review here.').waitFor();
    const statuses = await Promise.all(ids.map(async (id) => (await run(id)).status));
    expect(statuses.filter((s) => s === 'approved')).toHaveLength(18);
    expect(statuses.filter((s) => s === 'rejected')).toHaveLength(1);

    // The snoozed one is in the snoozed lane.
    await page.getByRole('button', { name: 'Snoozed' }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().getAttribute('data-key')).toBe(`skill:${ids[2]}`);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a second browser sees items arrive and leave live', async () => {
    const watcher = await signedIn('watching-wes');
    const actor = await signedIn('acting-ann');
    const id = await pendingSkillRun(t, org.owner.token);
    const row = (page: Page) => page.locator(`ol.queue > li[data-key="skill:${id}"]`);
    await row(watcher).waitFor();
    await row(actor).waitFor();
    await row(actor).getByRole('checkbox').check();
    await actor.getByRole('button', { name: 'Approve selected' }).click();
    await row(watcher).waitFor({ state: 'detached' });
    expect((await run(id)).status).toBe('approved');
    await watcher.context().close();
    await actor.context().close();
  });

  it('without the approve capability there are no action buttons, and the keys decide nothing', async () => {
    const id = await pendingSkillRun(t, org.owner.token);
    const page = await signedIn('special-sam', 'specialist');
    await page.locator(`ol.queue > li[data-key="skill:${id}"]`).waitFor();
    await page.locator(`ol.queue > li[data-key="skill:${id}"]`).getByRole('checkbox').check();
    expect(await page.getByRole('button', { name: 'Approve selected' }).count()).toBe(0);
    await page.keyboard.press('a');
    await page.getByText('needs the approve capability').waitFor({ state: 'attached' });
    expect((await run(id)).status).toBe('pending');
    await page.context().close();
  });

  it('an action with a revoked session is refused and sends the browser to sign-in, deciding nothing', async () => {
    const id = await pendingSkillRun(t, org.owner.token);
    const page = await signedIn('late-lena');
    const row = page.locator(`ol.queue > li[data-key="skill:${id}"]`);
    await row.waitFor();
    await row.getByRole('checkbox').check();
    await t.app.sessions.revokeUserSessions('acme', 'late-lena');
    await page.keyboard.press('a');
    await page.waitForURL(/\/login\?next=%2Freview/);
    expect((await run(id)).status).toBe('pending');
    await page.context().close();
  });

  it('refuses a cross-site form POST made with the signed-in browser', async () => {
    const id = await pendingSkillRun(t, org.owner.token);
    const page = await signedIn('csrf-carl');
    // A page of another origin (localhost, not 127.0.0.1) that posts a decision to r3.
    const evil = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><form method="post" enctype="text/plain" action="${t.url}/api/v1/reviews/decide">
        <input name='{"kind":"skill","id":${id},"action":"approve","x":"' value='"}'></form>
        <script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const port = (evil.address() as AddressInfo).port;
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/reviews/decide'));
    await page.goto(`http://localhost:${port}/`);
    expect([401, 403]).toContain((await answer).status());
    expect((await run(id)).status).toBe('pending');
    evil.close();
    await page.context().close();
  });
});
