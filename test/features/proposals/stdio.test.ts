/**
 * `propose_action` over stdio (`r3 mcp --org`, the compiled build): the proposal is attributed `mcp`,
 * waits in the queue, and is executed once only after an approval made through the API — the stdio
 * process proposes, and never executes.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../fakes/hubspot-server.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectStdio, ok } from '../../helpers/mcp.js';
import { waitFor } from '../../helpers/wait.js';

let t: TestApp;
let hub: FakeHubspot;
let mcp: Client;
let transport: StdioClientTransport;
let token: string;
let dealId: string;

beforeAll(async () => {
  hub = await startFakeHubspot();
  dealId = hub.add('deals', { dealname: 'Stdio deal', dealstage: 'open' }).id;
  t = await startTestApp({ R3_CONNECTORS_ALLOW_PRIVATE: 'true' });
  token = (await t.token({ org: 'acme', scopes: ALL_SCOPES })).token;
  const send = async (method: string, path: string, body: unknown) => {
    const res = await t.request(method, path, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  };
  await send('POST', '/api/v1/sources', {
    slug: 'hubspot',
    name: 'HubSpot',
    kind: 'crm',
    connection: { baseUrl: hub.url },
  });
  await send('PUT', '/api/v1/sources/hubspot/credentials', { accessToken: hub.token });
  ({ client: mcp, transport } = await connectStdio('acme', {
    DATABASE_URL: t.database.url,
    R3_CONNECTORS_ALLOW_PRIVATE: 'true',
  }));
});
afterAll(async () => {
  await mcp?.close();
  await transport?.close();
  await t?.close();
  await hub?.close();
});

it('proposes as mcp; nothing is executed until an approval', async () => {
  const { proposalId } = await ok(mcp, 'propose_action', {
    action: 'crm.update_deal',
    params: { dealId, properties: { dealstage: 'closedwon' } },
    rationale: 'Signed.',
  });
  const get = async () => (await t.request('GET', `/api/v1/proposals/${proposalId}`, { token })).body;
  expect(await get()).toMatchObject({
    status: 'pending',
    createdBy: 'mcp',
    agentSlug: null,
    source: 'hubspot',
  });
  const queue = await t.request('GET', '/api/v1/reviews', { token });
  expect(queue.body.reviews.some((r: any) => r.kind === 'action' && r.id === proposalId)).toBe(true);
  expect(hub.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  const decided = await t.request('POST', '/api/v1/reviews/decide', {
    token,
    body: { kind: 'action', id: proposalId, action: 'approve' },
  });
  expect(decided.status).toBe(200);
  await waitFor(async () => (await get()).status === 'executed', 'the approved proposal to execute', 10_000);
  expect(hub.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
});
