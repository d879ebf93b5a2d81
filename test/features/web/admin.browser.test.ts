/**
 * The admin pages in a real browser: create a token (plaintext shown once, it works) and revoke it
 * after confirming; owners see the org's tokens, others their own; a webhook's deliveries and
 * attempts, a replay, a rotated secret, re-enabling a disabled webhook; the tokens table fits 1280 px;
 * deliveries filtered by status, a page at a time and kept current; replay offered only on an enabled
 * webhook (a disabled one offers re-enabling first), and a refused change said in words.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { ALL_SCOPES, type TestApp } from '../../helpers/app.js';
import {
  checkAccessibility,
  describeInBrowser,
  expectNoSidewaysScroll,
  screenshot,
  watchPageErrors,
} from '../../helpers/browser.js';
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
  it('the tokens table fits 1280 px with long names and every scope', async () => {
    for (const name of ['deploy bot for the nightly export of every customer record', 'ci']) {
      await t.app.tokens.create({
        org: 'wide',
        userId: 'wide-owner-with-a-long-user-id',
        role: 'owner',
        name,
        scopes: ALL_SCOPES,
        expiresAt: new Date('2031-01-01T00:00:00Z'),
      });
    }
    const page = await signedIn('wide', 'wide-owner-with-a-long-user-id', 'owner', '/admin/tokens');
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'admin-tokens-1280');
    const wrap = page.locator('.table-wrap');
    // Nothing of the table is clipped or scrolled away: it fits its box, and the page fits the window.
    const overflow = await wrap.evaluate((e) => {
      const box = e as unknown as { scrollWidth: number; clientWidth: number };
      return box.scrollWidth - box.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await expectNoSidewaysScroll(page, 'tokens at 1280 px');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.context().close();
  });

  it('deliveries: filtered by status, a page at a time, kept current; replay only on an enabled webhook', async () => {
    // 52 delivered, then 2 that fail (few: a webhook failing many times in a row is disabled).
    receiver.respondWith(200);
    const org = await webhookedOrg(t, 'paged', receiver.url);
    for (let i = 0; i < 52; i++) await org.created(`event ${i}`);
    receiver.respondWith(500);
    for (let i = 0; i < 2; i++) await org.created(`failing ${i}`);
    const { webhooks } = (await t.request('GET', '/api/v1/webhooks', { token: org.token })).body;
    const count = async (status: string) =>
      (
        await t.request('GET', `/api/v1/webhooks/${webhooks[0].id}/deliveries?status=${status}&limit=200`, {
          token: org.token,
        })
      ).body.deliveries.length as number;
    // (Which status each has depends on when its attempt ran: the totals are what is known, once
    // every delivery has had its attempt — on a loaded machine the last may still be on its way.)
    await expect
      .poll(async () => (await count('delivered')) + (await count('failed')), { timeout: 15_000 })
      .toBe(54);
    expect(await count('failed')).toBeGreaterThan(0);
    const page = await signedIn('paged', 'page-pia', 'owner', '/admin/webhooks');
    const errors = watchPageErrors(page);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    const rows = page.locator('.deliveries > li');
    await expect.poll(() => rows.count()).toBe(50);
    await page.getByRole('button', { name: 'Show more deliveries' }).click();
    await expect.poll(() => rows.count()).toBe(54);
    expect(await page.getByRole('button', { name: 'Show more deliveries' }).count()).toBe(0);

    // Live: a new delivery shows without a reload (the page reads the deliveries again).
    receiver.respondWith(200);
    await org.created('delivered one');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(55);
    const failed = await count('failed');
    await page.getByLabel('Show').selectOption('failed');
    await expect.poll(() => rows.count()).toBe(failed);
    expect(await rows.locator('.status-failed').count()).toBe(failed);
    await page.getByLabel('Show').selectOption('delivered');
    await expect.poll(() => rows.count()).toBe(50);
    expect(await rows.locator('.status-delivered').count()).toBe(50);
    expect(await checkAccessibility(page)).toEqual([]);

    // Disabled: no replay, re-enabling offered first; re-enabled, replay is back.
    await t.request('PATCH', `/api/v1/webhooks/${webhooks[0].id}`, {
      token: org.token,
      body: { active: false },
    });
    await page.reload();
    await page.getByText('disabled (manual)').waitFor();
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await expect.poll(() => rows.count()).toBe(50);
    expect(await page.getByRole('button', { name: /^Replay/ }).count()).toBe(0);
    await page.getByText('its deliveries cannot be replayed until it is re-enabled').waitFor();
    expect(await checkAccessibility(page)).toEqual([]);
    await page.getByRole('button', { name: 'Re-enable to replay' }).click();
    await expect.poll(() => page.getByRole('button', { name: /^Replay/ }).count()).toBeGreaterThan(0);

    // A change refused by the server is said in words, not as the API's text.
    await t.request('PATCH', `/api/v1/webhooks/${webhooks[0].id}`, {
      token: org.token,
      body: { active: false },
    });
    await rows
      .first()
      .getByRole('button', { name: /^Replay/ })
      .click();
    const alert = page.getByRole('alert');
    await expect
      .poll(() => alert.textContent())
      .toBe('Could not replay the delivery: the webhook is disabled. Re-enable it first.');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
