/**
 * Request changes on the run review screen, in a real browser and with the keyboard alone: the
 * reviewer writes what must change, sends the draft back, the scripted model (the fake OpenAI
 * server) writes a second draft, the screen shows round 2 with the first round's draft and reason in
 * its history, and the reviewer approves the new draft. axe finds no violations.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ChatBody, type FakeOpenAI, openaiEnv, startFakeOpenAI } from '../../../fakes/openai-server.js';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, watchPageErrors } from '../../helpers/browser.js';
import { decisionsTakeEffect, type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';

describeInBrowser('request changes in the browser', (suite) => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let org: ReviewOrg;

  beforeAll(async () => {
    // The model's second draft takes the reviewer's reason into account.
    fake = await startFakeOpenAI({
      assistant: (body: ChatBody) => {
        const reasons = body.messages.filter((m) => m.role === 'user').slice(1);
        const last = reasons.at(-1)?.content;
        return { content: last ? `Dear Ann, your refund is on its way. (${last})` : 'Dear Ann, thanks.' };
      },
    });
    t = await suite.start(openaiEnv(fake));
    org = await setupReviewOrg(t, 'acme');
  });
  afterAll(() => fake.close());

  const run = async (id: number) =>
    (await t.request('GET', `/api/v1/runs/${id}`, { token: org.owner.token })).body;

  /** A `gated` run whose first draft is in. */
  async function drafted(text: string): Promise<number> {
    const res = await t.request('POST', '/api/v1/skills/gated/runs', {
      token: org.owner.token,
      body: { input: { text } },
    });
    expect(res.status, res.text).toBe(202);
    const id = res.body.runId as number;
    await expect
      .poll(async () => (await run(id)).output, { timeout: 30_000 })
      .toEqual({ text: 'Dear Ann, thanks.' });
    return id;
  }

  const focused = (target: Locator) =>
    target.evaluate(
      (element) =>
        element ===
        (element as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
    );

  /** Presses Tab until `target` has the focus, as a keyboard user does. */
  async function tabTo(page: Page, target: Locator): Promise<void> {
    for (let presses = 0; presses < 80; presses++) {
      if (await focused(target)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reaches ${target}`);
  }

  it('keyboard only: requests changes with a reason, sees round 2 and the round history, approves', async () => {
    const id = await drafted('x');

    const page = await suite.signIn({ org: 'acme', userId: 'rc-reviewer', role: 'pm' }, `/review/runs/${id}`);
    const errors = watchPageErrors(page);
    await page.getByText('Dear Ann, thanks.').first().waitFor();

    // The reason is required: the button does nothing without one.
    const button = page.getByRole('button', { name: 'Request changes' });
    await tabTo(page, button);
    await page.keyboard.press('Enter');
    expect((await run(id)).status).toBe('pending');

    const reason = page.getByLabel('What must change (sent to the model for a new draft)');
    await tabTo(page, reason);
    await page.keyboard.type('Mention the refund.');
    expect(await checkAccessibility(page)).toEqual([]);
    await tabTo(page, button);
    await page.keyboard.press('Enter');

    // The model drafts again; the screen follows the run to its second round.
    await page.getByText('Round 2', { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.getByText('Dear Ann, your refund is on its way. (Mention the refund.)').first().waitFor({
      timeout: 30_000,
    });
    const history = page.getByRole('region', { name: 'Rounds of review' });
    await history.getByRole('heading', { name: 'Round 1' }).waitFor();
    expect(await history.textContent()).toContain('Dear Ann, thanks.');
    expect(await history.textContent()).toContain('Mention the refund.');
    expect(await checkAccessibility(page)).toEqual([]);

    // The second draft is approved, bound to the new item's revision.
    await expect.poll(async () => (await run(id)).status).toBe('pending');
    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    await tabTo(page, approve);
    await page.keyboard.press('Enter');
    await decisionsTakeEffect(t, org.owner.token, 'skill', id);
    await expect.poll(async () => (await run(id)).status, { timeout: 15_000 }).toBe('approved');
    expect((await run(id)).output).toEqual({
      text: 'Dear Ann, your refund is on its way. (Mention the refund.)',
    });
    expect((await run(id)).rounds).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('from the queue’s preview pane, keyboard only: c asks for the reason, the draft goes back, round 2 returns to the queue', async () => {
    const id = await drafted('y');
    const page = await suite.signIn({ org: 'acme', userId: 'rc-queue', role: 'pm' }, '/review?kind=skill');
    const errors = watchPageErrors(page);
    const row = page.locator(`ol.queue > li[data-key="skill:${id}"]`);
    await row.waitFor();
    const pane = page.locator('section.preview');
    await expect.poll(() => pane.locator('h2').textContent()).toContain(`(run ${id})`);
    // The pane offers it (a draft is in), and names its key.
    const offer = pane.getByRole('button', { name: 'Request changes (c)' });
    await offer.waitFor();
    // Tab into the list, then c.
    for (let presses = 0; presses < 30; presses++) {
      if (await page.evaluate(`!!document.activeElement?.closest('ol.queue')`)) break;
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('c');
    const dialog = page.getByRole('dialog', { name: 'Request changes' });
    await dialog.waitFor();
    const reason = dialog.getByLabel('What must change (sent to the model for a new draft)');
    const send = dialog.getByRole('button', { name: 'Request changes' });
    // The reason is required: sending without one sends nothing.
    await tabTo(page, send);
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    expect((await run(id)).status).toBe('pending');
    await tabTo(page, reason);
    await page.keyboard.type('Say when.');
    expect(await checkAccessibility(page)).toEqual([]);
    await tabTo(page, send);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });

    // Sent back at once (no undo delay): the model drafts again and the new round returns to the queue.
    await expect
      .poll(async () => (await run(id)).output, { timeout: 30_000 })
      .toEqual({ text: 'Dear Ann, your refund is on its way. (Say when.)' });
    expect((await run(id)).rounds).toEqual([
      expect.objectContaining({ reason: 'Say when.', draft: { text: 'Dear Ann, thanks.' } }),
    ]);
    await row.waitFor();
    await expect
      .poll(() => pane.textContent(), { timeout: 30_000 })
      .toContain('Dear Ann, your refund is on its way. (Say when.)');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
