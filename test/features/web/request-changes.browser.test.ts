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
import { type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';

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
    const res = await t.request('POST', '/api/v1/skills/gated/runs', {
      token: org.owner.token,
      body: { input: { text: 'x' } },
    });
    expect(res.status, res.text).toBe(202);
    const id = res.body.runId as number;
    await expect
      .poll(async () => (await run(id)).output, { timeout: 30_000 })
      .toEqual({ text: 'Dear Ann, thanks.' });

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
    await expect.poll(async () => (await run(id)).status, { timeout: 15_000 }).toBe('approved');
    expect((await run(id)).output).toEqual({
      text: 'Dear Ann, your refund is on its way. (Mention the refund.)',
    });
    expect((await run(id)).rounds).toHaveLength(1);
    expect(errors).toEqual([]);
  });
});
