/**
 * The runs API through the socket: every endpoint's success and error codes, scopes (403) and
 * tenancy (404 for another org's run on every id route), with the workers driven by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createAgent, createSkill } from '../../helpers/resources.js';

let t: TestApp;
let admin: CreatedToken;
let foreign: CreatedToken;
let readOnly: CreatedToken;
let invokeOnly: CreatedToken;
let specialist: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  admin = await t.token({ org: 'acme', scopes: ALL_SCOPES });
  foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  readOnly = await t.token({ org: 'acme', scopes: ['read:all'] });
  invokeOnly = await t.token({ org: 'acme', scopes: ['run:invoke'] });
  specialist = await t.token({ org: 'acme', role: 'specialist', scopes: ALL_SCOPES });
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
  await createSkill(t, admin.token, { slug: 'sum', name: 'Summarize', inputSchema: text });
  await createSkill(t, admin.token, { slug: 'gated', name: 'Gated draft', requiresApproval: true });
  await createSkill(t, admin.token, { slug: 'drafty', status: 'draft' });
  await createSkill(t, admin.token, {
    slug: 'strict-out',
    outputSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
  });
  await createSkill(t, foreign.token, { slug: 'secret' });
  await createAgent(t, admin.token, { slug: 'helper', skillSlugs: ['sum'], systemPrompt: 'Be brief.' });
  await createAgent(t, admin.token, { slug: 'sleepy', active: false, skillSlugs: ['sum'] });
  await createAgent(t, admin.token, { slug: 'loner' });
});
afterAll(() => t.close());

const post = (path: string, token: string, body?: unknown) =>
  t.request('POST', `/api/v1${path}`, { token, body: body ?? {} });
const get = (path: string, token = admin.token) => t.request('GET', `/api/v1${path}`, { token });

async function trigger(
  slug: string,
  body: Record<string, unknown> = { input: { text: 'hi' } },
  token = admin.token,
) {
  const res = await post(`/skills/${slug}/runs`, token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.runId as number;
}

describe('POST /skills/:slug/runs', () => {
  it('answers 202 {runId, status, pollUrl}; the run executes and completes', async () => {
    const res = await post('/skills/sum/runs', admin.token, { input: { text: 'hello world' } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      runId: expect.any(Number),
      status: 'running',
      pollUrl: `/api/v1/runs/${res.body.runId}`,
    });
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    const running = await get(`/runs/${res.body.runId}`);
    expect(running.body).toMatchObject({ status: 'running', output: null, completedAt: null });
    await t.app.jobs.drain();
    const run = await get(`/runs/${res.body.runId}`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      id: res.body.runId,
      kind: 'skill',
      slug: 'sum',
      status: 'completed',
      reviewState: 'auto',
      pausedAt: null,
      output: { text: 'Summarize: hello world' },
      stepResults: { sum: { output: { text: 'Summarize: hello world' } } },
      error: null,
      review: null,
      agentSlug: null,
      rating: null,
      feedbackNote: null,
      feedbackAt: null,
      createdBy: `token:${admin.id}`,
      pollUrl: `/api/v1/runs/${res.body.runId}`,
      reviewUrl: `${t.app.config.baseUrl}/review/runs/${res.body.runId}`,
    });
    expect(run.body.workspaceSha).toMatch(/^[0-9a-f]{7,40}$/);
    expect(run.body.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(run.body.completedAt).toEqual(expect.any(String));
    const [audit] = await t.app.db.sql.query<{ api_token_id: string; actor: string }>(
      `select api_token_id, actor from audit_log where action = 'run.create' and target_id = $1`,
      [String(res.body.runId)],
    );
    expect(audit).toEqual({ api_token_id: admin.id, actor: `token:${admin.id}` });
  });

  it('lands a requiresApproval skill pending, with its draft, in the review queue', async () => {
    const id = await trigger('gated', { input: { text: 'x' } });
    const created = await get(`/runs/${id}`);
    expect(created.body).toMatchObject({ status: 'pending', reviewState: 'pending' });
    await t.app.jobs.drain();
    const run = await get(`/runs/${id}`);
    expect(run.body).toMatchObject({ status: 'pending', output: { text: 'Summarize: x' } });
    const items = await t.app.db.sql.query('select title from review_items where run_id = $1 and open', [id]);
    expect(items).toEqual([{ title: `Gated draft (run ${id})` }]);
  });

  it('fails the run with OUTPUT_INVALID when the output does not match outputSchema', async () => {
    const id = await trigger('strict-out', { input: {} });
    await t.app.jobs.drain();
    const run = await get(`/runs/${id}`);
    expect(run.body).toMatchObject({ status: 'failed', error: { code: 'OUTPUT_INVALID' }, output: null });
  });

  it.each([
    ['unknown skill', '/skills/nope/runs', { input: {} }, 404, 'NOT_FOUND'],
    ["another org's skill", '/skills/secret/runs', { input: {} }, 404, 'NOT_FOUND'],
    ['inactive skill', '/skills/drafty/runs', { input: {} }, 409, 'CONFLICT'],
    ['input not matching inputSchema', '/skills/sum/runs', { input: { text: 3 } }, 400, 'VALIDATION_FAILED'],
    ['input missing a required field', '/skills/sum/runs', { input: {} }, 400, 'VALIDATION_FAILED'],
    ['input not an object', '/skills/sum/runs', { input: 'text' }, 400, 'VALIDATION_FAILED'],
    ['unknown body field', '/skills/sum/runs', { input: { text: 'a' }, extra: 1 }, 400, 'VALIDATION_FAILED'],
    [
      'unknown agent',
      '/skills/sum/runs',
      { input: { text: 'a' }, agentSlug: 'ghost' },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'inactive agent',
      '/skills/sum/runs',
      { input: { text: 'a' }, agentSlug: 'sleepy' },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'agent without the skill',
      '/skills/sum/runs',
      { input: { text: 'a' }, agentSlug: 'loner' },
      400,
      'VALIDATION_FAILED',
    ],
  ])('%s', async (_name, path, body, status, code) => {
    const before = await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from runs');
    const res = await post(path, admin.token, body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    const after = await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from runs');
    expect(after.n).toBe(before.n);
  });

  it('names the offending field', async () => {
    const res = await post('/skills/sum/runs', admin.token, { input: { text: 3 } });
    expect(res.body.error.details.issues[0]).toMatchObject({ field: 'body.input.text' });
    const agent = await post('/skills/sum/runs', admin.token, { input: { text: 'a' }, agentSlug: 'loner' });
    expect(agent.body.error.details.issues[0]).toMatchObject({ field: 'body.agentSlug' });
  });

  it('runs on behalf of a wired agent, with its system prompt', async () => {
    const id = await trigger('sum', { input: { text: 'a' }, agentSlug: 'helper' });
    const run = await get(`/runs/${id}`);
    expect(run.body.agentSlug).toBe('helper');
  });

  it('needs run:invoke (403), and a token of the org', async () => {
    const res = await post('/skills/sum/runs', readOnly.token, { input: { text: 'a' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });
});

describe('GET /runs/:id', () => {
  it.each([
    ['unknown id', '/runs/999999'],
    ['not an id', '/runs/abc'],
    ['zero', '/runs/0'],
  ])('%s → 404', async (_name, path) => {
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('needs read:all', async () => {
    const id = await trigger('sum');
    expect((await get(`/runs/${id}`, invokeOnly.token)).status).toBe(403);
    expect((await get(`/runs/${id}`, readOnly.token)).status).toBe(200);
  });
});

describe('GET /runs', () => {
  let org2: CreatedToken;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    org2 = await t.token({ org: 'listing', scopes: ALL_SCOPES });
    const text = { type: 'object', properties: { text: { type: 'string' } } };
    await createSkill(t, org2.token, { slug: 'alpha', inputSchema: text });
    await createSkill(t, org2.token, { slug: 'beta', requiresApproval: true });
    await createAgent(t, org2.token, { slug: 'bot', skillSlugs: ['alpha'] });
    ids.a1 = await trigger('alpha', { input: { text: '1' } }, org2.token);
    t.clock.advance(1_000);
    ids.mark = t.clock.now();
    t.clock.advance(1_000);
    ids.a2 = await trigger('alpha', { input: { text: '2' }, agentSlug: 'bot' }, org2.token);
    ids.b1 = await trigger('beta', { input: {} }, org2.token);
    await t.app.jobs.drain();
    ids.a3 = await trigger('alpha', { input: { text: '3' } }, org2.token);
    await post(`/runs/${ids.a1}/feedback`, org2.token, { rating: 'up' });
    await post(`/runs/${ids.a2}/feedback`, org2.token, { rating: 'down' });
  });

  const list = async (query: string) => {
    const res = await get(`/runs${query}`, org2.token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { runs: Array<{ id: number }>; nextCursor: string | null };
  };
  const idsOf = (body: { runs: Array<{ id: number }> }) => body.runs.map((r) => r.id);

  it("lists the org's runs newest first", async () => {
    const body = await list('');
    expect(idsOf(body)).toEqual([ids.a3, ids.b1, ids.a2, ids.a1]);
    expect(body.nextCursor).toBeNull();
  });

  it.each([
    ['?status=completed', ['a2', 'a1']],
    ['?status=running', ['a3']],
    ['?status=pending', ['b1']],
    ['?status=auto', ['a3', 'a2', 'a1']],
    ['?kind=skill', ['a3', 'b1', 'a2', 'a1']],
    ['?kind=workflow', []],
    ['?rating=up', ['a1']],
    ['?rating=down', ['a2']],
    ['?skillSlug=beta', ['b1']],
    ['?workflowSlug=alpha', []],
    ['?agentSlug=bot', ['a2']],
  ])('filters %s', async (query, expected) => {
    expect(idsOf(await list(query))).toEqual(expected.map((k) => ids[k]));
  });

  it('filters by createdAfter', async () => {
    const after = new Date(ids.mark as number).toISOString();
    expect(idsOf(await list(`?createdAfter=${after}`))).toEqual([ids.a3, ids.b1, ids.a2]);
  });

  it('pages with limit and cursor', async () => {
    const first = await list('?limit=3');
    expect(idsOf(first)).toEqual([ids.a3, ids.b1, ids.a2]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await list(`?limit=3&cursor=${first.nextCursor}`);
    expect(idsOf(second)).toEqual([ids.a1]);
    expect(second.nextCursor).toBeNull();
  });

  it.each([
    '?limit=0',
    '?limit=201',
    '?status=bogus',
    '?kind=mission',
    '?rating=meh',
    '?cursor=zzz',
    '?createdAfter=yesterday',
  ])('refuses %s with 400', async (query) => {
    const res = await get(`/runs${query}`, org2.token);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('needs read:all', async () => {
    const skillsOnly = await t.token({ org: 'listing', scopes: ['read:skills'] });
    expect((await get('/runs', skillsOnly.token)).status).toBe(403);
  });
});

describe('approve and reject', () => {
  it('approve moves a pending skill run to approved and records the reviewer', async () => {
    const id = await trigger('gated', { input: { text: 'x' } });
    const res = await post(`/runs/${id}/approve`, admin.token, { reviewedBy: 'ann', note: 'ship it' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'approved',
      reviewState: 'approved',
      review: {
        decision: 'approved',
        by: `token:${admin.id}`,
        onBehalfOf: 'ann',
        note: 'ship it',
        reason: null,
      },
    });
    expect(res.body.completedAt).toEqual(expect.any(String));
    const [item] = await t.app.db.sql.query<{ status: string; open: boolean }>(
      'select status, open from review_items where run_id = $1',
      [id],
    );
    expect(item).toEqual({ status: 'decided', open: false });
    // The late draft still lands, once.
    await t.app.jobs.drain();
    const run = await get(`/runs/${id}`);
    expect(run.body).toMatchObject({ status: 'approved', output: { text: 'Summarize: x' } });
    const again = await post(`/runs/${id}/approve`, admin.token, {});
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { status: 'approved' } });
    const [audit] = await t.app.db.sql.query<{ api_token_id: string }>(
      `select api_token_id from audit_log where action = 'run.approve' and target_id = $1`,
      [String(id)],
    );
    expect(audit?.api_token_id).toBe(admin.id);
  });

  it('reject moves a pending skill run to rejected with the reason', async () => {
    const id = await trigger('gated', { input: { text: 'x' } });
    const res = await post(`/runs/${id}/reject`, admin.token, { reason: 'off-brand' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'rejected',
      reviewState: 'rejected',
      review: { decision: 'rejected', reason: 'off-brand', by: `token:${admin.id}` },
    });
    expect((await post(`/runs/${id}/reject`, admin.token, {})).status).toBe(409);
  });

  it.each(['approve', 'reject'])('%s answers 409 for runs that are not pending or paused', async (verb) => {
    const running = await trigger('sum');
    expect((await post(`/runs/${running}/${verb}`, admin.token, {})).status).toBe(409);
    await t.app.jobs.drain();
    const res = await post(`/runs/${running}/${verb}`, admin.token, {});
    expect(res.status).toBe(409);
    expect(res.body.error.details.status).toBe('completed');
  });

  it.each([
    ['a token without run:approve', () => invokeOnly],
    ['a specialist, even with run:approve', () => specialist],
  ])('%s gets 403 and changes nothing', async (_name, who) => {
    const id = await trigger('gated', { input: { text: 'x' } });
    for (const verb of ['approve', 'reject']) {
      const res = await post(`/runs/${id}/${verb}`, who().token, {});
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect((await get(`/runs/${id}`)).body.status).toBe('pending');
  });

  it('refuses unknown body fields', async () => {
    const id = await trigger('gated', { input: { text: 'x' } });
    expect((await post(`/runs/${id}/approve`, admin.token, { verdict: 'yes' })).status).toBe(400);
    expect((await post(`/runs/${id}/reject`, admin.token, { note: 'wrong field' })).status).toBe(400);
  });
});

describe('cancel', () => {
  it('stops a running run for good', async () => {
    const id = await trigger('sum');
    const res = await post(`/runs/${id}/cancel`, admin.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', completedAt: expect.any(String) });
    await t.app.jobs.drain();
    expect((await get(`/runs/${id}`)).body).toMatchObject({ status: 'cancelled', output: null });
    expect((await post(`/runs/${id}/cancel`, admin.token)).status).toBe(409);
  });

  it('cancels a pending run and takes it out of the review queue', async () => {
    const id = await trigger('gated', { input: { text: 'x' } });
    expect((await post(`/runs/${id}/cancel`, admin.token)).body.status).toBe('cancelled');
    const [item] = await t.app.db.sql.query('select status, open from review_items where run_id = $1', [id]);
    expect(item).toEqual({ status: 'cancelled', open: false });
  });

  it('answers 409 for a completed, approved or rejected run', async () => {
    const done = await trigger('sum');
    await t.app.jobs.drain();
    const approved = await trigger('gated', { input: { text: 'x' } });
    await post(`/runs/${approved}/approve`, admin.token, {});
    const rejected = await trigger('gated', { input: { text: 'x' } });
    await post(`/runs/${rejected}/reject`, admin.token, {});
    for (const id of [done, approved, rejected]) {
      const res = await post(`/runs/${id}/cancel`, admin.token);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
    }
  });

  it('needs run:invoke', async () => {
    const id = await trigger('sum');
    expect((await post(`/runs/${id}/cancel`, readOnly.token)).status).toBe(403);
    expect((await get(`/runs/${id}`)).body.status).toBe('running');
  });
});

describe('feedback', () => {
  it('is recorded on any run; the same body again changes nothing but feedbackAt; null clears', async () => {
    const id = await trigger('sum');
    const first = await post(`/runs/${id}/feedback`, admin.token, { rating: 'up', note: 'good' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'running', rating: 'up', feedbackNote: 'good' });
    t.clock.advance(5_000);
    const second = await post(`/runs/${id}/feedback`, admin.token, { rating: 'up', note: 'good' });
    const { feedbackAt: at1, ...rest1 } = first.body;
    const { feedbackAt: at2, ...rest2 } = second.body;
    expect(rest2).toEqual(rest1);
    expect(Date.parse(at2) - Date.parse(at1)).toBe(5_000);
    const cleared = await post(`/runs/${id}/feedback`, admin.token, { rating: null });
    expect(cleared.body).toMatchObject({ rating: null, feedbackNote: null });
  });

  it('works in every status (pending, approved, rejected, auto)', async () => {
    const pending = await trigger('gated', { input: { text: 'x' } });
    expect((await post(`/runs/${pending}/feedback`, admin.token, { rating: 'down' })).body).toMatchObject({
      status: 'pending',
      rating: 'down',
    });
    await post(`/runs/${pending}/reject`, admin.token, {});
    expect((await post(`/runs/${pending}/feedback`, admin.token, { rating: 'up' })).body.rating).toBe('up');
  });

  it.each([
    ['no rating', {}],
    ['bad rating', { rating: 'meh' }],
    ['unknown field', { rating: 'up', stars: 5 }],
  ])('%s → 400', async (_name, body) => {
    const id = await trigger('sum');
    expect((await post(`/runs/${id}/feedback`, admin.token, body)).status).toBe(400);
  });

  it('needs run:invoke', async () => {
    const id = await trigger('sum');
    expect((await post(`/runs/${id}/feedback`, readOnly.token, { rating: 'up' })).status).toBe(403);
  });
});

describe('GET /runs/:id/transitions (extension)', () => {
  it("lists the run's transitions and its review item's, oldest first", async () => {
    const id = await trigger('gated', { input: { text: 'x' } });
    await t.app.jobs.drain();
    await post(`/runs/${id}/approve`, admin.token, {});
    const res = await get(`/runs/${id}/transitions`);
    expect(res.status).toBe(200);
    const rows = res.body.transitions as Array<{
      actorKind: string;
      from: string | null;
      to: string;
      actor: string;
    }>;
    expect(rows.map((r) => [r.actorKind, r.from, r.to])).toEqual([
      ['skill-run', null, 'pending.awaitingModel'],
      ['review-item', null, 'unassigned'],
      ['skill-run', 'pending.awaitingModel', 'pending.draftReady'],
      // The draft changed what the item's reviewers see: a new revision.
      ['review-item', 'unassigned', 'unassigned'],
      ['skill-run', 'pending.draftReady', 'approved'],
      ['review-item', 'unassigned', 'decided'],
    ]);
    expect(rows[2]?.actor).toBe('worker');
    expect(rows[3]?.actor).toBe('worker');
    expect(rows[4]?.actor).toBe(`token:${admin.id}`);
  });
});

describe('GET /machines (extension)', () => {
  it('serves the machine definitions', async () => {
    const res = await get('/machines/skill-run');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'skill-run', states: expect.any(Object) });
    const all = await get('/machines');
    expect(all.body.machines).toContainEqual({ name: 'workflow-run', version: '1' });
    expect((await get('/machines/nope')).status).toBe(404);
  });
});

describe('tenancy: another org gets 404 on every id route', () => {
  it.each([
    ['GET', ''],
    ['GET', '/transitions'],
    ['POST', '/approve'],
    ['POST', '/reject'],
    ['POST', '/cancel'],
    ['POST', '/feedback'],
  ])('%s /runs/:id%s', async (method, suffix) => {
    const id = await trigger('gated', { input: { text: 'x' } });
    const body = suffix === '/feedback' ? { rating: 'up' } : {};
    const res = await t.request(method, `/api/v1/runs/${id}${suffix}`, {
      token: foreign.token,
      ...(method === 'POST' ? { body } : {}),
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const run = await get(`/runs/${id}`);
    expect(run.body).toMatchObject({ status: 'pending', rating: null });
  });
});
