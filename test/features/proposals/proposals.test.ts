/**
 * Proposals end to end through real sockets (docs/api.md "Proposals"): `propose_action` over MCP (the SDK
 * client) creates a pending proposal that waits in `GET /reviews` as kind `action`; assign and
 * snooze route it; `/reviews/decide` approve executes the connector write exactly once against a
 * HubSpot-shaped server, reject and cancel never execute; an upstream that is down fails it (the
 * proposal shows the error), one that comes back executes it once; webhooks and the SSE stream
 * carry its events; tenancy, scopes and bad input answer as docs/api.md "Conventions" says.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHubspot, startFakeHubspot } from '../../../fakes/hubspot-server.js';
import { type Receiver, startReceiver } from '../../../fakes/webhook-receiver.js';
import { executeTool, type ToolCall } from '../../../src/platform/tools/registry.js';
import { type Callers, callers, fields, orgIdOf } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { call, connectHttp, fails, ok } from '../../helpers/mcp.js';
import { createSkill } from '../../helpers/resources.js';
import { openSse } from '../../helpers/sse.js';
import { waitFor } from '../../helpers/wait.js';

const ORG = 'prop-org';
let t: TestApp;
let c: Callers;
let orgId: number;
let hub: FakeHubspot;
let mcp: Client;
let readerMcp: Client;
let receiver: Receiver;
let approverUser: string;
let dealId: string;

beforeAll(async () => {
  hub = await startFakeHubspot();
  dealId = hub.add('deals', { dealname: 'Acme renewal', amount: '1000', dealstage: 'qualified' }).id;
  receiver = await startReceiver();
  t = await startTestApp({
    R3_CONNECTORS_ALLOW_PRIVATE: 'true',
    R3_WEBHOOK_ALLOW_PRIVATE: 'true',
    R3_CONNECTOR_RETRY_BASE: '5ms',
    R3_CONNECTOR_TIMEOUT: '2s',
  });
  c = await callers(t, ORG);
  orgId = await orgIdOf(t, ORG);
  approverUser = 'ann';
  await t.token({ org: ORG, user: approverUser, scopes: ['read:all'] });
  const post = async (path: string, body: unknown) => {
    const res = await t.request('POST', path, { token: c.writer, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  await post('/api/v1/sources', {
    slug: 'hubspot',
    name: 'HubSpot',
    kind: 'crm',
    connection: { baseUrl: hub.url },
  });
  // A CRM nobody answers at (a closed port): the connector is down.
  await post('/api/v1/sources', {
    slug: 'hubspot-down',
    name: 'HubSpot (down)',
    kind: 'crm',
    connection: { baseUrl: 'http://127.0.0.1:9' },
  });
  for (const slug of ['hubspot', 'hubspot-down']) {
    const res = await t.request('PUT', `/api/v1/sources/${slug}/credentials`, {
      token: c.writer,
      body: { accessToken: hub.token },
    });
    expect(res.status).toBe(200);
  }
  await post('/api/v1/agents', { slug: 'closer', name: 'Closer', sourceSlugs: ['hubspot'] });
  await post('/api/v1/agents', { slug: 'sleeper', name: 'Sleeper', active: false, sourceSlugs: ['hubspot'] });
  await post('/api/v1/agents', { slug: 'writer', name: 'Writer', sourceSlugs: [] });
  const hook = await t.request('POST', '/api/v1/webhooks', {
    token: c.writer,
    body: {
      url: `${receiver.url}/proposals`,
      events: ['proposal.created', 'proposal.executed', 'proposal.failed'],
      secret: 'whsec_test_secret_value_0123456789',
    },
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  mcp = await connectHttp(t.url, c.writer);
  readerMcp = await connectHttp(t.url, c.reader);
});
afterAll(async () => {
  await mcp?.close();
  await readerMcp?.close();
  await t?.close();
  await hub?.close();
  await receiver?.close();
});

const patches = (id = dealId) =>
  hub.requests.filter((r) => r.method === 'PATCH' && r.path === `/crm/v3/objects/deals/${id}`);

const get = (id: number, token = c.reader) => t.request('GET', `/api/v1/proposals/${id}`, { token });

const decide = (id: number, action: 'approve' | 'reject', token = c.writer, extra: object = {}) =>
  t.request('POST', '/api/v1/reviews/decide', { token, body: { kind: 'action', id, action, ...extra } });

async function propose(args: Record<string, unknown> = {}): Promise<number> {
  const answer = await ok(mcp, 'propose_action', {
    action: 'crm.update_deal',
    params: { dealId, properties: { dealstage: 'closedwon' } },
    rationale: 'The customer signed yesterday.',
    agent_slug: 'closer',
    ...args,
  });
  expect(answer).toEqual({ proposalId: expect.any(Number), status: 'pending' });
  return answer.proposalId;
}

async function settled(id: number, ms = 10_000) {
  let body: any;
  await waitFor(
    async () => {
      body = (await get(id)).body;
      return ['executed', 'failed', 'rejected', 'cancelled'].includes(body.status);
    },
    `proposal ${id} to settle`,
    ms,
  );
  return body;
}

describe('propose → review → approve', () => {
  it('proposes over MCP without executing, and the proposal waits in GET /reviews as kind action', async () => {
    const before = patches().length;
    const id = await propose();
    const queue = await t.request('GET', '/api/v1/reviews', { token: c.reader });
    expect(queue.status).toBe(200);
    const item = queue.body.reviews.find((r: any) => r.kind === 'action' && r.id === id);
    expect(item).toMatchObject({
      kind: 'action',
      id,
      status: 'pending',
      title: `crm.update_deal: The customer signed yesterday. (proposal ${id})`,
      assignedTo: null,
      reviewUrl: `${t.app.baseUrl()}/review/actions/${id}`,
      pollUrl: `/api/v1/proposals/${id}`,
    });
    const detail = await get(id);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id,
      action: 'crm.update_deal',
      source: 'hubspot',
      agentSlug: 'closer',
      params: { dealId, properties: { dealstage: 'closedwon' } },
      rationale: 'The customer signed yesterday.',
      status: 'pending',
      result: null,
      error: null,
      attempts: 0,
      review: null,
      reviewItem: { kind: 'action', id, open: true, status: 'unassigned' },
      runId: null,
      createdBy: expect.stringMatching(/^token:/),
      completedAt: null,
    });
    expect(patches().length).toBe(before);
  });

  it('assign and snooze route an action item like any other', async () => {
    const id = await propose();
    const assigned = await t.request('POST', '/api/v1/reviews/assign', {
      token: c.writer,
      body: { kind: 'action', id, assignedTo: approverUser, note: 'yours' },
    });
    expect(assigned.status).toBe(200);
    const lane = await t.request('GET', `/api/v1/reviews?assignedTo=${approverUser}`, { token: c.reader });
    expect(lane.body.reviews.map((r: any) => [r.kind, r.id, r.note])).toContainEqual(['action', id, 'yours']);
    const until = new Date(t.clock.now() + 3_600_000).toISOString();
    const snoozed = await t.request('POST', '/api/v1/reviews/snooze', {
      token: c.writer,
      body: { kind: 'action', id, until },
    });
    expect(snoozed.status).toBe(200);
    const active = await t.request('GET', '/api/v1/reviews', { token: c.reader });
    expect(active.body.reviews.some((r: any) => r.kind === 'action' && r.id === id)).toBe(false);
    expect((await get(id)).body.reviewItem).toMatchObject({ status: 'snoozed', assignedTo: approverUser });
    // A snoozed item can still be decided: it executes once.
    expect((await decide(id, 'approve')).status).toBe(200);
    expect((await settled(id)).status).toBe('executed');
  });

  it('approve executes the write exactly once, records the result, and a second approve is 409', async () => {
    const before = patches().length;
    const id = await propose({ params: { dealId, properties: { amount: 2500, dealstage: 'closedwon' } } });
    const decided = await decide(id, 'approve', c.writer, { reason: 'ship it' });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.reviews.some((r: any) => r.kind === 'action' && r.id === id)).toBe(false);
    const again = await decide(id, 'approve');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    const done = await settled(id);
    expect(done).toMatchObject({
      status: 'executed',
      attempts: 1,
      error: null,
      result: { dealId, properties: { amount: '2500', dealstage: 'closedwon' } },
      review: { decision: 'approve', by: expect.stringMatching(/^token:/), note: 'ship it' },
      reviewItem: { open: false, status: 'decided' },
      completedAt: expect.any(String),
    });
    expect(patches().length - before).toBe(1);
    expect(patches().at(-1)?.body).toEqual({ properties: { amount: '2500', dealstage: 'closedwon' } });
    // Approving after execution changes nothing either.
    expect((await decide(id, 'approve')).status).toBe(409);
    expect(patches().length - before).toBe(1);
  });

  it('approves concurrently twice: one approval wins, one execution', async () => {
    const before = patches().length;
    const id = await propose();
    const answers = await Promise.all([decide(id, 'approve'), decide(id, 'approve')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect((await settled(id)).status).toBe('executed');
    expect(patches().length - before).toBe(1);
  });

  it('crm.create_note creates one note associated with the deal', async () => {
    const notesBefore = hub.requests.filter(
      (r) => r.method === 'POST' && r.path === '/crm/v3/objects/notes',
    ).length;
    const id = await propose({ action: 'crm.create_note', params: { body: 'Signed on the call.', dealId } });
    expect((await decide(id, 'approve')).status).toBe(200);
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'executed', result: { noteId: expect.any(String), created: true } });
    const notes = hub.requests.filter((r) => r.method === 'POST' && r.path === '/crm/v3/objects/notes');
    expect(notes.length - notesBefore).toBe(1);
  });
});

describe('reject and cancel never execute', () => {
  it('reject: rejected, nothing sent, deciding again is 409', async () => {
    const before = hub.requests.length;
    const id = await propose();
    const res = await decide(id, 'reject', c.writer, { reason: 'wrong deal' });
    expect(res.status).toBe(200);
    const p = (await get(id)).body;
    expect(p).toMatchObject({
      status: 'rejected',
      review: { decision: 'reject', reason: 'wrong deal' },
      reviewItem: { open: false, status: 'decided' },
      result: null,
    });
    expect((await decide(id, 'approve')).status).toBe(409);
    await t.app.jobs.drain();
    expect(hub.requests.length).toBe(before);
  });

  it('cancel: cancelled, out of the queue, nothing sent, approving it after is 409', async () => {
    const before = hub.requests.length;
    const id = await propose();
    const res = await t.request('POST', `/api/v1/proposals/${id}/cancel`, {
      token: c.invoker,
      body: { reason: 'changed my mind' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'cancelled',
      reviewItem: { open: false, status: 'cancelled' },
    });
    const queue = await t.request('GET', '/api/v1/reviews?includeSnoozed=true', { token: c.reader });
    expect(queue.body.reviews.some((r: any) => r.kind === 'action' && r.id === id)).toBe(false);
    expect((await decide(id, 'approve')).status).toBe(409);
    expect(
      (await t.request('POST', `/api/v1/proposals/${id}/cancel`, { token: c.invoker, body: {} })).status,
    ).toBe(409);
    await t.app.jobs.drain();
    expect(hub.requests.length).toBe(before);
  });
});

describe('an upstream that is down', () => {
  it('keeps the proposal executing with the error while retries are left, then fails it, shown on it', async () => {
    const id = await propose({ agent_slug: undefined, source: 'hubspot-down' });
    expect((await get(id)).body.source).toBe('hubspot-down');
    expect((await decide(id, 'approve')).status).toBe(200);
    await waitFor(async () => (await get(id)).body.error !== null, 'the first failed attempt', 10_000);
    const retrying = (await get(id)).body;
    expect(retrying).toMatchObject({ status: 'executing', attempts: 1, error: { code: 'UNAVAILABLE' } });
    // Each retry is due after the job queue's backoff: move the clock past it until none is left.
    await waitFor(
      async () => {
        t.clock.advance(3_600_000);
        await t.app.jobs.drain();
        return (await get(id)).body.status === 'failed';
      },
      'the proposal to fail',
      30_000,
      50,
    );
    const failed = (await get(id)).body;
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 8,
      result: null,
      error: { code: 'UNAVAILABLE', message: expect.stringContaining('HubSpot') },
      completedAt: expect.any(String),
    });
    expect(failed.error.message).not.toContain(hub.token);
  });

  it('fails at once, without retrying, when HubSpot refuses the write itself (no such deal)', async () => {
    const id = await propose({ params: { dealId: '987654321', properties: { dealstage: 'closedwon' } } });
    expect((await decide(id, 'approve')).status).toBe(200);
    const done = await settled(id);
    expect(done).toMatchObject({
      status: 'failed',
      attempts: 1,
      result: null,
      error: { code: 'NOT_FOUND', message: expect.stringContaining('HubSpot') },
    });
    expect(patches('987654321')).toHaveLength(1);
  });

  it('executes once when the upstream comes back before the attempts run out', async () => {
    const before = patches().length;
    const id = await propose();
    // One attempt's worth of 503s (the first request and its four retries).
    hub.fault({ status: 503 }, 5);
    expect((await decide(id, 'approve')).status).toBe(200);
    await waitFor(async () => (await get(id)).body.error !== null, 'the failed first attempt', 10_000);
    expect((await get(id)).body).toMatchObject({ status: 'executing', error: { code: 'UNAVAILABLE' } });
    t.clock.advance(60_000);
    await t.app.jobs.drain();
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'executed', attempts: 2, error: null });
    // Five refused PATCHes, then the one that took effect.
    expect(patches().length - before).toBe(6);
    expect(hub.objects.get('deals')?.get(dealId)).toMatchObject({ properties: { dealstage: 'closedwon' } });
  });
});

describe('events', () => {
  it('webhooks get proposal.created and proposal.executed; the SSE stream replays and follows it', async () => {
    const id = await propose();
    const stream = await openSse(t.url, `/api/v1/proposals/${id}/stream`, { token: c.reader });
    expect(stream.status).toBe(200);
    const nth = async (n: number) =>
      (await stream.events.untilCount(n, 'proposal stream events', 10_000))[n - 1]!;
    const created = await nth(1);
    expect(created.event).toBe('proposal.created');
    expect(created.json).toMatchObject({
      proposalId: id,
      event: 'created',
      status: 'pending',
      action: 'crm.update_deal',
    });
    expect((await decide(id, 'approve')).status).toBe(200);
    expect((await nth(2)).event).toBe('proposal.approved');
    const executed = await nth(3);
    expect(executed.event).toBe('proposal.executed');
    expect(executed.json).toMatchObject({ status: 'executed', result: { dealId } });
    await stream.ended;
    // A stream opened afterwards replays the whole story and ends.
    const replay = await openSse(t.url, `/api/v1/proposals/${id}/stream`, { token: c.reader });
    await replay.ended;
    expect(replay.events.items.map((e) => e.event)).toEqual([
      'proposal.created',
      'proposal.approved',
      'proposal.executed',
    ]);
    const mine = () =>
      receiver.received.items.filter((r) => r.json?.data?.proposalId === id).map((r) => r.json);
    await waitFor(() => mine().length >= 2, 'the two proposal webhooks', 10_000);
    expect(mine()).toEqual([
      expect.objectContaining({
        event: 'proposal.created',
        data: {
          proposalId: id,
          action: 'crm.update_deal',
          source: 'hubspot',
          status: 'pending',
          result: null,
          error: null,
        },
      }),
      expect.objectContaining({
        event: 'proposal.executed',
        data: expect.objectContaining({
          proposalId: id,
          status: 'executed',
          result: expect.objectContaining({ dealId }),
        }),
      }),
    ]);
  });
});

describe('agents and sources (checked at every call)', () => {
  const base = {
    action: 'crm.update_deal',
    params: { dealId: '1', properties: { dealstage: 'x' } },
    rationale: 'because',
  };

  it('an unknown or inactive agent, one without a crm source, or a source it lacks: FORBIDDEN with the reason', async () => {
    const reasons: Array<[Record<string, unknown>, string]> = [
      [{ agent_slug: 'ghost' }, 'unknown_agent'],
      [{ agent_slug: 'sleeper' }, 'inactive_agent'],
      [{ agent_slug: 'writer' }, 'source_not_listed'],
      [{ agent_slug: 'closer', source: 'hubspot-down' }, 'source_not_listed'],
    ];
    for (const [args, reason] of reasons) {
      const error = await fails(mcp, 'propose_action', { ...base, ...args }, 'FORBIDDEN');
      expect(error.details).toMatchObject({ tool: 'propose_action', reason });
    }
  });

  it('a source of another kind or none, or two candidates without source: VALIDATION_FAILED; an unknown source 404', async () => {
    const ambiguous = await fails(mcp, 'propose_action', base, 'VALIDATION_FAILED');
    expect(ambiguous.details.issues[0]).toMatchObject({
      field: 'arguments.source',
      message: expect.stringContaining('hubspot, hubspot-down'),
    });
    const noMail = await fails(
      mcp,
      'propose_action',
      { action: 'mail.send', params: { to: 'a@example.com', subject: 's', text: 't' }, rationale: 'r' },
      'VALIDATION_FAILED',
    );
    expect(noMail.details.issues[0].field).toBe('arguments.source');
    const wrongKind = await fails(
      mcp,
      'propose_action',
      {
        action: 'mail.send',
        params: { to: 'a@example.com', subject: 's', text: 't' },
        rationale: 'r',
        source: 'hubspot',
      },
      'VALIDATION_FAILED',
    );
    expect(wrongKind.details.issues[0].field).toBe('arguments.source');
    await fails(mcp, 'propose_action', { ...base, source: 'nope' }, 'NOT_FOUND');
  });

  it('bad params, an unknown action, unknown fields: VALIDATION_FAILED naming the field; nothing is created', async () => {
    const count = async () =>
      (
        await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from proposals where org_id = $1', [
          orgId,
        ])
      ).n;
    const before = await count();
    const bad = await fails(
      mcp,
      'propose_action',
      { ...base, agent_slug: 'closer', params: { dealId: 'abc', properties: {} } },
      'VALIDATION_FAILED',
    );
    expect(fields({ error: bad } as any)).toEqual(
      expect.arrayContaining(['arguments.params.dealId', 'arguments.params.properties']),
    );
    await fails(mcp, 'propose_action', { ...base, action: 'crm.delete_deal' }, 'VALIDATION_FAILED');
    await fails(mcp, 'propose_action', { ...base, extra: 1 }, 'VALIDATION_FAILED');
    await fails(mcp, 'propose_action', { ...base, rationale: '  ' }, 'VALIDATION_FAILED');
    expect(await count()).toBe(before);
  });
});

describe('inside a run', () => {
  it("acts as the run's agent, records the run, and a retried call (same key) answers the same proposal", async () => {
    await createSkill(t, c.writer, { slug: 'deal-desk' });
    const agent = await t.request('POST', '/api/v1/agents', {
      token: c.writer,
      body: { slug: 'runner', name: 'Runner', skillSlugs: ['deal-desk'], sourceSlugs: ['hubspot'] },
    });
    expect(agent.status).toBe(201);
    const run = await t.request('POST', '/api/v1/skills/deal-desk/runs', {
      token: c.writer,
      body: { input: { text: 'x' }, agentSlug: 'runner' },
    });
    expect(run.status).toBe(202);
    const tool = t.app.agentTools.get('propose_action');
    expect(tool?.uses).toEqual(['run', 'mcp']);
    const call: ToolCall = {
      use: 'run',
      orgId,
      actor: 'token:runner-test',
      agentSlug: 'runner',
      apiTokenId: null,
      runId: run.body.runId,
      missionRunId: null,
      callId: 'call_1',
      idempotencyKey: `run:${run.body.runId}:call_1`,
      requestId: null,
      signal: undefined,
    };
    const args = {
      action: 'crm.update_deal',
      params: { dealId, properties: { dealstage: 'negotiation' } },
      rationale: 'From the run.',
    };
    const first = (await executeTool(tool!, args, call)) as { proposalId: number };
    const again = (await executeTool(tool!, args, call)) as { proposalId: number };
    expect(again).toEqual(first);
    const other = (await executeTool(tool!, args, { ...call, callId: 'call_2', idempotencyKey: 'k2' })) as {
      proposalId: number;
    };
    expect(other.proposalId).not.toBe(first.proposalId);
    expect((await get(first.proposalId)).body).toMatchObject({
      status: 'pending',
      agentSlug: 'runner',
      source: 'hubspot',
      runId: run.body.runId,
      createdBy: 'token:runner-test',
    });
    // The run's agent is checked at every call: deactivated, it may propose no more.
    await t.request('PATCH', '/api/v1/agents/runner', { token: c.writer, body: { active: false } });
    await expect(executeTool(tool!, args, { ...call, idempotencyKey: 'k3' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });
});

describe('tenancy, scopes and bad input over HTTP', () => {
  it("another org's proposal is 404 everywhere", async () => {
    const id = await propose();
    expect((await get(id, c.stranger)).status).toBe(404);
    expect((await decide(id, 'approve', c.stranger)).status).toBe(404);
    const cancel = await t.request('POST', `/api/v1/proposals/${id}/cancel`, { token: c.stranger, body: {} });
    expect(cancel.status).toBe(404);
    expect((await openSse(t.url, `/api/v1/proposals/${id}/stream`, { token: c.stranger })).status).toBe(404);
    const list = await t.request('GET', '/api/v1/proposals', { token: c.stranger });
    expect(list.body.proposals).toEqual([]);
    expect((await get(id)).body.status).toBe('pending');
  });

  it('missing scope or capability: 403, and nothing is decided or proposed', async () => {
    const id = await propose();
    expect((await decide(id, 'approve', c.reader)).status).toBe(403);
    expect((await get(id, c.invoker)).status).toBe(403);
    expect((await t.request('GET', '/api/v1/proposals', { token: c.invoker })).status).toBe(403);
    const cancel = await t.request('POST', `/api/v1/proposals/${id}/cancel`, { token: c.reader, body: {} });
    expect(cancel.status).toBe(403);
    // A specialist with run:approve still lacks the approve capability.
    const specialist = await t.token({ org: ORG, role: 'specialist', scopes: ['read:all', 'run:approve'] });
    expect((await decide(id, 'approve', specialist.token)).status).toBe(403);
    const denied = await call(readerMcp, 'propose_action', {
      action: 'crm.update_deal',
      params: { dealId, properties: { dealstage: 'x' } },
      rationale: 'r',
      agent_slug: 'closer',
    });
    expect(denied.isError).toBe(true);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect((await get(id)).body.status).toBe('pending');
  });

  it('bad input: 400 with the field named; unknown ids 404', async () => {
    const list = await t.request('GET', '/api/v1/proposals?status=done', { token: c.reader });
    expect(list.status).toBe(400);
    expect(fields(list.body)).toEqual(['query.status']);
    const id = await propose();
    const cancel = await t.request('POST', `/api/v1/proposals/${id}/cancel`, {
      token: c.invoker,
      body: { reason: 'x', extra: true },
    });
    expect(cancel.status).toBe(400);
    const decideBad = await t.request('POST', '/api/v1/reviews/decide', {
      token: c.writer,
      body: { kind: 'action', id: 'one', action: 'approve' },
    });
    expect(decideBad.status).toBe(400);
    expect(fields(decideBad.body)).toEqual(['body.id']);
    expect((await get(999_999_999)).status).toBe(404);
    expect((await get('abc' as never)).status).toBe(404);
    expect((await decide(999_999_999, 'approve')).status).toBe(404);
    expect((await get(id)).body.status).toBe('pending');
  });

  it('lists the org’s proposals newest first, by status, with a cursor', async () => {
    const first = await t.request('GET', '/api/v1/proposals?status=executed&limit=2', { token: c.reader });
    expect(first.status).toBe(200);
    expect(first.body.proposals).toHaveLength(2);
    expect(first.body.proposals.every((p: any) => p.status === 'executed')).toBe(true);
    const next = await t.request(
      'GET',
      `/api/v1/proposals?status=executed&limit=2&cursor=${first.body.nextCursor}`,
      {
        token: c.reader,
      },
    );
    expect(next.status).toBe(200);
    const ids = [...first.body.proposals, ...next.body.proposals].map((p: any) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });
});
