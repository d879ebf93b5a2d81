/**
 * The review queue in a real browser: cleared with the keyboard alone (j/k, x, a, r, s, g with the
 * user picker, ?), keys scoped to the list and single-key shortcuts that can be turned off (WCAG
 * 2.1.4), lanes with counts and filters (the action kind too) kept in the address, kept live over SSE
 * in a second browser, buttons and keys by capability, a cross-site POST refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';
import {
  decisionsTakeEffect,
  pausedWorkflowRun,
  pendingSkillRun,
  type ReviewOrg,
  setupReviewOrg,
} from '../../helpers/reviews.js';

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
  /** Tabs from where the focus is until it is in the list (the cursor row), as a keyboard user does. */
  const tabIntoList = async (page: Page) => {
    for (let presses = 0; presses < 30; presses++) {
      if (await page.evaluate(`!!document.activeElement?.closest('ol.queue')`)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error('the list cannot be reached with Tab');
  };
  const run = async (id: number) =>
    (await t.request('GET', `/api/v1/runs/${id}`, { token: org.owner.token })).body;
  /** Waits until the runs' drafts are in (their items' summaries are set). */
  const draftsIn = async (ids: number[]) =>
    expect
      .poll(async () => {
        const queue = await t.request('GET', '/api/v1/reviews?limit=200', { token: org.owner.token });
        return ids.every((id) => queue.body.reviews.some((r: any) => r.id === id && r.summary !== null));
      })
      .toBe(true);

  it('clears a queue of 20 items with the keyboard alone', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await pendingSkillRun(t, org.owner.token));
    // Their drafts are in before the page opens (a draft arriving while its item is open is a change
    // the preview pane flags, and the next decision key then decides nothing).
    await draftsIn(ids);
    const page = await signedIn('keyboard-kim');
    const errors = watchPageErrors(page);
    await expect.poll(() => rows(page).count()).toBe(20);
    await screenshot(page, 'queue');
    expect(await checkAccessibility(page)).toEqual([]);
    await tabIntoList(page);

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
    await decisionsTakeEffect(t, org.owner.token, 'skill', ids[1]!);
    expect((await run(ids[1]!)).review).toMatchObject({ decision: 'rejected', reason: 'off topic' });

    // s: snooze (an hour); it leaves the active lane.
    expect(await current.getAttribute('data-key')).toBe(`skill:${ids[2]}`);
    await page.keyboard.press('s');
    await page.getByLabel('Hide it for').waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(() => rows(page).count()).toBe(18);

    // g: assign to someone picked from the org's users (typed ahead in the list); it stays.
    await page.keyboard.press('g');
    const picker = page.getByLabel('Assign to');
    await expect.poll(() => picker.locator('option').allTextContents()).toContain('acme-owner · owner');
    await page.keyboard.type('acme-owner');
    await page.keyboard.press('Tab');
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
    // Each approval waited for its effectiveAt (the undo toasts' time); the clock passes them all.
    await decisionsTakeEffect(t, org.owner.token, 'skill', ...ids.filter((_, i) => i !== 1 && i !== 2));
    // (The server's own timer loop may be firing some of them at the same moment: polled.)
    const statuses = () => Promise.all(ids.map(async (id) => (await run(id)).status));
    await expect.poll(async () => (await statuses()).filter((s) => s === 'approved')).toHaveLength(18);
    expect((await statuses()).filter((s) => s === 'rejected')).toHaveLength(1);

    // The snoozed one is in the snoozed lane.
    await page.getByRole('button', { name: 'Snoozed' }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().getAttribute('data-key')).toBe(`skill:${ids[2]}`);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps lane and filters in the address, counts each lane, and filters by kind action too', async () => {
    const skillId = await pendingSkillRun(t, org.owner.token);
    const workflowId = await pausedWorkflowRun(t, org.owner.token);
    const page = await signedIn('filter-fay');
    const errors = watchPageErrors(page);
    await page.goto(`${t.url}/review?lane=unassigned&kind=workflow`);
    const workflowRow = page.locator(`ol.queue > li[data-key="workflow:${workflowId}"]`);
    await workflowRow.waitFor();
    expect(await rows(page).evaluateAll((li) => li.map((e) => e.getAttribute('data-key')))).not.toContain(
      `skill:${skillId}`,
    );
    expect(await page.getByLabel('Kind').inputValue()).toBe('workflow');
    expect(await page.getByRole('button', { name: /^Unassigned/ }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByLabel('Kind').locator('option').allTextContents()).toEqual([
      'any',
      'skill',
      'workflow',
      'mission',
      'action',
    ]);

    // A lane's count: the mine lane gains the item assigned to me.
    const mine = page.getByRole('button', { name: /^Mine/ });
    const count = async () => Number((await mine.locator('.count').textContent())?.match(/\d+/)?.[0]);
    const before = await count();
    const assigned = await t.request('POST', '/api/v1/reviews/assign', {
      token: org.owner.token,
      body: { kind: 'skill', id: skillId, assignedTo: 'filter-fay' },
    });
    expect(assigned.status).toBe(200);
    await expect.poll(count).toBe(before + 1);

    // Choosing writes the address; a reload shows the same view; back and forward follow it.
    await page.getByLabel('Kind').selectOption('skill');
    await mine.click();
    await page.waitForURL(`${t.url}/review?lane=mine&kind=skill`);
    await page.reload();
    await page.locator(`ol.queue > li[data-key="skill:${skillId}"]`).waitFor();
    expect(await rows(page).count()).toBe(1);
    expect(await page.getByLabel('Kind').inputValue()).toBe('skill');
    await page.getByLabel('Kind').selectOption('action');
    await page.waitForURL(`${t.url}/review?lane=mine&kind=action`);
    await page.getByText('Nothing waits for review here.').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('single-key shortcuts act only in the list, and can be turned off for good', async () => {
    const first = await pendingSkillRun(t, org.owner.token);
    const page = await signedIn('speech-sue');
    const decisions: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/reviews/decide')) decisions.push(r.url());
    });
    await page.locator(`ol.queue > li[data-key="skill:${first}"]`).waitFor();
    const current = page.locator('ol.queue > li[aria-current="true"]');
    const start = await current.getAttribute('data-key');

    // Outside the list a letter is just a letter.
    await page.getByRole('button', { name: 'Single-key shortcuts' }).focus();
    await page.keyboard.press('a');
    await page.keyboard.press('j');
    // Turned off: letters do nothing in the list either; the arrows still move.
    await page.getByRole('button', { name: 'Single-key shortcuts' }).click();
    expect(
      await page.getByRole('button', { name: 'Single-key shortcuts' }).getAttribute('aria-pressed'),
    ).toBe('false');
    await tabIntoList(page);
    await page.keyboard.press('a');
    await page.keyboard.press('j');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => current.getAttribute('data-key')).not.toBe(start);
    expect(decisions).toEqual([]);
    expect((await run(first)).status).toBe('pending');

    // The choice holds after a reload (this browser remembers it).
    await page.reload();
    await page.locator(`ol.queue > li[data-key="skill:${first}"]`).waitFor();
    expect(
      await page.getByRole('button', { name: 'Single-key shortcuts' }).getAttribute('aria-pressed'),
    ).toBe('false');
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
    await decisionsTakeEffect(t, org.owner.token, 'skill', id);
    await expect.poll(async () => (await run(id)).status).toBe('approved');
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
