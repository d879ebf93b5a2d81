/**
 * An evaluation's page (/review/evaluations/:id) in a real browser: each reviewed run beside its
 * replay with a word diff of the two, a rejected run without one; marks better / same / worse by
 * keyboard, recorded through the API and shown pressed; a reviewer without the approve capability
 * sees no buttons; another org's evaluation is not found; the skill's quality chart; a fork made from
 * the inspector, its lineage both ways in the inspector and on the review pages; the objects a run
 * used on its review page, with the other runs that used each; axe clean.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import {
  checkAccessibility,
  describeInBrowser,
  expectNoSidewaysScroll,
  screenshot,
  watchPageErrors,
} from '../../helpers/browser.js';
import { patchSkill } from '../../helpers/resources.js';
import { pausedWorkflowRun, pendingSkillRun, type ReviewOrg, setupReviewOrg } from '../../helpers/reviews.js';
import { waitFor } from '../../helpers/wait.js';
import { createObjectType } from '../../helpers/webhooks.js';

describeInBrowser('an evaluation in the web UI', (suite) => {
  let t: TestApp;
  let org: ReviewOrg;
  let evaluationId: number;
  let other: number;
  const runs: number[] = [];

  const get = async (path: string) =>
    (await t.request('GET', `/api/v1${path}`, { token: org.owner.token })).body;

  beforeAll(async () => {
    t = await suite.start();
    org = await setupReviewOrg(t, 'acme');
    const globex = await setupReviewOrg(t, 'globex');
    for (let i = 0; i < 3; i++) runs.push(await pendingSkillRun(t, org.owner.token));
    const globexRun = await pendingSkillRun(t, globex.owner.token);
    await waitFor(async () => {
      for (const id of [...runs]) if ((await get(`/runs/${id}`)).output === null) return false;
      return true;
    }, 'the drafts');
    const decide = async (token: string, body: Record<string, unknown>) => {
      const res = await t.request('POST', '/api/v1/reviews/decide', {
        token,
        body: { kind: 'skill', ...body },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await decide(org.owner.token, { id: runs[0], action: 'reject', reason: 'no' });
    await decide(org.owner.token, { id: runs[1], action: 'approve' });
    await decide(org.owner.token, {
      id: runs[2],
      action: 'approve',
      edits: { output: { text: 'Summarize: the reviewer wrote this instead' } },
    });
    await decide(globex.owner.token, { id: globexRun, action: 'reject', reason: 'no' });
    await patchSkill(t, org.owner.token, 'gated', { promptMd: 'Sum up: {{input.text}}' });
    await patchSkill(t, globex.owner.token, 'gated', { promptMd: 'Sum up: {{input.text}}' });
    const start = async (token: string, slug: string) => {
      const { sha } = await t.app.db.sql.one<{ sha: string }>(
        'select h.applied_sha as sha from workspace_heads h join orgs o on o.id = h.org_id where o.slug = $1',
        [slug],
      );
      const res = await t.request('POST', '/api/v1/skills/gated/evaluations', {
        token,
        body: { workspace: sha },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body.evaluationId as number;
    };
    evaluationId = await start(org.owner.token, 'acme');
    other = await start(globex.owner.token, 'globex');
    await waitFor(
      async () => (await get(`/evaluations/${evaluationId}`)).status === 'completed',
      'the evaluation',
    );
  });

  /**
   * The review page of run `runId` shows its metadata as facts and links, never as raw data: no
   * section named after one of those fields, no block of their JSON.
   */
  const expectNoRawFields = async (page: Page, runId: number) => {
    const run = await get(`/runs/${runId}`);
    const headings = await page.locator('main h2').allTextContents();
    const blocks = await page.locator('main pre').allTextContents();
    for (const field of ['forkOf', 'forks', 'replayOf', 'shadow', 'objects', 'missionRunId', 'traceId']) {
      expect(headings, field).not.toContain(field);
      if (run[field] !== null) expect(blocks, field).not.toContain(JSON.stringify(run[field], null, 2));
    }
  };
  const href = (page: Page, name: string) =>
    page.getByRole('link', { name, exact: true }).getAttribute('href');

  const pair = (page: Page, runId: number) => page.locator(`.pair[data-original="${runId}"]`);

  it('shows each pair side by side with a word diff, and records marks made with the keyboard', async () => {
    const page = await suite.signIn(
      { org: 'acme', userId: 'acme-owner', role: 'owner' },
      `/review/evaluations/${evaluationId}`,
    );
    const errors = watchPageErrors(page);
    await page
      .getByRole('heading', { level: 1, name: new RegExp(`^Evaluation ${evaluationId}: gated`) })
      .waitFor();
    expect(await page.locator('.pair').count()).toBe(3);
    expect(await page.locator('.facts').textContent()).toContain('3 replayed: 3 changed, 0 failed');

    // The edited approval: the reviewer's text beside the replay, the changed words marked.
    const edited = pair(page, runs[2] as number);
    expect(await edited.locator('figure').first().textContent()).toContain('the reviewer wrote this instead');
    expect(await edited.locator('.side-by-side figure').nth(1).textContent()).toContain('Sum up:');
    const diff = edited.locator('.word-diff');
    expect(await diff.locator('del').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('removed: ')]),
    );
    expect((await diff.locator('ins').allTextContents()).join('')).toContain('Sum');
    // A rejected run has no approved output: no diff.
    const rejected = pair(page, runs[0] as number);
    expect(await rejected.locator('figcaption').first().textContent()).toContain('Rejected');
    expect(await rejected.locator('.word-diff').count()).toBe(0);

    // Keyboard only: focus the first pair's "better", press it; then "worse" on the second with Space.
    const better = pair(page, runs[2] as number).getByRole('button', { name: 'better' });
    await better.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => better.getAttribute('aria-pressed')).toBe('true');
    const worse = pair(page, runs[1] as number).getByRole('button', { name: 'worse' });
    await worse.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => worse.getAttribute('aria-pressed')).toBe('true');
    await expect
      .poll(async () =>
        (await get(`/evaluations/${evaluationId}`)).runs.map((r: { originalRunId: number; mark: string }) => [
          r.originalRunId,
          r.mark,
        ]),
      )
      .toEqual([
        [runs[2], 'better'],
        [runs[1], 'worse'],
        [runs[0], null],
      ]);
    // Pressed again: the mark is cleared.
    await better.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => better.getAttribute('aria-pressed')).toBe('false');
    expect((await get(`/evaluations/${evaluationId}`)).runs[0].mark).toBeNull();
    expect(await page.locator('.facts').textContent()).toContain('1 of 3');

    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'evaluation');
    expect(errors).toEqual([]);
  });

  it('has no mark buttons without the approve capability; another org’s evaluation is not found', async () => {
    const viewer = await suite.signIn(
      { org: 'acme', userId: 'acme-specialist', role: 'specialist' },
      `/review/evaluations/${evaluationId}`,
    );
    await viewer.locator('.pair').first().waitFor();
    // A specialist may read it but not mark it (no approve capability).
    expect(await viewer.locator('.pair').count()).toBe(3);
    expect(await viewer.getByRole('button', { name: 'better' }).count()).toBe(0);
    expect(await checkAccessibility(viewer)).toEqual([]);

    const page = await suite.signIn(
      { org: 'acme', userId: 'acme-owner', role: 'owner' },
      `/review/evaluations/${other}`,
    );
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await page.textContent('main')).toContain('There is no such evaluation here.');
  });

  it('draws the skill’s quality per version on its page (chart and table), shadow runs left out', async () => {
    const page = await suite.signIn({ org: 'acme', userId: 'acme-owner', role: 'owner' }, '/skills/gated');
    const errors = watchPageErrors(page);
    const chart = page.getByRole('img', { name: /^Approval and edit rate per version/ });
    await chart.waitFor();
    // One version ran (v1: 2 approved, one of them edited, 1 rejected); the evaluation's shadow runs are not counted.
    const v1 = (await get(`/runs/${runs[0]}`)).workspaceSha as string;
    expect(await chart.getAttribute('aria-label')).toBe(
      `Approval and edit rate per version, oldest first: ${v1.slice(0, 7)}: approval 67%, edits 50%`,
    );
    expect(await page.locator('.quality-chart circle').count()).toBe(2);
    const rows = page.locator('table.quality tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('td').allTextContents()).toEqual(
      expect.arrayContaining(['3', '2', '1', '66.7%', '50%']),
    );
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'skill-quality');
    expect(errors).toEqual([]);
  });

  it('forks a workflow run from a step in the inspector (keyboard), and shows the lineage both ways', async () => {
    const original = await pausedWorkflowRun(t, org.owner.token);
    const approved = await t.request('POST', '/api/v1/reviews/decide', {
      token: org.owner.token,
      body: { kind: 'workflow', id: original, action: 'approve' },
    });
    expect(approved.status).toBe(200);
    await waitFor(
      async () => (await get(`/runs/${original}`)).status === 'completed',
      'the workflow to complete',
    );
    const page = await suite.signIn(
      { org: 'acme', userId: 'acme-owner', role: 'owner' },
      `/inspect/workflow-run/${original}`,
    );
    const errors = watchPageErrors(page);
    const forkWork = page.getByRole('button', { name: 'Fork from here: step work' });
    await forkWork.waitFor();
    await forkWork.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/inspect/workflow-run/(?!${original}$)\\d+$`));
    const forkId = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await get(`/runs/${forkId}`)).forkOf).toEqual({ runId: original, fromStep: 'work' });
    await page.getByText(`run ${original}`).first().waitFor();
    expect(await page.locator('.run-fork .facts').textContent()).toContain(
      `Fork ofrun ${original} from step work`,
    );
    expect(await checkAccessibility(page)).toEqual([]);

    // Lineage both ways, on both pages: the original's inspector and review page name its fork, the
    // fork's review page the run it forks.
    await page.goto(`${t.url}/inspect/workflow-run/${original}`);
    await page.getByRole('link', { name: `run ${forkId}` }).waitFor();
    expect(await page.locator('.run-fork .facts').textContent()).toContain(`Forksrun ${forkId}`);
    await page.goto(`${t.url}/review/runs/${original}`);
    await page.getByRole('link', { name: `run ${forkId}` }).waitFor();
    expect(await page.textContent('main')).toContain(`Forksrun ${forkId}`);
    expect(await href(page, `run ${forkId}`)).toBe(`/review/runs/${forkId}`);
    await page.getByRole('heading', { name: 'Steps', exact: true }).waitFor();
    await expectNoRawFields(page, original);
    await page.goto(`${t.url}/review/runs/${forkId}`);
    await page.getByRole('link', { name: `run ${original}` }).waitFor();
    expect(await page.textContent('main')).toContain(`Fork ofrun ${original} from step work`);
    await expectNoRawFields(page, forkId);
    // The step before the one it forks from was copied, not run again; the step itself ran.
    expect(await page.locator('details summary').allTextContents()).toEqual([
      `gate (copied from run ${original})`,
      'work',
    ]);
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'review-fork');
    // The link goes back to the run it forks, within the app.
    await page.getByRole('link', { name: `run ${original}`, exact: true }).click();
    await page.waitForURL(`${t.url}/review/runs/${original}`);
    await page.getByRole('link', { name: `run ${forkId}` }).waitFor();
    expect(errors).toEqual([]);

    // At 360 px the fork's lineage fits and stays axe clean.
    const narrow = await suite.signIn(
      { org: 'acme', userId: 'acme-owner', role: 'owner' },
      `/review/runs/${forkId}`,
      { width: 360, height: 740 },
    );
    await narrow.getByRole('link', { name: `run ${original}`, exact: true }).waitFor();
    await screenshot(narrow, '360px-review-fork');
    await expectNoSidewaysScroll(narrow, 'review-fork');
    expect(await checkAccessibility(narrow)).toEqual([]);
  });

  it('shows the objects a run used on its review page, and the other runs that used each', async () => {
    await createObjectType(t, org.owner.token);
    const object = await t.request('POST', '/api/v1/objects/ticket/instances', {
      token: org.owner.token,
      body: {
        title: 'Invoice dispute #7',
        metadata: { invoice: 7 },
        content: 'The customer disputes invoice 7.',
      },
    });
    expect(object.status, object.text).toBe(201);
    const id = object.body.id as number;
    const refund = await t.request('POST', '/api/v1/objects/ticket/instances', {
      token: org.owner.token,
      body: {
        title: 'Refund of invoice 7',
        metadata: {},
        content: 'Refunded.',
        links: [{ id, relation: 'resolves' }],
      },
    });
    expect(refund.status, refund.text).toBe(201);
    const start = async () => {
      const res = await t.request('POST', '/api/v1/skills/gated/runs', {
        token: org.owner.token,
        body: { input: { text: 'about the dispute' }, objects: [id] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body.runId as number;
    };
    const first = await start();
    const page = await suite.signIn(
      { org: 'acme', userId: 'acme-owner', role: 'owner' },
      `/review/runs/${first}`,
    );
    const errors = watchPageErrors(page);
    await page.locator('dl.facts dt', { hasText: 'Objects used' }).waitFor();
    // The only run that used it: no other runs named.
    await expect.poll(() => page.textContent('main')).toContain(`Invoice dispute #7 (ticket ${id}, named)`);

    // A second run names it too: each review page names the other run, from the object's side.
    const second = await start();
    expect((await get(`/objects/${id}`)).runs.map((r: { runId: number }) => r.runId).sort()).toEqual(
      [first, second].sort(),
    );
    await page.goto(`${t.url}/review/runs/${second}`);
    await page.getByRole('link', { name: `run ${first}` }).waitFor();
    expect(await page.textContent('main')).toContain(
      `Invoice dispute #7 (ticket ${id}, named; also used by run ${first})`,
    );
    await page.goto(`${t.url}/review/runs/${first}`);
    await page.getByRole('link', { name: `run ${second}` }).waitFor();
    expect(await checkAccessibility(page)).toEqual([]);
    await expectNoRawFields(page, first);
    await screenshot(page, 'review-objects');

    // The object's title links to its page, which names the runs that used it, each a link back.
    expect(await href(page, 'Invoice dispute #7')).toBe(`/objects/${id}`);
    await page.getByRole('link', { name: 'Invoice dispute #7', exact: true }).click();
    await page.waitForURL(`${t.url}/objects/${id}`);
    await page.getByRole('heading', { level: 1, name: `Invoice dispute #7 (ticket ${id})` }).waitFor();
    expect(await page.locator('main').textContent()).toContain('The customer disputes invoice 7.');
    const used = page.locator('section[aria-labelledby="runs-title"]');
    expect(
      await used.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
    ).toEqual([`/review/runs/${second}`, `/review/runs/${first}`]);
    expect(await used.textContent()).toMatch(new RegExp(`run ${first} \\(skill gated, \\w+, named\\)`));
    // The instances linked with it, both directions (here: one that links to it), and its metadata.
    const linked = page.locator('section[aria-labelledby="documents-title"]');
    expect(await linked.textContent()).toContain('Linked from Refund of invoice 7 (ticket, resolves)');
    expect(await href(page, 'Refund of invoice 7')).toBe(`/objects/${refund.body.id}`);
    expect(await page.locator('section[aria-labelledby="metadata-title"] pre').textContent()).toBe(
      JSON.stringify({ invoice: 7 }, null, 2),
    );
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'object');
    await used.getByRole('link', { name: `run ${second}`, exact: true }).click();
    await page.waitForURL(`${t.url}/review/runs/${second}`);
    await page.getByRole('link', { name: 'Invoice dispute #7', exact: true }).waitFor();
    // An object this org does not have is not found.
    await page.goto(`${t.url}/objects/999999`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(errors).toEqual([]);

    // At 360 px both pages fit (the lists wrap) and stay axe clean.
    const narrow = await suite.signIn(
      { org: 'acme', userId: 'acme-owner', role: 'owner' },
      `/review/runs/${second}`,
      { width: 360, height: 740 },
    );
    await narrow.getByRole('link', { name: 'Invoice dispute #7', exact: true }).waitFor();
    await narrow.getByRole('link', { name: `run ${first}` }).waitFor();
    await screenshot(narrow, '360px-review-objects');
    await expectNoSidewaysScroll(narrow, 'review-objects');
    expect(await checkAccessibility(narrow)).toEqual([]);
    await narrow.goto(`${t.url}/objects/${id}`);
    await narrow.locator('section[aria-labelledby="runs-title"] a').first().waitFor();
    await screenshot(narrow, '360px-object');
    await expectNoSidewaysScroll(narrow, 'object');
    expect(await checkAccessibility(narrow)).toEqual([]);
  });

  it('shows a shadow run’s review page as what it replays, with no decision and no raw fields', async () => {
    const { runs: pairs } = await get(`/evaluations/${evaluationId}`);
    const { originalRunId, shadowRunId } = pairs[0] as { originalRunId: number; shadowRunId: number };
    const page = await suite.signIn(
      { org: 'acme', userId: 'acme-owner', role: 'owner' },
      `/review/runs/${shadowRunId}`,
    );
    const errors = watchPageErrors(page);
    await page.getByRole('link', { name: `run ${originalRunId}`, exact: true }).waitFor();
    expect(await page.locator('dl.facts').first().textContent()).toContain(
      `Replay ofrun ${originalRunId} (an evaluation’s shadow run)`,
    );
    expect(await href(page, `run ${originalRunId}`)).toBe(`/review/runs/${originalRunId}`);
    await page.getByRole('heading', { name: 'Draft', exact: true }).waitFor();
    await expectNoRawFields(page, shadowRunId);
    expect(await page.getByRole('heading', { name: 'Decide', exact: true }).count()).toBe(0);
    expect(await checkAccessibility(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
