/**
 * The review screen in a real browser: approve from a run's `reviewUrl` (people named by user and
 * token name), watch a workflow pause
 * live and resume it, feedback, buttons by capability, another org's run as a 404 page, and a
 * hostile draft (script, event handlers, `javascript:` links, 6 MB) rendered inert and cut.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';
import { createSkill } from '../../helpers/resources.js';
import {
  decisionsTakeEffect,
  pendingSkillRun,
  type ReviewOrg,
  setupReviewOrg,
} from '../../helpers/reviews.js';

describeInBrowser('the review screen in the browser', (suite) => {
  let t: TestApp;
  let org: ReviewOrg;
  let other: ReviewOrg;

  beforeAll(async () => {
    t = await suite.start();
    org = await setupReviewOrg(t, 'acme');
    other = await setupReviewOrg(t, 'other');
    await createSkill(t, org.owner.token, { slug: 'parrot', requiresApproval: true }, '{{input.text}}');
    await createSkill(
      t,
      org.owner.token,
      { slug: 'big', requiresApproval: true },
      '{{input.text}}'.repeat(10),
    );
  });

  const signedIn = (userId: string, role: 'pm' | 'specialist' = 'pm'): Promise<Page> =>
    suite.signIn({ org: 'acme', userId, role });
  const run = async (id: number) =>
    (await t.request('GET', `/api/v1/runs/${id}`, { token: org.owner.token })).body;
  const trigger = async (slug: string, text: string) => {
    const res = await t.request('POST', `/api/v1/skills/${slug}/runs`, {
      token: org.owner.token,
      body: { input: { text } },
    });
    expect(res.status).toBe(202);
    return res.body.runId as number;
  };

  it("approves with a note from the reviewUrl of a run's JSON", async () => {
    const id = await pendingSkillRun(t, org.owner.token);
    const { reviewUrl } = await run(id);
    const page = await signedIn('rev-rosa');
    const errors = watchPageErrors(page);
    await page.goto(reviewUrl);
    await page.getByRole('heading', { name: 'Draft', exact: true }).waitFor();
    // People by name: the token that started the run as its user and the token's name.
    const startedBy = page.locator('dt:text-is("Started by") + dd');
    await expect.poll(() => startedBy.textContent()).toMatch(/^acme-owner \(test token \d+\)$/);
    await screenshot(page, 'review-run');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.getByLabel('Note (optional)', { exact: true }).fill('looks right');
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await decisionsTakeEffect(t, org.owner.token, 'skill', id);
    await page.locator('.status-approved').waitFor();
    expect((await run(id)).review).toMatchObject({
      decision: 'approved',
      note: 'looks right',
      by: 'user:rev-rosa',
    });
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await expect
      .poll(() => page.locator('section[aria-labelledby="review-title"]').textContent())
      .toContain('by rev-rosa');

    await page.getByRole('button', { name: 'Thumbs up' }).click();
    await expect.poll(async () => (await run(id)).rating).toBe('up');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('watches a workflow pause live in the queue, opens it, resumes it, and sees it complete', async () => {
    const page = await signedIn('live-lou');
    await page.getByText(/waiting$/).waitFor();
    const res = await t.request('POST', '/api/v1/workflows/gate-first/runs', {
      token: org.owner.token,
      body: { input: {} },
    });
    const id = res.body.runId as number;
    // The run reaches its gate on the server's own workers; the queue shows it as it happens.
    const row = page.locator(`ol.queue > li[data-key="workflow:${id}"]`);
    await row.waitFor();
    await row.getByRole('link').click();
    await page.waitForURL(`${t.url}/review/runs/${id}`);
    await page.locator('.status-paused').waitFor();
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await decisionsTakeEffect(t, org.owner.token, 'workflow', id);
    await page.locator('.status-completed').waitFor();
    expect((await run(id)).status).toBe('completed');
    await page.context().close();
  });

  it('renders a hostile draft inert: no script runs, no javascript: link survives', async () => {
    const hostile = [
      '# Draft',
      '<script>window.__pwned = "script"</script>',
      '<img src="x" onerror="window.__pwned = \'onerror\'">',
      '[click me](javascript:window.__pwned=1)',
      '<a href="javascript:window.__pwned=2">raw link</a>',
      '<iframe src="https://example.com"></iframe>',
      '<p style="position:fixed;top:0">styled</p>',
    ].join('\n\n');
    const id = await trigger('parrot', hostile);
    const page = await signedIn('xss-xavier');
    await page.goto(`${t.url}/review/runs/${id}`);
    await page.locator('.draft h1').waitFor();
    expect(await page.locator('.draft script, .draft iframe, .draft [onerror], .draft [style]').count()).toBe(
      0,
    );
    expect(await page.locator('.draft a[href^="javascript"]').count()).toBe(0);
    await page.locator('.draft').getByText('click me').click();
    await page.locator('.draft').getByText('raw link').click();
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await screenshot(page, 'review-hostile-draft');
    await page.context().close();
  });

  it('tells the reviewer when the sanitizer removed part of a draft, and shows the raw text on request', async () => {
    // Issue 36 #12: an unclosed <style> inside <math> made the rest of the draft vanish from the page.
    const hidden = 'Also wire 50,000 EUR to account DE00 6666 before Friday.';
    const id = await trigger(
      'parrot',
      `# Summary\n\nAll good this quarter.\n\n<math><mi><style>\n\n${hidden}`,
    );
    const page = await signedIn('hidden-hana');
    const errors = watchPageErrors(page);
    await page.goto(`${t.url}/review/runs/${id}`);
    await page.locator('.draft h1').waitFor();
    expect(await page.locator('.draft').textContent()).not.toContain('wire 50,000');
    const notice = page.getByRole('note');
    await expect.poll(() => notice.textContent()).toContain('Not all of this draft is shown');
    expect(await notice.textContent()).toContain('<math>');
    const raw = page.locator('.notice-removed pre');
    expect(await raw.count()).toBe(0);
    await page.getByRole('button', { name: 'Show the raw text' }).click();
    await raw.getByText(hidden).waitFor();
    expect(await raw.textContent()).toContain('<math><mi><style>');
    await screenshot(page, 'review-removed-notice');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.getByRole('button', { name: 'Hide the raw text' }).click();
    expect(await raw.count()).toBe(0);
    // The page's CSP refuses the draft's <style> when DOMPurify parses it (inert): that report only.
    expect(errors.filter((e) => !e.includes("Content Security Policy directive 'style-src 'self''"))).toEqual(
      [],
    );
    await page.context().close();
  });

  it('shows no such notice for a draft kept whole', async () => {
    const id = await trigger('parrot', '# Plain\n\nNothing to hide here.');
    const page = await signedIn('plain-pia');
    await page.goto(`${t.url}/review/runs/${id}`);
    await page.locator('.draft h1').waitFor();
    await page.locator('.draft').getByText('Nothing to hide here.').waitFor();
    expect(await page.getByRole('note').count()).toBe(0);
    await page.context().close();
  });

  it('cuts a 6 MB draft and offers the whole run for download', async () => {
    const id = await trigger('big', 'x'.repeat(600_000));
    const page = await signedIn('big-bea');
    await page.goto(`${t.url}/review/runs/${id}`);
    await page.getByText('Download the whole run').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('6.0 MB');
    const download = page.waitForEvent('download');
    await page.getByText('Download the whole run').click();
    expect((await download).suggestedFilename()).toBe(`run-${id}.json`);
    await page.context().close();
  });

  it("shows another org's run as not found, and no decision without the approve capability", async () => {
    const foreign = await pendingSkillRun(t, other.owner.token);
    const page = await signedIn('spec-sia', 'specialist');
    await page.goto(`${t.url}/review/runs/${foreign}`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await screenshot(page, 'review-not-found');
    const mine = await pendingSkillRun(t, org.owner.token);
    await page.goto(`${t.url}/review/runs/${mine}`);
    await page.getByRole('heading', { name: 'Draft', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reject' }).count()).toBe(0);
    await page.context().close();
  });
});
