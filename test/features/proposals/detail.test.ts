/**
 * `GET /proposals/:id` as the action review screen reads it: the deal a `crm.update_deal` changes as
 * its source last synced it (`syncedRecord`, the "before" of the screen's table; null for a deal never
 * synced, another action, or a source that syncs no deals), and while a retry waits, when the next
 * attempt is due (`nextAttemptAt`) beside the attempts and the last error. `GET /reviews/action/:id`
 * answers the same subject. 404 for another org's proposal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../fakes/hubspot-server.js';
import type { ConnectorAction } from '../../../src/features/connectors/index.js';
import { type Callers, callers, orgIdOf } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { proposalOf } from '../../helpers/reviews.js';
import { waitFor } from '../../helpers/wait.js';

let t: TestApp;
let c: Callers;
let orgId: number;
let hub: FakeHubspot;
let dealId: string;

beforeAll(async () => {
  hub = await startFakeHubspot();
  dealId = hub.add('deals', { dealname: 'Acme renewal', amount: '1000', dealstage: 'qualified' }).id;
  t = await startTestApp({ R3_CONNECTORS_ALLOW_PRIVATE: 'true', R3_CONNECTOR_TIMEOUT: '2s' });
  c = await callers(t, 'detail-org');
  orgId = await orgIdOf(t, 'detail-org');
  const post = async (path: string, body: unknown) => {
    const res = await t.request('POST', path, { token: c.writer, body });
    expect(res.status, res.text).toBe(201);
  };
  await post('/api/v1/objects/types', { slug: 'deal', name: 'Deal' });
  await post('/api/v1/sources', {
    slug: 'hubspot',
    name: 'HubSpot',
    kind: 'crm',
    connection: { baseUrl: hub.url },
    sync: { objectTypes: { deal: 'deal' } },
  });
  // A CRM nobody answers at (a closed port): every attempt fails and is retried.
  await post('/api/v1/sources', {
    slug: 'hubspot-down',
    name: 'HubSpot (down)',
    kind: 'crm',
    connection: { baseUrl: 'http://127.0.0.1:9' },
    sync: { objectTypes: { deal: 'deal' } },
  });
  for (const slug of ['hubspot', 'hubspot-down']) {
    const res = await t.request('PUT', `/api/v1/sources/${slug}/credentials`, {
      token: c.writer,
      body: { accessToken: hub.token },
    });
    expect(res.status).toBe(200);
  }
  const sync = await t.request('POST', '/api/v1/sources/hubspot/sync', { token: c.writer, body: {} });
  expect(sync.status).toBe(202);
  const settled = await t.app.syncs.whenSettled(orgId, 'hubspot', sync.body.syncId, 20_000);
  expect(settled.status).toBe('completed');
});
afterAll(async () => {
  await t?.close();
  await hub?.close();
});

const propose = (action: ConnectorAction, source = 'hubspot') => proposalOf(t, 'detail-org', action, source);

const get = (id: number, token = c.reader) => t.request('GET', `/api/v1/proposals/${id}`, { token });

describe('GET /proposals/:id for the review screen', () => {
  it("crm.update_deal carries the deal as last synced: the table's before", async () => {
    const id = await propose({
      action: 'crm.update_deal',
      params: { dealId, properties: { dealstage: 'closedwon' } },
    });
    const res = await get(id);
    expect(res.status).toBe(200);
    expect(res.body.syncedRecord).toEqual({
      type: 'deal',
      externalId: dealId,
      properties: expect.objectContaining({
        dealname: 'Acme renewal',
        amount: '1000',
        dealstage: 'qualified',
      }),
      syncedAt: expect.any(String),
    });
    expect(res.body.nextAttemptAt).toBeNull();
    // The queue's item answers the same subject.
    const item = await t.request('GET', `/api/v1/reviews/action/${id}`, { token: c.reader });
    expect(item.body.subject.syncedRecord.properties.dealstage).toBe('qualified');
  });

  it('null for a deal never synced and for other actions', async () => {
    const unknown = await propose({
      action: 'crm.update_deal',
      params: { dealId: '999999', properties: { amount: 5 } },
    });
    expect((await get(unknown)).body.syncedRecord).toBeNull();
    const note = await propose({ action: 'crm.create_note', params: { body: 'Called', dealId } });
    expect((await get(note)).body.syncedRecord).toBeNull();
  });

  it('while a retry waits: attempts, the last error and when the next attempt is due', async () => {
    const id = await propose(
      { action: 'crm.update_deal', params: { dealId, properties: { amount: 2000 } } },
      'hubspot-down',
    );
    const approved = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'action', id, action: 'approve' },
    });
    expect(approved.status, approved.text).toBe(200);
    let body: any;
    await waitFor(
      async () => {
        body = (await get(id)).body;
        return body.error !== null && body.nextAttemptAt !== null;
      },
      'a failed attempt with the next one scheduled',
      15_000,
    );
    expect(body).toMatchObject({ status: 'executing', attempts: expect.any(Number) });
    expect(body.attempts).toBeGreaterThanOrEqual(1);
    expect(Date.parse(body.nextAttemptAt)).toBeGreaterThan(Date.parse(body.createdAt));
    expect(body.error.code).toEqual(expect.any(String));
  });

  it("404 for another org's proposal", async () => {
    const id = await propose({
      action: 'crm.update_deal',
      params: { dealId, properties: { dealstage: 'x' } },
    });
    const other = await t.token({ org: 'someone-else', scopes: ['read:all'] });
    expect((await get(id, other.token)).status).toBe(404);
  });
});
