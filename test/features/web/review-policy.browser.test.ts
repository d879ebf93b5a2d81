/**
 * Review policies in the web UI, in a real browser: the review screen names the policy in force
 * (linking to its page) and who may approve; a quorum item shows its progress — "0 of 2 approved",
 * then "1 of 2 approved, by fin1" on the screen, in the queue's row and preview — until the second
 * approver decides it; a reviewer the policy refuses is told why before clicking (not an approver:
 * no decision; the run's starter: Approve disabled, pointing at "You started this run…"), and a
 * decision the API refuses shows the 403's reason; the policy's page says what it requires and what
 * names it (another org's policy is not found); the item's decision record lists its ledger entries
 * by name, with their hashes. axe-clean, at 1280 and at 360 px.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, type TestApp } from '../../helpers/app.js';
import {
  checkAccessibility,
  describeInBrowser,
  expectNoSidewaysScroll,
  watchPageErrors,
} from '../../helpers/browser.js';
import { createSkill, createWorkflow } from '../../helpers/resources.js';
import { decisionsTakeEffect, pendingSkillRun } from '../../helpers/reviews.js';

/** Where the screenshots of this file go (looked at by hand; not committed). */
const SHOTS = '/tmp/r3-review-policy';

describeInBrowser('review policies in the web UI', (suite) => {
  let t: TestApp;
  /** Owner: starts runs; not an approver of `finance`. */
  let olga: CreatedToken;
  /** A pm: an approver, who also starts runs of their own. */
  let fin1: CreatedToken;

  beforeAll(async () => {
    t = await suite.start();
    olga = await t.token({ org: 'acme', user: 'olga', role: 'owner', scopes: ALL_SCOPES });
    fin1 = await t.token({ org: 'acme', user: 'fin1', role: 'pm', scopes: ALL_SCOPES });
    await t.token({ org: 'acme', user: 'fin2', role: 'client_reviewer', scopes: ALL_SCOPES });
    const res = await t.request('POST', '/api/v1/review-policies', {
      token: olga.token,
      body: {
        slug: 'finance',
        name: 'Finance',
        description: 'Money leaves the company: two people look.',
        approvers: { roles: ['pm', 'client_reviewer'] },
        required: 2,
        selfApproval: false,
        dueIn: '4h',
        remindBefore: '30m',
        onTimeout: 'escalate',
        escalateTo: { users: ['olga'] },
      },
    });
    expect(res.status, res.text).toBe(201);
    await createSkill(t, olga.token, {
      slug: 'invoice',
      name: 'Invoice',
      requiresApproval: true,
      reviewPolicy: 'finance',
    });
    await createWorkflow(t, olga.token, {
      slug: 'payout',
      name: 'Payout',
      steps: [{ name: 'sign', type: 'approve', reviewPolicy: 'finance' }],
    });
    // Another org with a policy of the same slug: never shown to acme.
    const stranger = await t.token({ org: 'other', user: 'oscar', role: 'owner', scopes: ALL_SCOPES });
    const theirs = await t.request('POST', '/api/v1/review-policies', {
      token: stranger.token,
      body: { slug: 'secret', name: 'Their secret policy' },
    });
    expect(theirs.status, theirs.text).toBe(201);
  });

  const facts = (page: Page) => page.locator('section.item-facts');
  const approve = (page: Page) => page.getByRole('button', { name: 'Approve', exact: true });

  it('shows quorum progress on the screen and in the queue until the second approver decides', async () => {
    const id = await pendingSkillRun(t, olga.token, 'invoice');

    const first = await suite.signIn({ org: 'acme', userId: 'fin1', role: 'pm' }, `/review/runs/${id}`);
    const errors = watchPageErrors(first);
    await expect.poll(() => facts(first).locator('dd.approvals').textContent()).toBe('0 of 2 approved');
    const policyLink = facts(first).getByRole('link', { name: 'Finance' });
    expect(await policyLink.getAttribute('href')).toBe('/review/policies/finance');
    expect(await facts(first).textContent()).toContain('named by skill invoice');
    expect(await facts(first).textContent()).toContain('roles pm, client_reviewer, not whoever started it');
    expect(await approve(first).isEnabled()).toBe(true);
    await approve(first).click();
    // Recorded, not decided: the run still waits, the screen says whose approval it has.
    await expect
      .poll(() => facts(first).locator('dd.approvals').textContent())
      .toBe('1 of 2 approved, by fin1');
    const run = await t.request('GET', `/api/v1/runs/${id}`, { token: olga.token });
    expect(run.body.status).toBe('pending');
    // fin1 may not approve twice: told so, Approve disabled and pointing at the reason.
    await expect
      .poll(() => first.locator('#approve-refusal').textContent())
      .toContain('approved this item already');
    expect(await approve(first).isDisabled()).toBe(true);
    expect(await approve(first).getAttribute('aria-describedby')).toBe('approve-refusal');
    expect(await checkAccessibility(first)).toEqual([]);
    await first.screenshot({ path: `${SHOTS}/quorum-1-of-2.png`, fullPage: true });
    // Approving it again from the queue (a batch reads no policy): the 409's words, and it stays.
    await first.goto(`${t.url}/review`);
    const mine = first.locator(`ol.queue > li[data-key="skill:${id}"]`);
    await mine.getByRole('checkbox').check();
    await first.getByRole('button', { name: 'Approve selected' }).click();
    await expect
      .poll(() => first.locator('.queue-page p.error[role="alert"]').textContent())
      .toContain('fin1 has approved it already; another approver must');
    expect(await mine.count()).toBe(1);

    // The second approver sees the progress in the queue's row and preview, then decides.
    const second = await suite.signIn({ org: 'acme', userId: 'fin2', role: 'client_reviewer' });
    const row = second.locator(`ol.queue > li[data-key="skill:${id}"]`);
    await expect.poll(() => row.locator('.approvals').textContent()).toBe('1 of 2 approved, by fin1');
    await row.locator('a.title').focus();
    const preview = second.locator('section.preview');
    await expect.poll(() => preview.locator('p.approvals').textContent()).toBe('1 of 2 approved, by fin1');
    expect(await preview.getByRole('link', { name: 'Finance' }).getAttribute('href')).toBe(
      '/review/policies/finance',
    );
    expect(await checkAccessibility(second)).toEqual([]);
    await second.screenshot({ path: `${SHOTS}/queue-preview.png`, fullPage: true });
    await second.goto(`${t.url}/review/runs/${id}`);
    await expect
      .poll(() => facts(second).locator('dd.approvals').textContent())
      .toBe('1 of 2 approved, by fin1');
    // The deciding approval waits for its undo delay (the first only counted: recorded at once).
    await approve(second).click();
    await decisionsTakeEffect(t, olga.token, 'skill', id);
    await expect
      .poll(async () => (await t.request('GET', `/api/v1/runs/${id}`, { token: olga.token })).body.status)
      .toBe('approved');
    await expect.poll(() => second.locator('#review-title').count(), { timeout: 20_000 }).toBe(1);
    await expect
      .poll(() => second.locator('section[aria-labelledby="review-title"]').textContent())
      .toContain('approved by fin2');

    // The decision record: the item's ledger entries, by name, with the API's hashes.
    const ledger = await t.request('GET', `/api/v1/audit/reviews?kind=skill&id=${id}`, { token: olga.token });
    expect(ledger.body.entries.map((e: { event: string }) => e.event)).toEqual([
      'opened',
      'approval',
      'decided',
    ]);
    const entries = second.locator('section.item-ledger ol.ledger > li');
    await expect.poll(() => entries.count()).toBe(3);
    const texts = await entries.allTextContents();
    expect(texts[0]).toMatch(/#\d+\s*opened by olga/);
    expect(texts[1]).toMatch(/#\d+\s*approval by fin1/);
    expect(texts[1]).toContain('1 of 2 approved');
    expect(texts[2]).toMatch(/#\d+\s*decided by fin2/);
    expect(texts[2]).toContain('action approve');
    expect(texts.join(' ')).not.toMatch(/token:\d/);
    for (const [index, entry] of (
      ledger.body.entries as Array<{ hash: string; prevHash: string }>
    ).entries()) {
      const hashes = entries.nth(index).locator('code');
      expect(await hashes.nth(0).getAttribute('data-hash')).toBe(entry.hash);
      expect(await hashes.nth(1).getAttribute('data-hash')).toBe(entry.prevHash);
    }
    expect(await checkAccessibility(second)).toEqual([]);
    await second.screenshot({ path: `${SHOTS}/decided-with-ledger.png`, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('tells a reviewer the policy refuses why, before clicking and from the 403', async () => {
    // The run's own starter: may reject, may not approve — told before clicking.
    const own = await pendingSkillRun(t, fin1.token, 'invoice');
    const starter = await suite.signIn({ org: 'acme', userId: 'fin1', role: 'pm' }, `/review/runs/${own}`);
    const errors = watchPageErrors(starter);
    await expect
      .poll(() => starter.locator('#approve-refusal').textContent())
      .toMatch(/^You started this run/);
    expect(await approve(starter).isDisabled()).toBe(true);
    expect(await starter.getByRole('button', { name: 'Reject' }).isEnabled()).toBe(true);
    expect(await checkAccessibility(starter)).toEqual([]);

    // Not an approver (an owner): no decision at all, and the approvers named.
    const id = await pendingSkillRun(t, fin1.token, 'invoice');
    const owner = await suite.signIn({ org: 'acme', userId: 'olga', role: 'owner' }, `/review/runs/${id}`);
    await expect
      .poll(() => owner.locator('#approve-refusal').textContent())
      .toContain('approvers: pm, client_reviewer');
    expect(await owner.locator('#decide-title').count()).toBe(0);
    expect(await checkAccessibility(owner)).toEqual([]);
    await owner.screenshot({ path: `${SHOTS}/not-an-approver.png`, fullPage: true });

    // A decision the API refuses (the queue's batch approve, which reads no policy): the 403's reason.
    await owner.goto(`${t.url}/review`);
    const row = owner.locator(`ol.queue > li[data-key="skill:${id}"]`);
    await row.getByRole('checkbox').check();
    await owner.getByRole('button', { name: 'Approve selected' }).click();
    const alert = owner.locator('.queue-page p.error[role="alert"]');
    await expect.poll(() => alert.textContent()).toContain('approvers: pm, client_reviewer');
    expect(await alert.textContent()).toContain('Only the approvers of review policy "finance"');
    // Refused, nothing decided: the item is still in the queue.
    expect(await row.count()).toBe(1);
    expect((await t.request('GET', `/api/v1/runs/${id}`, { token: olga.token })).body.status).toBe('pending');
    expect(errors).toEqual([]);
  });

  it('has a page per policy: what it requires and what names it, and a list; another org’s is not found', async () => {
    const page = await suite.signIn(
      { org: 'acme', userId: 'fin2', role: 'client_reviewer' },
      '/review/policies/finance',
    );
    const errors = watchPageErrors(page);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Review policy Finance (finance)');
    const dl = page.locator('main dl.facts');
    const fact = async (term: string) => dl.locator(`dt:text-is("${term}") + dd`).textContent();
    expect(await fact('Approvers')).toBe('roles pm, client_reviewer');
    expect(await fact('Approvals needed')).toBe('2, by distinct people');
    expect(await fact('Self-approval')).toBe('not allowed: whoever started a run may not approve it');
    expect(await fact('Due')).toBe('4h after the item opens');
    expect(await fact('Reminder')).toBe('30m before it is due');
    expect(await fact('When overdue')).toBe('escalated to user olga');
    expect(await page.locator('.description').textContent()).toBe(
      'Money leaves the company: two people look.',
    );
    const used = await page.locator('ul.used-by > li').allTextContents();
    expect(used).toEqual(['skill Invoice (invoice)', 'workflow Payout (payout, gate at step 1)']);
    expect(await page.getByRole('link', { name: 'Invoice' }).getAttribute('href')).toBe('/skills/invoice');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/policy-page.png`, fullPage: true });

    // All of the org's policies, from the policy's page (another org's is not among them).
    await page.getByRole('link', { name: 'All review policies' }).click();
    await page.waitForURL(`${t.url}/review/policies`);
    const listed = page.locator('ul.policies > li');
    await expect
      .poll(() => listed.allTextContents())
      .toEqual(['Finance roles pm, client_reviewer · 2 approvals · due in 4h']);
    expect(await listed.getByRole('link', { name: 'Finance' }).getAttribute('href')).toBe(
      '/review/policies/finance',
    );
    expect(await checkAccessibility(page)).toEqual([]);
    await page.goto(`${t.url}/review/policies/secret`);
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/not found/i);
    expect(errors).toEqual([]);
  });

  it('fits 360 px: the review screen with its policy, progress and record, and the policy page', async () => {
    const id = await pendingSkillRun(t, olga.token, 'invoice');
    const approved = await t.request('POST', '/api/v1/reviews/decide', {
      token: fin1.token,
      body: { kind: 'skill', id, action: 'approve' },
    });
    expect(approved.status, approved.text).toBe(200);
    const narrow = { width: 360, height: 740 };
    const page = await suite.signIn(
      { org: 'acme', userId: 'fin2', role: 'client_reviewer' },
      `/review/runs/${id}`,
      narrow,
    );
    const errors = watchPageErrors(page);
    await expect
      .poll(() => facts(page).locator('dd.approvals').textContent())
      .toMatch(/^1 of 2 approved, by fin1/);
    await expect.poll(() => page.locator('section.item-ledger ol.ledger > li').count()).toBe(2);
    await expectNoSidewaysScroll(page, 'the review screen');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/review-360.png`, fullPage: true });
    await page.goto(`${t.url}/review/policies/finance`);
    await expect.poll(() => page.locator('ul.used-by > li').count()).toBe(2);
    await expectNoSidewaysScroll(page, 'the policy page');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/policy-360.png`, fullPage: true });
    await page.goto(`${t.url}/review`);
    await expect.poll(() => page.locator(`ol.queue > li[data-key="skill:${id}"] .approvals`).count()).toBe(1);
    await expectNoSidewaysScroll(page, 'the queue');
    await page.screenshot({ path: `${SHOTS}/queue-360.png`, fullPage: true });
    expect(errors).toEqual([]);
  });
});
