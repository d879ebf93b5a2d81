/**
 * Edit before approve on the run review screen, in a real browser and with the keyboard alone: a
 * Markdown draft in a text editor beside its live preview, the other fields as a form built from
 * the skill's outputSchema, the diff of the edit before confirming, the decision bound to the
 * revision shown (the run keeps the model's draft beside the approved output); a workflow's gate,
 * step timeline, a step's output edited at the gate and what was approved frozen after later steps
 * ran; the review item (assignee, note, snooze) on the screen; the notice when a second browser
 * decides the item open. axe finds no violations on any of it.
 */
import type { Locator, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';
import { createWorkflow } from '../../helpers/resources.js';
import {
  createReplySkill,
  decisionsTakeEffect,
  type ReviewOrg,
  setupReviewOrg,
} from '../../helpers/reviews.js';

describeInBrowser('edit before approve in the browser', (suite) => {
  let t: TestApp;
  let org: ReviewOrg;

  beforeAll(async () => {
    t = await suite.start();
    org = await setupReviewOrg(t, 'acme');
    await createReplySkill(t, org.owner.token, '# Hello {{input.customer}}\n\nYour refund is on its way.', {
      outputSchema: {
        type: 'object',
        required: ['text'],
        properties: {
          text: { type: 'string', maxLength: 500 },
          tone: { type: 'string', enum: ['friendly', 'formal'] },
          urgent: { type: 'boolean' },
        },
      },
    });
    await createWorkflow(t, org.owner.token, {
      slug: 'draft-gate',
      name: 'Draft, gate, use',
      steps: [
        { name: 'draft', type: 'skill', skill: 'echoer', input: { text: 'first draft' } },
        { name: 'gate', type: 'approve', title: 'Send this?', assignTo: 'acme-owner' },
        { name: 'use', type: 'skill', skill: 'echoer', input: { text: '{{steps.draft.output.text}}' } },
      ],
    });
  });

  const token = () => org.owner.token;
  const run = async (id: number) => (await t.request('GET', `/api/v1/runs/${id}`, { token: token() })).body;

  /** Whether `target` has the focus. */
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

  /** A `reply` run whose draft is in. */
  async function drafted(customer: string): Promise<number> {
    const res = await t.request('POST', '/api/v1/skills/reply/runs', {
      token: token(),
      body: { input: { customer } },
    });
    expect(res.status, res.text).toBe(202);
    const id = res.body.runId as number;
    await expect.poll(async () => (await run(id)).output, { timeout: 30_000 }).not.toBeNull();
    return id;
  }

  it('keyboard only: edits the Markdown with a live preview and a field of the schema form, reads the diff, approves the edit', async () => {
    const id = await drafted('Ann');
    const draft = (await run(id)).output;
    const page = await suite.signIn({ org: 'acme', userId: 'edit-eda', role: 'pm' }, `/review/runs/${id}`);
    const errors = watchPageErrors(page);
    await page.getByRole('heading', { name: 'Draft', exact: true }).waitFor();
    // The review item: who it is assigned to, the note, the snooze.
    const facts = page.locator('section.item-facts');
    await expect
      .poll(() => facts.locator('dt:text-is("Assignee") + dd').textContent())
      .toBe('nobody (unassigned)');

    await tabTo(page, page.getByRole('button', { name: 'Edit before approving' }));
    await page.keyboard.press('Enter');
    const editor = page.getByLabel('text (Markdown)');
    await tabTo(page, editor);
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n\n**Refund confirmed** today.');
    // The live preview renders what is typed.
    const preview = page.getByRole('region', { name: 'Preview of text' });
    await expect.poll(() => preview.locator('strong').textContent()).toBe('Refund confirmed');
    expect(await preview.locator('h1').textContent()).toBe('Hello Ann');
    // The form from the outputSchema: the tone as a choice, urgent as a yes/no.
    const tone = page.getByLabel('tone (optional)');
    await tabTo(page, tone);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => tone.inputValue()).toBe('"friendly"');
    await tabTo(page, page.getByLabel('urgent (optional)'));
    await page.keyboard.press('Space');
    expect(await checkAccessibility(page)).toEqual([]);

    await tabTo(page, page.getByRole('button', { name: 'Review changes…' }));
    await page.keyboard.press('Enter');
    // The diff before confirming: what was added, marked as such; the focus on the confirmation.
    const changes = page.getByRole('region', { name: 'Your changes' });
    await expect
      .poll(() => changes.locator('.ins').allTextContents())
      .toEqual(expect.arrayContaining([expect.stringContaining('**Refund confirmed** today.')]));
    expect(await changes.locator('.ins').allTextContents()).toEqual(
      expect.arrayContaining([
        expect.stringContaining('"tone": "friendly"'),
        expect.stringContaining('"urgent": true'),
      ]),
    );
    expect(await focused(page.getByRole('button', { name: 'Approve with these changes' }))).toBe(true);
    expect((await run(id)).status).toBe('pending');
    await screenshot(page, 'edit-before-approve-diff');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.keyboard.press('Enter');

    // The approval waits 8 s for its effectiveAt: the screen says so, Undo has the focus, nothing moved.
    const undo = page.getByRole('button', { name: 'Undo' });
    await undo.waitFor();
    await expect.poll(() => focused(undo)).toBe(true);
    const item = async () =>
      (await t.request('GET', `/api/v1/reviews/skill/${id}`, { token: token() })).body.review;
    expect(await item()).toMatchObject({
      status: 'deciding',
      decision: { action: 'approve', by: 'user:edit-eda' },
    });
    expect(await page.getByRole('region', { name: 'Approval on its way' }).textContent()).toContain(
      'takes effect at',
    );
    expect((await run(id)).status).toBe('pending');
    expect(await checkAccessibility(page)).toEqual([]);
    // Undo: the item is open again, the edits back in the editor; nothing was ever decided.
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Review changes…' }).waitFor();
    expect(await item()).toMatchObject({ status: 'pending', decision: null });
    expect(await page.getByLabel('text (Markdown)').inputValue()).toContain('**Refund confirmed** today.');
    expect((await run(id)).status).toBe('pending');

    // Approve again and let the delay pass: the decision takes effect with the edits.
    await tabTo(page, page.getByRole('button', { name: 'Review changes…' }));
    await page.keyboard.press('Enter');
    await tabTo(page, page.getByRole('button', { name: 'Approve with these changes' }));
    await page.keyboard.press('Enter');
    await undo.waitFor();
    await decisionsTakeEffect(t, token(), 'skill', id);
    await page.locator('.status-approved').first().waitFor();
    expect(await undo.count()).toBe(0);
    const approved = await run(id);
    expect(approved.output).toEqual({
      text: `${draft.text}\n\n**Refund confirmed** today.`,
      tone: 'friendly',
      urgent: true,
    });
    expect(approved.draftOutput).toEqual(draft);
    expect(approved.review).toMatchObject({ decision: 'approved', by: 'user:edit-eda', edited: true });
    // After the decision the screen shows what the reviewer changed.
    const review = page.locator('section[aria-labelledby="review-title"]');
    await expect.poll(() => review.locator('.diff .ins').count()).toBeGreaterThan(0);
    expect(await checkAccessibility(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('an edit that fails the outputSchema is refused with the reason, and nothing is decided', async () => {
    const id = await drafted('Bo');
    const page = await suite.signIn({ org: 'acme', userId: 'edit-eli', role: 'pm' }, `/review/runs/${id}`);
    await page.getByRole('button', { name: 'Edit before approving' }).click();
    await page.getByLabel('text (Markdown)').fill('x'.repeat(501));
    await page.getByRole('button', { name: 'Review changes…' }).click();
    await page.getByRole('button', { name: 'Approve with these changes' }).click();
    const refused = page.locator('p.error[role="alert"]');
    await expect.poll(() => refused.textContent()).toContain("does not match the skill's outputSchema");
    const after = await run(id);
    expect(after.status).toBe('pending');
    expect(after.output.text).toContain('Hello Bo');
    // The edit is still there to fix.
    expect(await page.getByLabel('text (Markdown)').inputValue()).toBe('x'.repeat(501));
    await page.context().close();
  });

  it('a second browser decides the item open: the first says so and offers no decision', async () => {
    const id = await drafted('Cy');
    const first = await suite.signIn({ org: 'acme', userId: 'first-fay', role: 'pm' }, `/review/runs/${id}`);
    await first.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    const second = await suite.signIn({ org: 'acme', userId: 'second-sy', role: 'pm' }, `/review/runs/${id}`);
    await second.getByRole('button', { name: 'Approve', exact: true }).click();
    await decisionsTakeEffect(t, token(), 'skill', id);
    await expect.poll(async () => (await run(id)).status).toBe('approved');
    const notice = first.getByRole('alert');
    await expect
      .poll(() => notice.textContent())
      .toContain('decided or withdrawn elsewhere while you had it open');
    expect(await first.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    expect(await checkAccessibility(first)).toEqual([]);
    await first.context().close();
    await second.context().close();
  });

  it('a workflow gate: its title and assignee, the step timeline, a step edited at the gate, what was approved frozen', async () => {
    const res = await t.request('POST', '/api/v1/workflows/draft-gate/runs', {
      token: token(),
      body: { input: {} },
    });
    const id = res.body.runId as number;
    await expect.poll(async () => (await run(id)).status, { timeout: 30_000 }).toBe('paused');
    const page = await suite.signIn({ org: 'acme', userId: 'gate-gil', role: 'pm' }, `/review/runs/${id}`);
    const errors = watchPageErrors(page);
    await page.getByRole('heading', { name: 'Waiting at the gate “Send this?”' }).waitFor();
    expect(await page.locator('section[aria-labelledby="gate-title"]').textContent()).toContain(
      'Assigned by the workflow to acme-owner',
    );
    const steps = page.locator('ol.timeline > li');
    await expect
      .poll(() => steps.locator('h3').allTextContents())
      .toEqual(['1. draft done', '2. Send this? waiting for review', '3. use not reached']);
    expect(await checkAccessibility(page)).toEqual([]);

    await page.getByRole('button', { name: 'Edit draft before approving' }).click();
    await page.getByLabel('text (Markdown)').fill('edited at the gate');
    await page.getByRole('button', { name: 'Review changes…' }).click();
    const changes = page.getByRole('region', { name: 'Your changes' });
    await expect.poll(() => changes.locator('figcaption').textContent()).toBe('Step draft');
    await page.getByRole('button', { name: 'Approve with these changes' }).click();
    await decisionsTakeEffect(t, token(), 'workflow', id);
    await expect.poll(async () => (await run(id)).status, { timeout: 30_000 }).toBe('completed');
    // The later step read the edit; the gate's section still shows what was approved, not the last output.
    expect((await run(id)).output).toEqual({ text: '<edited at the gate>' });
    await page.getByRole('heading', { name: 'Gate “Send this?”' }).waitFor();
    const gate = page.locator('section[aria-labelledby="gate-title"]');
    await expect.poll(() => gate.locator('.draft').textContent()).toContain('edited at the gate');
    expect(await gate.locator('.draft').textContent()).not.toContain('<edited');
    await expect
      .poll(() => steps.locator('h3').allTextContents())
      .toEqual(['1. draft done', '2. Send this? done', '3. use done']);
    expect(await steps.nth(1).textContent()).toContain('approved by gate-gil');
    await screenshot(page, 'workflow-gate-approved');
    expect(await checkAccessibility(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
