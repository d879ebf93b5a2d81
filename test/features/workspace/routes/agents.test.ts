/** `/api/v1/agents` through HTTP: list, detail with wired objects, create, patch, scopes, tenancy. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, fields, orgIdOf, skillBody } from '../../../helpers/api.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let c: Callers;

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'agents-org');
  for (const slug of ['summarize', 'classify']) {
    expect(
      (await t.request('POST', '/api/v1/skills', { token: c.writer, body: skillBody(slug) })).status,
    ).toBe(201);
  }
  const workflow = {
    slug: 'triage',
    name: 'Triage',
    steps: [{ name: 'sum', type: 'skill', skill: 'summarize', input: { text: '{{input.text}}' } }],
  };
  expect((await t.request('POST', '/api/v1/workflows', { token: c.writer, body: workflow })).status).toBe(
    201,
  );
});
afterAll(() => t.close());

const agent = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: `Agent ${slug}`,
  systemPrompt: 'You are helpful.',
  skillSlugs: ['summarize', 'classify'],
  workflowSlugs: ['triage'],
  ...extra,
});

describe('POST /agents', () => {
  it('creates an agent: 201 with the detail, wired skills and workflows in the agent’s order', async () => {
    const res = await t.request('POST', '/api/v1/agents', { token: c.writer, body: agent('sales') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      slug: 'sales',
      name: 'Agent sales',
      description: '',
      active: true,
      systemPrompt: 'You are helpful.',
      skillSlugs: ['summarize', 'classify'],
      workflowSlugs: ['triage'],
      sourceSlugs: [],
    });
    expect(res.body.skills.map((s: { slug: string }) => s.slug)).toEqual(['summarize', 'classify']);
    expect(res.body.skills[0]).toMatchObject({ slug: 'summarize', status: 'active', category: 'general' });
    expect(res.body.skills[0].promptMd).toBeUndefined();
    expect(res.body.workflows).toEqual([
      expect.objectContaining({ slug: 'triage', trigger: { type: 'manual' } }),
    ]);
    expect(Date.parse(res.body.updatedAt)).not.toBeNaN();
  });

  it('409 CONFLICT on an existing slug, and nothing changes', async () => {
    const versions = (await t.app.workspace.history(await orgIdOf(t, 'agents-org'))).length;
    const res = await t.request('POST', '/api/v1/agents', {
      token: c.writer,
      body: agent('sales', { name: 'Other' }),
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { kind: 'agent', slug: 'sales' } });
    expect((await t.app.workspace.history(await orgIdOf(t, 'agents-org'))).length).toBe(versions);
    expect((await t.request('GET', '/api/v1/agents/sales', { token: c.reader })).body.name).toBe(
      'Agent sales',
    );
  });

  it.each([
    ['missing name', { slug: 'x' }, ['body.name']],
    ['bad slug', { slug: 'Bad Slug', name: 'x' }, ['body.slug']],
    // Unknown keys are reported on the object that has them, naming them in `keys`.
    ['unknown field', { slug: 'x', name: 'x', colour: 'red' }, ['body']],
    ['wrong type', { slug: 'x', name: 'x', active: 'yes' }, ['body.active']],
    [
      'duplicate wiring',
      { slug: 'x', name: 'x', skillSlugs: ['summarize', 'summarize'] },
      ['body.skillSlugs.1'],
    ],
    ['unknown skill', { slug: 'x', name: 'x', skillSlugs: ['nope'] }, ['body.skillSlugs.0']],
    ['unknown workflow', { slug: 'x', name: 'x', workflowSlugs: ['nope'] }, ['body.workflowSlugs.0']],
    ['unknown source', { slug: 'x', name: 'x', sourceSlugs: ['nope'] }, ['body.sourceSlugs.0']],
  ])('400 VALIDATION_FAILED: %s', async (_name, body, expected) => {
    const res = await t.request('POST', '/api/v1/agents', { token: c.writer, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(fields(res.body)).toEqual(expected);
    expect((await t.request('GET', '/api/v1/agents/x', { token: c.reader })).status).toBe(404);
  });

  it('403 without write:resources', async () => {
    for (const token of [c.reader, c.skillsReader, c.invoker]) {
      const res = await t.request('POST', '/api/v1/agents', { token, body: agent('nope') });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
  });
});

describe('GET /agents', () => {
  it('lists with cursor pagination in slug order; read:skills may read', async () => {
    for (const slug of ['a1', 'a2', 'a3']) {
      await t.request('POST', '/api/v1/agents', { token: c.writer, body: agent(slug, { skillSlugs: [] }) });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const res = await t.request('GET', `/api/v1/agents${query}`, { token: c.skillsReader });
      expect(res.status).toBe(200);
      expect(res.body.agents.length).toBeLessThanOrEqual(2);
      expect(res.body.agents[0].systemPrompt).toBeUndefined();
      seen.push(...res.body.agents.map((a: { slug: string }) => a.slug));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['a1', 'a2', 'a3', 'sales']);
    const all = await t.request('GET', '/api/v1/agents', { token: c.reader });
    expect(all.body.nextCursor).toBeNull();
  });

  it('400 on a bad limit or cursor', async () => {
    for (const query of ['?limit=0', '?limit=201', '?limit=x', '?cursor=nonsense', '?colour=red']) {
      const res = await t.request('GET', `/api/v1/agents${query}`, { token: c.reader });
      expect(res.status, query).toBe(400);
    }
  });

  it('403 for a token with neither read scope', async () => {
    expect((await t.request('GET', '/api/v1/agents', { token: c.invoker })).status).toBe(403);
    expect((await t.request('GET', '/api/v1/agents/sales', { token: c.invoker })).status).toBe(403);
  });

  it('another org sees none of them: empty list, 404 on the slug', async () => {
    const list = await t.request('GET', '/api/v1/agents', { token: c.stranger });
    expect(list.body).toEqual({ agents: [], nextCursor: null });
    const res = await t.request('GET', '/api/v1/agents/sales', { token: c.stranger });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await t.request('GET', '/api/v1/agents/unknown', { token: c.reader })).status).toBe(404);
  });
});

describe('PATCH /agents/:slug', () => {
  it('updates fields and the system prompt; a version records it', async () => {
    const orgId = await orgIdOf(t, 'agents-org');
    const before = (await t.app.workspace.history(orgId)).length;
    const res = await t.request('PATCH', '/api/v1/agents/sales', {
      token: c.writer,
      body: { systemPrompt: 'Be brief.', active: false, skillSlugs: ['classify'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      systemPrompt: 'Be brief.',
      active: false,
      skillSlugs: ['classify'],
      name: 'Agent sales',
    });
    expect(res.body.skills.map((s: { slug: string }) => s.slug)).toEqual(['classify']);
    const [version] = await t.app.workspace.history(orgId);
    expect((await t.app.workspace.history(orgId)).length).toBe(before + 1);
    expect(version).toMatchObject({
      message: 'Update agent sales',
      counts: { updated: 1, created: 0, deleted: 0 },
    });
    expect(version?.appliedBy).toMatch(/^token:[a-z2-7]{16}$/);
  });

  it('400 on a bad patch, 404 on an unknown or foreign slug, 403 without the scope', async () => {
    const bad = await t.request('PATCH', '/api/v1/agents/sales', {
      token: c.writer,
      body: { workflowSlugs: ['ghost'] },
    });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(['body.workflowSlugs.0']);
    const renamed = await t.request('PATCH', '/api/v1/agents/sales', {
      token: c.writer,
      body: { slug: 'other' },
    });
    expect(fields(renamed.body)).toEqual(['body.slug']);
    expect(
      (await t.request('PATCH', '/api/v1/agents/ghost', { token: c.writer, body: { name: 'x' } })).status,
    ).toBe(404);
    expect(
      (await t.request('PATCH', '/api/v1/agents/sales', { token: c.stranger, body: { name: 'x' } })).status,
    ).toBe(404);
    expect(
      (await t.request('PATCH', '/api/v1/agents/sales', { token: c.reader, body: { name: 'x' } })).status,
    ).toBe(403);
  });

  it('records audit rows with the token id', async () => {
    const rows = await t.app.db.sql.query<{ action: string; api_token_id: string | null; actor: string }>(
      `select action, api_token_id, actor from audit_log where org_id = $1 and action like 'agent.%' order by id`,
      [await orgIdOf(t, 'agents-org')],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.actor).toBe(`token:${row.api_token_id}`);
  });
});
