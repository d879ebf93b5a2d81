/**
 * The admin pages in a real browser: create a token (plaintext shown once, it works) and revoke it
 * after confirming; owners see the org's tokens, others their own; a webhook's deliveries and
 * attempts, a replay, a rotated secret, re-enabling a disabled webhook.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import type { TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';
import { webhookedOrg } from '../../helpers/webhooks.js';

describeInBrowser('the admin pages in the browser', (suite) => {
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await suite.start({ R3_WEBHOOK_ALLOW_PRIVATE: 'true', R3_WEBHOOK_MAX_ATTEMPTS: '1' });
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const signedIn = (org: string, userId: string, role: 'owner' | 'pm', path: string): Promise<Page> =>
    suite.signIn({ org, userId, role }, path);

  it('creates a token, shows it once, and revokes it after confirming', async () => {
    const page = await signedIn('acme', 'owner-otto', 'owner', '/admin/tokens');
    const errors = watchPageErrors(page);
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByLabel('Name').fill('deploy bot');
    await page.getByLabel('write:resources').check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const plaintext = await page.getByLabel('Token', { exact: true }).inputValue();
    expect(plaintext).toMatch(/^svc_test_/);
    await screenshot(page, 'admin-tokens-issued');
    expect(await checkAccessibility(page)).toEqual([]);
    const works = await t.request('GET', '/api/v1/session', { token: plaintext });
    expect(works.body.session.scopes).toEqual(['read:all', 'run:invoke', 'write:resources']);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByLabel('Token', { exact: true }).count()).toBe(0);

    const row = page.locator('tr', { hasText: 'deploy bot' });
    await row.getByRole('button', { name: /Revoke/ }).click();
    await page.getByRole('dialog', { name: 'Revoke token' }).waitFor();
    expect(await checkAccessibility(page)).toEqual([]);
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => row.locator('td').nth(7).textContent()).toBe('revoked');
    expect((await t.request('GET', '/api/v1/session', { token: plaintext })).status).toBe(401);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("shows a non-owner only their own tokens and no revoke for others'", async () => {
    await t.token({ org: 'acme', user: 'someone-else', role: 'pm' });
    const page = await signedIn('acme', 'plain-pat', 'pm', '/admin/tokens');
    await page.getByText('Your tokens.').waitFor();
    expect(await page.getByText('someone-else').count()).toBe(0);
    expect(await page.getByLabel('For user (empty: you)').count()).toBe(0);
    await page.context().close();
  });

  it("shows a webhook's deliveries and attempts, replays one, rotates the secret, re-enables it", async () => {
    receiver.respondWith(500);
    const org = await webhookedOrg(t, 'hooks', receiver.url);
    await org.created('first');
    const page = await signedIn('hooks', 'hook-hana', 'owner', '/admin/webhooks');
    const errors = watchPageErrors(page);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    const delivery = page.locator('.deliveries > li').first();
    await delivery.locator('.status-failed').waitFor();
    await delivery.getByText('Attempts').click();
    await delivery.getByText('HTTP 500').last().waitFor();
    const inspectDelivery = await delivery.getByRole('link', { name: /Inspect/ }).getAttribute('href');
    expect(inspectDelivery).toMatch(/^\/inspect\/webhook-delivery\/\d+$/);
    await screenshot(page, 'admin-webhooks');
    expect(await checkAccessibility(page)).toEqual([]);

    receiver.respondWith(200);
    await delivery.getByRole('button', { name: /Replay/ }).click();
    await expect.poll(() => page.locator('.deliveries > li').count()).toBe(2);
    await t.app.jobs.drain();
    await expect.poll(() => receiver.received.items.length).toBe(2);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    expect(await page.getByLabel('Secret', { exact: true }).inputValue()).toMatch(/.{16,}/);

    const { webhooks } = (await t.request('GET', '/api/v1/webhooks', { token: org.token })).body;
    await t.request('PATCH', `/api/v1/webhooks/${webhooks[0].id}`, {
      token: org.token,
      body: { active: false },
    });
    await page.reload();
    await page.getByText('disabled (manual)').waitFor();
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page.getByText('active', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Inspect', exact: true }).click();
    await page.waitForURL(`${t.url}/inspect/webhook-endpoint/${webhooks[0].id}`);
    await expect
      .poll(() => page.locator('svg.statechart g.state.current').getAttribute('data-state'))
      .toBe('enabled');
    await page.goto(`${t.url}${inspectDelivery}`);
    await expect
      .poll(() => page.locator('svg.statechart g.state.current').getAttribute('data-state'))
      .toBe('failed');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
