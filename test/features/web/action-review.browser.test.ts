/**
 * The review screen of a proposed action in a real browser (/review/actions/:id, a proposal's
 * `reviewUrl`): exactly what will happen — a deal update as its properties now (as synced) and
 * after, an email as the email, a note as the note — and the rationale; approve from it executes the
 * HubSpot write once and the screen shows the result live; a write that keeps failing shows its
 * attempts, next attempt and last error live; reject executes nothing; without the approve
 * capability no buttons; another org's proposal is a not-found page.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../fakes/hubspot-server.js';
import type { ConnectorAction } from '../../../src/features/connectors/index.js';
import { ALL_SCOPES, type TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';
import { connectHttp, ok } from '../../helpers/mcp.js';
import { decisionsTakeEffect, proposalOf } from '../../helpers/reviews.js';

describeInBrowser('the action review screen in the browser', (suite) => {
  let t: TestApp;
  let hub: FakeHubspot;
  let mcp: Client;
  let owner: string;
  let dealId: string;

  beforeAll(async () => {
    hub = await startFakeHubspot();
    dealId = hub.add('deals', { dealname: 'Acme', dealstage: 'qualified' }).id;
    t = await suite.start({ R3_CONNECTORS_ALLOW_PRIVATE: 'true', R3_CONNECTOR_RETRY_BASE: '5ms' });
    owner = (await t.token({ org: 'acme', user: 'acme-owner', role: 'owner', scopes: ALL_SCOPES })).token;
    await t.token({ org: 'other', user: 'other-owner', role: 'owner', scopes: ALL_SCOPES });
    const send = async (method: string, path: string, body: unknown) => {
      const res = await t.request(method, path, { token: owner, body });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    };
    await send('POST', '/api/v1/objects/types', { slug: 'deal', name: 'Deal' });
    await send('POST', '/api/v1/sources', {
      slug: 'hubspot',
      name: 'HubSpot',
      kind: 'crm',
      connection: { baseUrl: hub.url },
      sync: { objectTypes: { deal: 'deal' } },
    });
    await send('PUT', '/api/v1/sources/hubspot/credentials', { accessToken: hub.token });
    // A CRM nobody answers at (a closed port): its writes fail and are retried.
    await send('POST', '/api/v1/sources', {
      slug: 'hubspot-down',
      name: 'HubSpot (down)',
      kind: 'crm',
      connection: { baseUrl: 'http://127.0.0.1:9' },
    });
    await send('PUT', '/api/v1/sources/hubspot-down/credentials', { accessToken: hub.token });
    // The deal as synced: the "now" of the screen's table.
    const sync = await t.request('POST', '/api/v1/sources/hubspot/sync', { token: owner, body: {} });
    expect(sync.status).toBe(202);
    const orgId = (await t.app.db.sql.one<{ id: number }>(`select id from orgs where slug = 'acme'`)).id;
    expect((await t.app.syncs.whenSettled(orgId, 'hubspot', sync.body.syncId, 20_000)).status).toBe(
      'completed',
    );
    await send('POST', '/api/v1/agents', { slug: 'closer', name: 'Closer', sourceSlugs: ['hubspot'] });
    mcp = await connectHttp(t.url, owner);
  });
  afterAll(async () => {
    await mcp?.close();
    await hub?.close();
  });

  const propose = async (stage: string): Promise<{ id: number; reviewUrl: string }> => {
    const { proposalId } = await ok(mcp, 'propose_action', {
      action: 'crm.update_deal',
      params: { dealId, properties: { dealstage: stage } },
      rationale: `Move the deal to ${stage}: the customer signed.`,
      agent_slug: 'closer',
    });
    const p = await t.request('GET', `/api/v1/proposals/${proposalId}`, { token: owner });
    return { id: proposalId, reviewUrl: p.body.reviewUrl };
  };
  const patches = () => hub.requests.filter((r) => r.method === 'PATCH');
  const signedIn = (userId: string, role: 'pm' | 'specialist' = 'pm', org = 'acme'): Promise<Page> =>
    suite.signIn({ org, userId, role });

  it('shows the action and approves it from the queue: executed once, the result shown live', async () => {
    const { id, reviewUrl } = await propose('closedwon');
    expect(reviewUrl).toBe(`${t.app.baseUrl()}/review/actions/${id}`);
    const page = await signedIn('rev-ada');
    const errors = watchPageErrors(page);
    // From the queue: the item links to the action's screen.
    await page.locator(`a[href="/review/actions/${id}"]`).first().click();
    await page.getByRole('heading', { name: 'Rationale' }).waitFor();
    expect(page.url()).toBe(reviewUrl);
    await expect
      .poll(() => page.getByText('Move the deal to closedwon: the customer signed.').count())
      .toBe(1);
    // The deal's property now (as synced) and after.
    const row = page.locator('table.before-after tbody tr');
    await expect.poll(() => row.allTextContents()).toEqual(['dealstagequalifiedclosedwon']);
    expect(await page.locator('table.before-after caption').textContent()).toBe(`Deal ${dealId} (Acme)`);
    await screenshot(page, 'review-action');
    expect(await checkAccessibility(page)).toEqual([]);
    const before = patches().length;
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await decisionsTakeEffect(t, owner, 'action', id);
    await page.locator('.status-executed').waitFor();
    await page.getByRole('heading', { name: 'Result' }).waitFor();
    expect(patches().length - before).toBe(1);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    const p = (await t.request('GET', `/api/v1/proposals/${id}`, { token: owner })).body;
    expect(p).toMatchObject({ status: 'executed', review: { decision: 'approve', by: 'user:rev-ada' } });
    expect(errors).toEqual([]);
  });

  it('rejects with a reason: nothing is executed', async () => {
    const { id, reviewUrl } = await propose('lost');
    const page = await signedIn('rev-bo');
    await page.goto(reviewUrl);
    const before = hub.requests.length;
    await page.getByLabel('Reason', { exact: true }).fill('not yet');
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    await decisionsTakeEffect(t, owner, 'action', id);
    await page.locator('.status-rejected').waitFor();
    await t.app.jobs.drain();
    expect(hub.requests.length).toBe(before);
  });

  it('without the approve capability: no buttons; another org: not found', async () => {
    const { reviewUrl } = await propose('maybe');
    const specialist = await signedIn('spec-cy', 'specialist');
    await specialist.goto(reviewUrl);
    await specialist.getByRole('heading', { name: 'Rationale' }).waitFor();
    expect(await specialist.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    const stranger = await signedIn('other-dee', 'pm', 'other');
    await stranger.goto(reviewUrl);
    await stranger.getByText('There is no such proposal here.').waitFor();
  });

  const proposeDirect = (action: ConnectorAction, source = 'hubspot') =>
    proposalOf(t, 'acme', action, source);

  it('an email shows as the email, a note as the note', async () => {
    const mail = await proposeDirect(
      {
        action: 'mail.send',
        params: {
          to: ['ann@example.com', 'bo@example.com'],
          subject: 'Your refund',
          text: 'Hello Ann,\n\nIt is on its way.',
        },
      },
      'mailbox',
    );
    const page = await signedIn('rev-eve');
    await page.goto(`${t.url}/review/actions/${mail}`);
    const email = page.getByRole('article', { name: 'The email' });
    await email.waitFor();
    expect(await email.locator('dd').allTextContents()).toEqual([
      'ann@example.com, bo@example.com',
      'Your refund',
    ]);
    // The body as text, its blank line kept (no JSON escapes).
    expect(await email.locator('pre').textContent()).toBe('Hello Ann,\n\nIt is on its way.');
    expect(await checkAccessibility(page)).toEqual([]);
    const note = await proposeDirect({
      action: 'crm.create_note',
      params: { body: 'Called back.\nAll good.', dealId },
    });
    await page.goto(`${t.url}/review/actions/${note}`);
    const article = page.getByRole('article', { name: 'The note' });
    await article.waitFor();
    expect(await article.textContent()).toContain(`On deal ${dealId}`);
    expect(await article.locator('pre').textContent()).toBe('Called back.\nAll good.');
    await page.context().close();
  });

  it('a write that keeps failing shows its attempts, next attempt and last error, live', async () => {
    const id = await proposeDirect(
      { action: 'crm.update_deal', params: { dealId, properties: { amount: 5 } } },
      'hubspot-down',
    );
    const page = await signedIn('rev-fay');
    await page.goto(`${t.url}/review/actions/${id}`);
    // Never synced from this source: the table says so.
    await page.getByText('its current values are unknown').waitFor();
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await decisionsTakeEffect(t, owner, 'action', id);
    const execution = page.getByRole('region', { name: 'Execution' });
    await execution.waitFor();
    // Without a reload: the failed attempt, its error and when the next one is due.
    await execution.getByText('Next attempt').waitFor({ timeout: 20_000 });
    await execution.getByText('Last error').waitFor();
    const p = (await t.request('GET', `/api/v1/proposals/${id}`, { token: owner })).body;
    expect(p.status).toBe('executing');
    expect(await execution.textContent()).toContain(p.error.code);
    expect(await checkAccessibility(page)).toEqual([]);
    await page.context().close();
  });
  it('keyboard only: edits the email before approving — what will happen shows the edit, the diff before confirming, the proposal keeps what was proposed', async () => {
    const mail = await proposeDirect(
      {
        action: 'mail.send',
        params: { to: 'ann@example.com', subject: 'Your refnud', text: 'Hello Ann,\n\nIt is on its way.' },
      },
      'mailbox',
    );
    const page = await signedIn('rev-gus');
    const errors = watchPageErrors(page);
    await page.goto(`${t.url}/review/actions/${mail}`);
    const email = page.getByRole('article', { name: 'The email' });
    await email.waitFor();
    const tabTo = async (name: string | RegExp) => {
      const target = page
        .getByRole('button', { name, exact: true })
        .or(page.getByLabel(name, { exact: true }));
      for (let presses = 0; presses < 60; presses++) {
        if (
          await target
            .evaluate(
              (e) =>
                e ===
                (e as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
            )
            .catch(() => false)
        )
          return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reaches ${name}`);
    };
    await tabTo('Edit before approving');
    await page.keyboard.press('Enter');
    await tabTo('Subject');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Your refund');
    await tabTo('Text');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n\nMention: refund of 40 EUR.');
    // What will happen is the email as edited.
    await expect.poll(() => email.locator('dd').nth(1).textContent()).toBe('Your refund');
    expect(await email.locator('pre').textContent()).toBe(
      'Hello Ann,\n\nIt is on its way.\n\nMention: refund of 40 EUR.',
    );
    expect(await checkAccessibility(page)).toEqual([]);
    await tabTo('Review changes…');
    await page.keyboard.press('Enter');
    const changes = page.getByRole('region', { name: 'Your changes' });
    await expect.poll(() => changes.locator('figcaption').allTextContents()).toEqual(['subject', 'text']);
    expect(await changes.locator('.del').allTextContents()).toEqual([expect.stringContaining('Your refnud')]);
    expect(await checkAccessibility(page)).toEqual([]);
    await page.keyboard.press('Enter');
    await decisionsTakeEffect(t, owner, 'action', mail);
    await expect
      .poll(
        async () =>
          (await t.request('GET', `/api/v1/proposals/${mail}`, { token: owner })).body.review?.decision,
      )
      .toBe('approve');
    const p = (await t.request('GET', `/api/v1/proposals/${mail}`, { token: owner })).body;
    expect(p.params).toMatchObject({
      to: 'ann@example.com',
      subject: 'Your refund',
      text: 'Hello Ann,\n\nIt is on its way.\n\nMention: refund of 40 EUR.',
    });
    expect(p.proposedParams).toMatchObject({
      subject: 'Your refnud',
      text: 'Hello Ann,\n\nIt is on its way.',
    });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('edits a deal’s new value in the before/after table: the write sends the edit', async () => {
    const { id, reviewUrl } = await propose('closedwon');
    const page = await signedIn('rev-hal');
    await page.goto(reviewUrl);
    const row = page.locator('table.before-after tbody tr');
    await expect.poll(() => row.allTextContents()).toEqual(['dealstagequalifiedclosedwon']);
    await page.getByRole('button', { name: 'Edit before approving' }).click();
    await page.getByLabel('New value of dealstage').fill('contractsent');
    await expect.poll(() => row.allTextContents()).toEqual(['dealstagequalifiedcontractsent']);
    await page.getByRole('button', { name: 'Review changes…' }).click();
    await page.getByRole('button', { name: 'Approve with these changes' }).click();
    await decisionsTakeEffect(t, owner, 'action', id);
    await page.locator('.status-executed').waitFor();
    const patch = patches().at(-1);
    expect(JSON.stringify(patch?.body)).toContain('contractsent');
    const p = (await t.request('GET', `/api/v1/proposals/${id}`, { token: owner })).body;
    expect(p.params.properties).toEqual({ dealstage: 'contractsent' });
    expect(p.proposedParams.properties).toEqual({ dealstage: 'closedwon' });
    await page.context().close();
  });
});
