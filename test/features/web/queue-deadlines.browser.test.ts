/**
 * Review deadlines in the queue, in a real browser: each row says when its item is due (`due in …`),
 * an overdue one says so in words and colour, and the queue sorts by due time (soonest first, none
 * last) from the keyboard, the order kept in the address; axe-clean.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, watchPageErrors } from '../../helpers/browser.js';
import { createSkill } from '../../helpers/resources.js';
import { pendingSkillRun, type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';

describeInBrowser('review deadlines in the queue', (suite) => {
  let t: TestApp;
  let org: ReviewOrg;

  beforeAll(async () => {
    t = await suite.start();
    org = await setupReviewOrg(t, 'acme');
    for (const [slug, dueIn] of [
      ['hourly', '1h'],
      ['instant', '1s'],
    ] as const) {
      const res = await t.request('POST', '/api/v1/review-policies', {
        token: org.owner.token,
        body: { slug, name: slug, dueIn },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      await createSkill(t, org.owner.token, {
        slug: `gated-${slug}`,
        requiresApproval: true,
        reviewPolicy: slug,
      });
    }
  });

  const rows = (page: Page) => page.locator('ol.queue > li');
  const order = (page: Page) => rows(page).evaluateAll((lis) => lis.map((li) => li.getAttribute('data-key')));

  it('shows due times, marks the overdue item, and sorts by due with the keyboard', async () => {
    const plain = await pendingSkillRun(t, org.owner.token);
    const hourly = await pendingSkillRun(t, org.owner.token, 'gated-hourly');
    const instant = await pendingSkillRun(t, org.owner.token, 'gated-instant');
    const due = await t.request('GET', `/api/v1/reviews/skill/${instant}`, { token: org.owner.token });
    const dueAt = Date.parse(due.body.review.dueAt);
    // The browser tells overdue by its own clock: wait until the item's due time has passed.
    await expect.poll(() => Date.now() > dueAt).toBe(true);

    const page = await suite.signIn({ org: 'acme', userId: 'due-dana', role: 'pm' });
    const errors = watchPageErrors(page);
    await expect.poll(() => rows(page).count()).toBe(3);
    expect(await order(page)).toEqual([`skill:${plain}`, `skill:${hourly}`, `skill:${instant}`]);

    const row = (id: number) => page.locator(`ol.queue > li[data-key="skill:${id}"]`);
    expect(await row(plain).locator('.due').count()).toBe(0);
    expect(await row(hourly).locator('.due').textContent()).toMatch(/^due in (59m|1h)$/);
    expect((await row(hourly).getAttribute('class')) ?? '').not.toContain('overdue');
    expect(await row(instant).locator('.due').textContent()).toMatch(/^overdue \d+s$/);
    expect(await row(instant).getAttribute('class')).toContain('overdue');
    // Overdue is in colour too: the danger colour of the style sheet.
    const colour = await page.evaluate(
      `getComputedStyle(document.querySelector('ol.queue > li[data-key="skill:${instant}"] .due')).color`,
    );
    expect(colour).toBe('rgb(179, 38, 30)');
    expect(await checkAccessibility(page)).toEqual([]);

    // Sort by due, from the keyboard: the order select is reached with Tab and changed with the arrows.
    const onOrder = () => page.evaluate(`document.activeElement?.id === 'filter-sort'`);
    for (let presses = 0; presses < 40 && !(await onOrder()); presses++) await page.keyboard.press('Tab');
    expect(await onOrder()).toBe(true);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => order(page)).toEqual([`skill:${instant}`, `skill:${hourly}`, `skill:${plain}`]);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('due');

    // The order is in the address: a reload keeps it.
    await page.reload();
    await expect.poll(() => order(page)).toEqual([`skill:${instant}`, `skill:${hourly}`, `skill:${plain}`]);
    expect(await page.getByLabel('Order').inputValue()).toBe('due');
    expect(await checkAccessibility(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
