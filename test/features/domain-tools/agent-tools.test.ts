/**
 * The domain tools over what r3 holds and over the agent's own runs, over MCP with the official SDK
 * client (docs/mcp.md "Domain tools"): `search_knowledge` and `lookup_objects` see only the agent's sources,
 * `briefings` counts what changed since a time, `run_operation` starts a wired skill as the agent,
 * `learnings` lists what reviewers said (newest first, by topic), `run_history` the agent's runs.
 * Agents without the source or operation → FORBIDDEN; other orgs see nothing; bad args → VALIDATION_FAILED.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, orgIdOf, skillBody } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';

let t: TestApp;
let c: Callers;
let orgId: number;
let mcp: Client;
let stranger: Client;
const ids: Record<string, number> = {};
let startedAt: string;

async function ingest(title: string, content: string, source: string): Promise<number> {
  const res = await t.request('POST', '/api/v1/objects/note/instances', {
    token: c.writer,
    body: { title, content, source },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function settled(runId: number, status: string) {
  for (let i = 0; i < 200; i++) {
    const run = await t.request('GET', `/api/v1/runs/${runId}`, { token: c.reader });
    if (run.body.status === status) return run.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${runId} never became ${status}`);
}

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'agent-tools');
  orgId = await orgIdOf(t, 'agent-tools');
  startedAt = new Date(t.clock.now()).toISOString();
  await t.request('POST', '/api/v1/objects/types', { token: c.writer, body: { slug: 'note', name: 'Note' } });
  for (const body of [
    { slug: 'wiki', name: 'Wiki', kind: 'http' },
    { slug: 'drive', name: 'Drive', kind: 'files' },
  ]) {
    expect((await t.request('POST', '/api/v1/sources', { token: c.writer, body })).status).toBe(201);
  }
  ids.pricing = await ingest(
    'Pricing policy',
    'Enterprise seats cost 40 per month with volume discounts.',
    'wiki',
  );
  ids.onboarding = await ingest(
    'Onboarding guide',
    'New customers get a kickoff call and a pricing review.',
    'wiki',
  );
  ids.secret = await ingest('Drive pricing sheet', 'Internal pricing sheet for the board.', 'drive');
  await t.app.db.sql.query(`update object_instances set external_id = 'ext-pricing' where id = $1`, [
    ids.pricing,
  ]);
  for (const body of [
    skillBody('summarize'),
    skillBody('review-me', { requiresApproval: true }),
    skillBody('other'),
  ]) {
    expect((await t.request('POST', '/api/v1/skills', { token: c.writer, body })).status).toBe(201);
  }
  for (const agent of [
    { slug: 'researcher', name: 'Researcher', sourceSlugs: ['wiki'], skillSlugs: ['summarize', 'review-me'] },
    { slug: 'nosrc', name: 'No sources', skillSlugs: ['summarize'] },
  ]) {
    expect((await t.request('POST', '/api/v1/agents', { token: c.writer, body: agent })).status).toBe(201);
  }
  mcp = await connectHttp(t.url, c.writer);
  stranger = await connectHttp(t.url, c.stranger);
});
afterAll(async () => {
  await mcp?.close();
  await stranger?.close();
  await t?.close();
});

describe('search_knowledge', () => {
  it('searches only the agent’s sources; without an agent, the whole org', async () => {
    const mine = await ok(mcp, 'search_knowledge', { agent_slug: 'researcher', query: 'pricing' });
    expect(mine.results.map((r: { id: number }) => r.id).sort()).toEqual(
      [ids.pricing, ids.onboarding].sort(),
    );
    const pricing = mine.results.find((r: { id: number }) => r.id === ids.pricing);
    expect(pricing).toMatchObject({ type: 'note', title: 'Pricing policy', score: expect.any(Number) });
    const onboarding = mine.results.find((r: { id: number }) => r.id === ids.onboarding);
    expect(onboarding.snippet).toContain('**pricing**');
    const all = await ok(mcp, 'search_knowledge', { query: 'pricing', limit: 10 });
    expect(all.results.map((r: { id: number }) => r.id)).toContain(ids.secret);
    const one = await ok(mcp, 'search_knowledge', { query: 'pricing', limit: 1 });
    expect(one.results).toHaveLength(1);
  });

  it('FORBIDDEN for an agent without sources; another org finds nothing; bad args → VALIDATION_FAILED', async () => {
    const error = await fails(
      mcp,
      'search_knowledge',
      { agent_slug: 'nosrc', query: 'pricing' },
      'FORBIDDEN',
    );
    expect(error.details).toMatchObject({ agentSlug: 'nosrc', reason: 'source_not_listed' });
    expect((await ok(stranger, 'search_knowledge', { query: 'pricing' })).results).toEqual([]);
    for (const [args, field] of [
      [{ query: '  ' }, 'arguments.query'],
      [{ query: 'x', limit: 101 }, 'arguments.limit'],
      [{}, 'arguments.query'],
    ] as const) {
      const e = await fails(mcp, 'search_knowledge', args, 'VALIDATION_FAILED');
      expect(e.details.issues[0].field).toBe(field);
    }
  });
});

describe('lookup_objects', () => {
  it('finds by ids, external ids or a query, only in the agent’s sources', async () => {
    const byIds = await ok(mcp, 'lookup_objects', {
      agent_slug: 'researcher',
      ids: [ids.pricing, ids.secret],
    });
    expect(byIds.objects.map((o: { id: number }) => o.id)).toEqual([ids.pricing]);
    expect(byIds.objects[0]).toMatchObject({
      type: 'note',
      source: 'wiki',
      externalId: 'ext-pricing',
      title: 'Pricing policy',
      content: expect.stringContaining('40 per month'),
      truncated: false,
      url: `${t.app.url}/api/v1/objects/${ids.pricing}`,
    });
    const byExternal = await ok(mcp, 'lookup_objects', { externalIds: ['ext-pricing', 'nope'] });
    expect(byExternal.objects.map((o: { id: number }) => o.id)).toEqual([ids.pricing]);
    const byQuery = await ok(mcp, 'lookup_objects', {
      agent_slug: 'researcher',
      query: 'kickoff',
      type: 'note',
    });
    expect(byQuery.objects.map((o: { id: number }) => o.id)).toEqual([ids.onboarding]);
    const newest = await ok(mcp, 'lookup_objects', { type: 'note' });
    expect(newest.objects).toHaveLength(3);
    expect((await ok(mcp, 'lookup_objects', { type: 'ghost' })).objects).toEqual([]);
  });

  it('another org sees nothing of this one; bad args → VALIDATION_FAILED', async () => {
    expect((await ok(stranger, 'lookup_objects', { ids: [ids.pricing] })).objects).toEqual([]);
    await fails(mcp, 'lookup_objects', { agent_slug: 'nosrc', ids: [ids.pricing] }, 'FORBIDDEN');
    for (const [args, field] of [
      [{ ids: [] }, 'arguments.ids'],
      [{ ids: ['1'] }, 'arguments.ids.0'],
      [{ type: 'Bad Type' }, 'arguments.type'],
    ] as const) {
      const e = await fails(mcp, 'lookup_objects', args, 'VALIDATION_FAILED');
      expect(e.details.issues[0].field).toBe(field);
    }
  });
});

describe('briefings', () => {
  it('counts what was created and updated in the agent’s sources since a time, newest first', async () => {
    t.clock.advance(60_000);
    const mark = new Date(t.clock.now()).toISOString();
    t.clock.advance(60_000);
    const patched = await t.request('PATCH', `/api/v1/objects/${ids.onboarding}`, {
      token: c.writer,
      body: { title: 'Onboarding guide v2' },
    });
    expect(patched.status).toBe(200);
    const all = await ok(mcp, 'briefings', { agent_slug: 'researcher', since: startedAt });
    expect(all.counts).toEqual({ note: { created: 2, updated: 0 } });
    expect(all.top[0]).toMatchObject({ id: ids.onboarding, change: 'created', source: 'wiki' });
    const recent = await ok(mcp, 'briefings', { agent_slug: 'researcher', since: mark });
    expect(recent.counts).toEqual({ note: { created: 0, updated: 1 } });
    expect(recent.top).toEqual([
      expect.objectContaining({ id: ids.onboarding, title: 'Onboarding guide v2', change: 'updated' }),
    ]);
    expect(recent.since).toBe(mark);
    const org = await ok(mcp, 'briefings', { since: startedAt });
    expect(org.counts).toEqual({ note: { created: 3, updated: 0 } });
    expect((await ok(mcp, 'briefings', {})).counts).toEqual({ note: { created: 3, updated: 0 } });
    expect((await ok(stranger, 'briefings', { since: startedAt })).counts).toEqual({});
    const e = await fails(mcp, 'briefings', { since: 'yesterday' }, 'VALIDATION_FAILED');
    expect(e.details.issues[0].field).toBe('arguments.since');
  });
});

describe('run_operation, learnings, run_history', () => {
  it('runs a wired skill as the agent, attributed to the caller', async () => {
    const started = await ok(mcp, 'run_operation', {
      agent_slug: 'researcher',
      operation: 'summarize',
      input: { text: 'the notes' },
    });
    expect(started).toEqual({ runId: expect.any(Number), status: expect.any(String) });
    const run = await settled(started.runId, 'completed');
    expect(run).toMatchObject({ slug: 'summarize', agentSlug: 'researcher', input: { text: 'the notes' } });
    const prefixed = await ok(mcp, 'run_operation', {
      agent_slug: 'researcher',
      operation: 'skill:summarize',
      input: { text: 'again' },
    });
    await settled(prefixed.runId, 'completed');
  });

  it('refuses an operation not wired to the agent, and a call for no agent: FORBIDDEN, starting nothing', async () => {
    const before = await t.app.db.sql.one<{ n: number }>(
      'select count(*)::int as n from runs where org_id = $1',
      [orgId],
    );
    const other = await fails(
      mcp,
      'run_operation',
      { agent_slug: 'researcher', operation: 'other', input: {} },
      'FORBIDDEN',
    );
    expect(other.details).toMatchObject({ reason: 'operation_not_wired', operation: 'other' });
    await fails(
      mcp,
      'run_operation',
      { agent_slug: 'researcher', operation: 'workflow:summarize', input: {} },
      'FORBIDDEN',
    );
    const none = await fails(mcp, 'run_operation', { operation: 'summarize', input: {} }, 'FORBIDDEN');
    expect(none.details.reason).toBe('no_agent');
    await fails(
      mcp,
      'run_operation',
      { agent_slug: 'ghost', operation: 'summarize', input: {} },
      'FORBIDDEN',
    );
    await fails(
      stranger,
      'run_operation',
      { agent_slug: 'researcher', operation: 'summarize', input: {} },
      'FORBIDDEN',
    );
    const bad = await fails(
      mcp,
      'run_operation',
      { agent_slug: 'researcher', operation: 'Not A Slug', input: {} },
      'VALIDATION_FAILED',
    );
    expect(bad.details.issues[0].field).toBe('arguments.operation');
    const reader = await connectHttp(t.url, c.reader);
    const scope = await fails(
      reader,
      'run_operation',
      { agent_slug: 'researcher', operation: 'summarize', input: {} },
      'FORBIDDEN',
    );
    expect(scope.details.requiredScope).toEqual(['run:invoke']);
    await reader.close();
    const after = await t.app.db.sql.one<{ n: number }>(
      'select count(*)::int as n from runs where org_id = $1',
      [orgId],
    );
    expect(after.n).toBe(before.n);
  });

  it('learnings: reject reasons, approve notes and down-rated runs’ notes, newest first, by topic', async () => {
    const review = async () => {
      const { runId } = await ok(mcp, 'run_operation', {
        agent_slug: 'researcher',
        operation: 'review-me',
        input: { text: 'draft' },
      });
      await settled(runId, 'pending');
      return runId as number;
    };
    const rejected = await review();
    t.clock.advance(1_000);
    const reject = await t.request('POST', `/api/v1/runs/${rejected}/reject`, {
      token: c.writer,
      body: { reason: 'Too vague about pricing', reviewedBy: 'dana' },
    });
    expect(reject.status).toBe(200);
    const approved = await review();
    t.clock.advance(1_000);
    await t.request('POST', `/api/v1/runs/${approved}/approve`, {
      token: c.writer,
      body: { note: 'Good tone, keep it short' },
    });
    await t.request('POST', `/api/v1/runs/${approved}/approve`, { token: c.writer, body: {} });
    const plain = await review();
    await t.request('POST', `/api/v1/runs/${plain}/approve`, { token: c.writer, body: {} });
    t.clock.advance(1_000);
    const rated = await t.request('POST', `/api/v1/runs/${approved}/feedback`, {
      token: c.writer,
      body: { rating: 'down', note: 'Missed the discount tiers' },
    });
    expect(rated.status).toBe(200);

    const { learnings } = await ok(mcp, 'learnings', { agent_slug: 'researcher' });
    expect(learnings).toEqual([
      expect.objectContaining({
        kind: 'down_rated',
        runId: approved,
        note: 'Missed the discount tiers',
        by: null,
      }),
      expect.objectContaining({ kind: 'approved', runId: approved, note: 'Good tone, keep it short' }),
      expect.objectContaining({
        kind: 'rejected',
        runId: rejected,
        runKind: 'skill',
        slug: 'review-me',
        note: 'Too vague about pricing',
        by: 'dana',
      }),
    ]);
    const topic = await ok(mcp, 'learnings', { agent_slug: 'researcher', topic: 'PRICING' });
    expect(topic.learnings.map((l: { kind: string }) => l.kind)).toEqual(['rejected']);
    expect((await ok(mcp, 'learnings', { agent_slug: 'nosrc' })).learnings).toEqual([]);
    expect((await ok(stranger, 'learnings', {})).learnings).toEqual([]);
    await fails(mcp, 'learnings', { topic: '' }, 'VALIDATION_FAILED');
  });

  it('run_history: the agent’s runs, newest first, by skill and status', async () => {
    const all = await ok(mcp, 'run_history', { agent_slug: 'researcher' });
    expect(all.runs.length).toBe(5);
    expect(all.runs.every((r: { slug: string }) => ['summarize', 'review-me'].includes(r.slug))).toBe(true);
    const created = all.runs.map((r: { createdAt: string }) => r.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    const summaries = await ok(mcp, 'run_history', {
      agent_slug: 'researcher',
      skillSlug: 'summarize',
      limit: 1,
    });
    expect(summaries.runs).toEqual([
      expect.objectContaining({ kind: 'skill', slug: 'summarize', status: 'completed', error: null }),
    ]);
    const rejected = await ok(mcp, 'run_history', { agent_slug: 'researcher', status: 'rejected' });
    expect(rejected.runs.map((r: { reviewState: string }) => r.reviewState)).toEqual(['rejected']);
    expect((await ok(mcp, 'run_history', { agent_slug: 'nosrc' })).runs).toEqual([]);
    expect((await ok(stranger, 'run_history', {})).runs).toEqual([]);
    const e = await fails(mcp, 'run_history', { status: 'sleeping' }, 'VALIDATION_FAILED');
    expect(e.details.issues[0].field).toBe('arguments.status');
  });
});
