/**
 * Every page at 360 px wide (the OAuth consent page among them): nothing scrolls sideways (wide content scrolls in its own region), and
 * axe-core finds no serious violation; a screenshot of each is kept — the review screen's held decision
 * and the queue's undo toast too.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import type { TestApp } from '../../helpers/app.js';
import {
  checkAccessibility,
  describeInBrowser,
  expectNoSidewaysScroll,
  screenshot,
  watchPageErrors,
} from '../../helpers/browser.js';
import { createTeam, waitForMissionRun } from '../../helpers/missions.js';
import { authorize, authorizeParams, pkcePair, registerClient } from '../../helpers/oauth.js';
import { pendingSkillRun, setupReviewOrg } from '../../helpers/reviews.js';
import { register } from '../../helpers/webhooks.js';

describeInBrowser('the pages at 360 px wide', (suite) => {
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await suite.start({ R3_WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('fit, pass axe-core, and open the review screen from the queue with Enter', async () => {
    const org = await setupReviewOrg(t, 'acme');
    const id = await pendingSkillRun(t, org.owner.token);
    await register(t, org.owner.token, {
      url: `${receiver.url}/hook`,
      events: ['run.completed'],
      secret: 'whsec_test_0123456789abcdef',
    });
    const link = await t.app.sessions.createLoginLink({ org: 'acme', userId: 'narrow-nora', role: 'owner' });
    const page = await (await suite.b.context({ width: 360, height: 740 })).newPage();
    const errors = watchPageErrors(page);
    await page.goto(link.url);
    await page.waitForURL(`${t.url}/review`);
    // The queue's keys are scoped to the list: focus its cursor row (Tab would land there), then Enter.
    await page.locator(`ol.queue > li[data-key="skill:${id}"] a.title`).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.url}/review/runs/${id}`);
    // A mission run awaiting review (ad hoc, the echo provider) for the mission screen.
    await createTeam(t, org.owner.token, ['lead', 'writer']);
    const mission = await t.request('POST', '/api/v1/mission-runs', {
      token: org.owner.token,
      body: { team: ['lead', 'writer'], goal: 'A launch note for the narrow screens' },
    });
    await waitForMissionRun(t, org.owner.token, mission.body.missionRunId, ['awaiting_review']);

    // An OAuth client asking for every scope, for the consent page.
    const callback = 'http://127.0.0.1:9/callback';
    const client = await registerClient(t, [callback], 'A desktop assistant with a rather long name');
    const consent = new URL(
      (
        await authorize(
          t,
          authorizeParams(t, client, callback, pkcePair().challenge, {
            scope: 'read:all read:skills write:resources run:invoke run:approve',
          }),
        )
      ).headers.get('location') ?? '',
    );

    const pages: Array<[string, string, string]> = [
      ['queue', '/review', 'ol.queue'],
      ['review', `/review/runs/${id}`, '.draft'],
      ['tokens', '/admin/tokens', 'table'],
      ['webhooks', '/admin/webhooks', '.webhooks > li'],
      ['inspector', `/inspect/skill-run/${id}`, 'svg.statechart'],
      ['not-found', '/review/runs/999999', 'h1'],
      ['mission', `/review/missions/${mission.body.missionRunId}`, 'ol.tasks'],
      ['oauth-consent', `${consent.pathname}${consent.search}`, 'ul.scopes'],
    ];
    for (const [name, path, ready] of pages) {
      await page.goto(`${t.url}${path}`);
      await page.locator(ready).first().waitFor();
      await screenshot(page, `360px-${name}`);
      await expectNoSidewaysScroll(page, name);
      expect(await checkAccessibility(page), name).toEqual([]);
    }
    // The review screen's held decision and the queue's undo toast fit too.
    await page.goto(`${t.url}/review/runs/${id}`);
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByRole('button', { name: 'Undo' }).waitFor();
    await screenshot(page, '360px-review-held');
    await expectNoSidewaysScroll(page, 'review-held');
    expect(await checkAccessibility(page), 'review-held').toEqual([]);
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    await page.goto(`${t.url}/review`);
    await page.locator(`ol.queue > li[data-key="skill:${id}"] a.title`).focus();
    await page.keyboard.press('a');
    await page.locator('.toasts .toast').waitFor();
    await screenshot(page, '360px-queue-undo');
    await expectNoSidewaysScroll(page, 'queue-undo');
    expect(await checkAccessibility(page), 'queue-undo').toEqual([]);
    await page.locator('.toasts').getByRole('button', { name: /^Undo/ }).click();
    await page.locator(`ol.queue > li[data-key="skill:${id}"]`).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
