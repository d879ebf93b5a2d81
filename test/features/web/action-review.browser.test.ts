/**
 * The review screen of a proposed action in a real browser (/review/actions/:id, a proposal's
 * `reviewUrl`): action, source, params and rationale shown; approve from it executes the HubSpot
 * write once and the screen shows the result live; reject executes nothing; without the approve
 * capability no buttons; another org's proposal is a not-found page.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../fakes/hubspot-server.js';
import { ALL_SCOPES, type TestApp } from '../../helpers/app.js';
import { checkAccessibility, describeInBrowser, screenshot, watchPageErrors } from '../../helpers/browser.js';
import { connectHttp, ok } from '../../helpers/mcp.js';

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
    await send('POST', '/api/v1/sources', {
      slug: 'hubspot',
      name: 'HubSpot',
      kind: 'crm',
      connection: { baseUrl: hub.url },
    });
    await send('PUT', '/api/v1/sources/hubspot/credentials', { accessToken: hub.token });
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
    expect(await page.locator('pre').first().textContent()).toContain('"dealstage": "closedwon"');
    await screenshot(page, 'review-action');
    expect(await checkAccessibility(page)).toEqual([]);
    const before = patches().length;
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.locator('.status-executed').waitFor();
    await page.getByRole('heading', { name: 'Result' }).waitFor();
    expect(patches().length - before).toBe(1);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    const p = (await t.request('GET', `/api/v1/proposals/${id}`, { token: owner })).body;
    expect(p).toMatchObject({ status: 'executed', review: { decision: 'approve', by: 'user:rev-ada' } });
    expect(errors).toEqual([]);
  });

  it('rejects with a reason: nothing is executed', async () => {
    const { reviewUrl } = await propose('lost');
    const page = await signedIn('rev-bo');
    await page.goto(reviewUrl);
    const before = hub.requests.length;
    await page.getByLabel('Reason', { exact: true }).fill('not yet');
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
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
});
