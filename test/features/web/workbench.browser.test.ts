/**
 * The queue as a workbench, in a real browser and with the keyboard alone: the preview pane beside
 * the list shows the item open (the draft rendered, the input), `a` approves it bound to the revision
 * shown and the next item opens; when the open item is changed or decided by someone else the pane
 * says so and the next decision key decides nothing; the Decided lane lists the decisions; axe finds
 * no violations.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';
import {
  createReplySkill,
  decisionsTakeEffect,
  pendingProposal,
  type ReviewOrg,
  setupReviewOrg,
} from '../../helpers/reviews.js';

describeInBrowser('the review workbench in the browser', (suite) => {
  let t: TestApp;
  let org: ReviewOrg;

  beforeAll(async () => {
    t = await suite.start();
    org = await setupReviewOrg(t, 'acme');
    await createReplySkill(
      t,
      org.owner.token,
      '# Hello {{input.customer}}\n\nYour **refund** of {{input.amount}} is on its way.',
    );
  });

  const token = () => org.owner.token;
  const run = async (id: number) => (await t.request('GET', `/api/v1/runs/${id}`, { token: token() })).body;
  const rows = (page: Page) => page.locator('ol.queue > li');
  const preview = (page: Page) => page.locator('section.preview');
  const previewTitle = (page: Page) => preview(page).locator('h2');

  /** Triggers a reply to `customer` and waits until its draft is in (its item has a summary). */
  async function reply(customer: string, amount: string): Promise<number> {
    const res = await t.request('POST', '/api/v1/skills/reply/runs', {
      token: token(),
      body: { input: { customer, amount } },
    });
    expect(res.status, res.text).toBe(202);
    const id = res.body.runId as number;
    await expect
      .poll(
        async () =>
          (await t.request('GET', `/api/v1/reviews/skill/${id}`, { token: token() })).body.review.summary,
      )
      .not.toBeNull();
    return id;
  }

  /** Tabs from where the focus is until it is in the list, as a keyboard user does. */
  async function tabIntoList(page: Page): Promise<void> {
    for (let presses = 0; presses < 30; presses++) {
      if (await page.evaluate(`!!document.activeElement?.closest('ol.queue')`)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error('the list cannot be reached with Tab');
  }

  it('open, read, approve, next; a change or a decision made elsewhere is flagged and decides nothing', async () => {
    const ids = [
      await reply('Ann', '40 EUR'),
      await reply('Bo', '12 EUR'),
      await reply('Cy', '7 EUR'),
      await reply('Di', '99 EUR'),
    ];
    const [ann, bo, cy, di] = ids as [number, number, number, number];
    const page = await suite.signIn({ org: 'acme', userId: 'keyboard-kim', role: 'pm' });
    const errors = watchPageErrors(page);
    await expect.poll(() => rows(page).count()).toBe(4);
    await tabIntoList(page);

    // Open and read: the first item's draft rendered, its input, its row's summary.
    await expect.poll(() => previewTitle(page).textContent()).toBe(`Reply to Ann (run ${ann})`);
    await expect.poll(() => preview(page).locator('.draft strong').textContent()).toBe('refund');
    expect(await preview(page).locator('.draft h1').textContent()).toBe('Hello Ann');
    expect(await preview(page).textContent()).toContain('"amount": "40 EUR"');
    expect(await rows(page).first().locator('.summary').textContent()).toBe(
      '# Hello Ann Your **refund** of 40 EUR is on its way.',
    );
    await screenshot(page, 'workbench');
    expect(await checkAccessibility(page)).toEqual([]);

    // a approves the item open; the next one opens, the focus stays in the list.
    await page.keyboard.press('a');
    await decisionsTakeEffect(t, token(), 'skill', ann);
    await expect.poll(async () => (await run(ann)).status).toBe('approved');
    await expect.poll(() => previewTitle(page).textContent()).toBe(`Reply to Bo (run ${bo})`);
    expect(await rows(page).count()).toBe(3);
    expect(await page.evaluate(`!!document.activeElement?.closest('ol.queue')`)).toBe(true);

    // Someone else assigns the open item: the pane says so; a decides nothing, then a approves.
    const assigned = await t.request('POST', '/api/v1/reviews/assign', {
      token: token(),
      body: { kind: 'skill', id: bo, assignedTo: 'acme-owner' },
    });
    expect(assigned.status).toBe(200);
    const stale = preview(page).getByRole('alert');
    await expect
      .poll(() => stale.textContent())
      .toContain('was assigned to acme-owner while you had it open');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.keyboard.press('a');
    await page.getByText(/^Nothing decided:/).waitFor();
    expect((await run(bo)).status).toBe('pending');
    await stale.waitFor({ state: 'detached' });
    await expect.poll(() => preview(page).textContent()).toContain('assigned to');
    await page.keyboard.press('a');
    await decisionsTakeEffect(t, token(), 'skill', bo);
    await expect.poll(async () => (await run(bo)).status).toBe('approved');
    await expect.poll(() => previewTitle(page).textContent()).toBe(`Reply to Cy (run ${cy})`);

    // Someone else approves the open item: it leaves, the pane says so over the next one, and the
    // next a decides nothing (the reviewer never looked at Di's draft before the notice).
    const decided = await t.request('POST', '/api/v1/reviews/decide', {
      token: token(),
      body: { kind: 'skill', id: cy, action: 'approve' },
    });
    expect(decided.status, decided.text).toBe(200);
    await expect
      .poll(() => stale.textContent())
      .toContain(`“Reply to Cy (run ${cy})” was approved elsewhere`);
    await expect.poll(() => previewTitle(page).textContent()).toBe(`Reply to Di (run ${di})`);
    await page.keyboard.press('a');
    await page.getByText(/^Nothing decided:/).waitFor();
    expect((await run(di)).status).toBe('pending');
    await page.keyboard.press('a');
    await decisionsTakeEffect(t, token(), 'skill', di);
    await expect.poll(async () => (await run(di)).status).toBe('approved');
    await page.getByText('Nothing waits for review here.').waitFor();

    // The Decided lane: the four decisions, newest first, the one made elsewhere named so.
    await page.getByRole('button', { name: /^Decided/ }).click();
    const decisions = page.locator('ol.decided > li');
    await expect.poll(() => decisions.count()).toBe(4);
    expect(await decisions.locator('a.title').allTextContents()).toEqual([
      `Reply to Di (run ${di})`,
      `Reply to Cy (run ${cy})`,
      `Reply to Bo (run ${bo})`,
      `Reply to Ann (run ${ann})`,
    ]);
    expect(await decisions.nth(1).textContent()).not.toContain('by you');
    expect(await decisions.nth(0).textContent()).toContain('by you');
    expect(await checkAccessibility(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('undo, keyboard only: a decision waits with a toast; u or its Undo button brings the item back; then it takes effect', async () => {
    const fay = await reply('Fay', '5 EUR');
    const gus = await reply('Gus', '6 EUR');
    const item = async (id: number) =>
      (await t.request('GET', `/api/v1/reviews/skill/${id}`, { token: token() })).body.review;
    const page = await suite.signIn({ org: 'acme', userId: 'undo-uma', role: 'pm' });
    const errors = watchPageErrors(page);
    await expect.poll(() => rows(page).count()).toBe(2);
    await tabIntoList(page);
    await expect.poll(() => previewTitle(page).textContent()).toBe(`Reply to Fay (run ${fay})`);
    const toast = page.locator('.toasts .toast');
    const inList = () => page.evaluate(`!!document.activeElement?.closest('ol.queue')`);

    // a: the approval waits (deciding, the run unmoved), its toast counts down, the next item opens.
    await page.keyboard.press('a');
    await expect.poll(() => toast.textContent()).toContain(`Approved “Reply to Fay (run ${fay})”`);
    expect(await toast.getByRole('button').textContent()).toBe('Undo (u)');
    await expect.poll(async () => (await item(fay)).status).toBe('deciding');
    expect((await run(fay)).status).toBe('pending');
    await expect.poll(() => previewTitle(page).textContent()).toBe(`Reply to Gus (run ${gus})`);
    expect(await rows(page).count()).toBe(1);
    await screenshot(page, 'workbench-undo-toast');
    expect(await checkAccessibility(page)).toEqual([]);

    // u: undone — the item is back in the list and open in the pane, the toast gone.
    await page.keyboard.press('u');
    await toast.waitFor({ state: 'detached' });
    await expect.poll(() => rows(page).count()).toBe(2);
    await expect.poll(() => previewTitle(page).textContent()).toBe(`Reply to Fay (run ${fay})`);
    expect(await item(fay)).toMatchObject({ status: 'pending', decision: null });
    expect(await inList()).toBe(true);

    // The toast's Undo button is reachable with Tab; after it the focus is back in the list.
    await page.keyboard.press('a');
    const undo = toast.getByRole('button', { name: 'Undo (u)' });
    await undo.waitFor();
    for (let presses = 0; presses < 40; presses++) {
      if (
        await undo.evaluate(
          (b) =>
            b === (b as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
        )
      )
        break;
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await toast.waitFor({ state: 'detached' });
    await expect.poll(() => rows(page).count()).toBe(2);
    await expect.poll(inList).toBe(true);
    expect((await item(fay)).status).toBe('pending');

    // a, and the delay passes: the decision takes effect once, and its toast leaves.
    await page.keyboard.press('a');
    await toast.waitFor();
    await decisionsTakeEffect(t, token(), 'skill', fay);
    await expect.poll(async () => (await run(fay)).status).toBe('approved');
    await toast.waitFor({ state: 'detached', timeout: 20_000 });
    expect(await rows(page).count()).toBe(1);
    // Gus is left for the reader: rejected here, at once, through the API.
    const rejected = await t.request('POST', '/api/v1/reviews/decide', {
      token: token(),
      body: { kind: 'skill', id: gus, action: 'reject', reason: 'test done' },
    });
    expect(rejected.status).toBe(200);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('an action open in the pane shows what will happen', async () => {
    const id = await pendingProposal(t, 'acme', { dealId: '42', properties: { dealstage: 'closedwon' } });
    const page = await suite.signIn({ org: 'acme', userId: 'action-al', role: 'pm' }, '/review?kind=action');
    await expect.poll(() => previewTitle(page).textContent()).toContain(`(proposal ${id})`);
    const row = preview(page).locator('table.before-after tbody tr');
    await expect.poll(() => row.allTextContents()).toEqual(['dealstageunknownclosedwon']);
    expect(await preview(page).locator('.summary').textContent()).toBe(
      'Update deal 42: dealstage → "closedwon"',
    );
    expect(await checkAccessibility(page)).toEqual([]);
    const decided = await t.request('POST', '/api/v1/reviews/decide', {
      token: token(),
      body: { kind: 'action', id, action: 'reject', reason: 'not now' },
    });
    expect(decided.status).toBe(200);
    await page.context().close();
  });

  it('with the approve capability missing the pane offers no decision', async () => {
    const id = await reply('Eve', '1 EUR');
    const page = await suite.signIn({ org: 'acme', userId: 'special-sam', role: 'specialist' });
    await expect.poll(() => previewTitle(page).textContent()).toBe(`Reply to Eve (run ${id})`);
    expect(
      await preview(page)
        .getByRole('button', { name: /Approve/ })
        .count(),
    ).toBe(0);
    await page.context().close();
  });
});
