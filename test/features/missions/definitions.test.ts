/**
 * Mission definitions (docs/api.md "Missions") through HTTP and MCP: `/api/v1/missions` list, detail, create,
 * patch with their 400/403/404/409; `workspace_write_mission`, `workspace_list` and `workspace_get`
 * over the MCP SDK client; the workspace file `missions/<slug>.yaml`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, fields, orgIdOf, skillBody } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { call, connectHttp, ok } from '../../helpers/mcp.js';

let t: TestApp;
let c: Callers;

const agent = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: `Agent ${slug}`,
  skillSlugs: ['draft'],
  ...extra,
});

beforeAll(async () => {
  t = await startTestApp({ R3_MCP_HTTP_AUTHORING: 'true' });
  c = await callers(t, 'mission-defs');
  await t.request('POST', '/api/v1/skills', { token: c.writer, body: skillBody('draft') });
  for (const slug of ['lead', 'writer', 'critic']) {
    await t.request('POST', '/api/v1/agents', { token: c.writer, body: agent(slug) });
  }
  await t.request('POST', '/api/v1/agents', { token: c.writer, body: agent('sleeper', { active: false }) });
});
afterAll(() => t.close());

const mission = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: `Mission ${slug}`,
  goal: 'Write a launch note about {{input.product}}',
  team: [
    { agent: 'lead', role: 'plans' },
    { agent: 'writer', role: 'writes' },
  ],
  ...extra,
});

describe('POST /missions', () => {
  it('creates with the defaults filled in: planner the first member, review result, limits 20/3/50', async () => {
    const res = await t.request('POST', '/api/v1/missions', { token: c.writer, body: mission('launch') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      slug: 'launch',
      name: 'Mission launch',
      description: '',
      goal: 'Write a launch note about {{input.product}}',
      inputSchema: { type: 'object' },
      team: [
        { agent: 'lead', role: 'plans' },
        { agent: 'writer', role: 'writes' },
      ],
      planner: 'lead',
      review: 'result',
      limits: { maxTasks: 20, maxParallel: 3, maxToolCalls: 50 },
    });
    const orgId = await orgIdOf(t, 'mission-defs');
    const file = await t.app.db.sql.one<{ content: string }>(
      `select b.content from workspace_files f join workspace_blobs b on b.org_id = f.org_id and b.sha = f.blob_sha
        where f.org_id = $1 and f.path = 'missions/launch.yaml'`,
      [orgId],
    );
    expect(file.content).toContain('goal: Write a launch note about {{input.product}}');
  });

  it('409 on an existing slug; 403 without write:resources; 401 without a token', async () => {
    expect(
      (await t.request('POST', '/api/v1/missions', { token: c.writer, body: mission('launch') })).status,
    ).toBe(409);
    expect(
      (await t.request('POST', '/api/v1/missions', { token: c.reader, body: mission('m2') })).status,
    ).toBe(403);
    expect((await t.request('POST', '/api/v1/missions', { body: mission('m2') })).status).toBe(401);
  });

  it.each([
    ['no team', mission('x', { team: [] }), ['body.team']],
    ['unknown agent', mission('x', { team: [{ agent: 'ghost', role: '' }] }), ['body.team.0.agent']],
    ['inactive agent', mission('x', { team: [{ agent: 'sleeper', role: '' }] }), ['body.team.0.agent']],
    ['agent twice', mission('x', { team: [{ agent: 'lead' }, { agent: 'lead' }] }), ['body.team.1.agent']],
    ['planner not a member', mission('x', { planner: 'critic' }), ['body.planner']],
    ['review not plan|result|both', mission('x', { review: 'never' }), ['body.review']],
    ['maxTasks out of range', mission('x', { limits: { maxTasks: 0 } }), ['body.limits.maxTasks']],
    [
      'maxParallel out of range',
      mission('x', { limits: { maxParallel: 1000 } }),
      ['body.limits.maxParallel'],
    ],
    ['maxToolCalls over 50', mission('x', { limits: { maxToolCalls: 51 } }), ['body.limits.maxToolCalls']],
    ['unknown field', mission('x', { budget: 3 }), ['body']],
    ['no goal', { slug: 'x', name: 'X', team: [{ agent: 'lead' }] }, ['body.goal']],
  ])('400 VALIDATION_FAILED: %s', async (_name, body, expected) => {
    const res = await t.request('POST', '/api/v1/missions', { token: c.writer, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(fields(res.body)).toEqual(expected);
    expect((await t.request('GET', '/api/v1/missions/x', { token: c.writer })).status).toBe(404);
  });
});

describe('GET /missions', () => {
  it('lists by slug and shows one; another org sees neither (404)', async () => {
    const list = await t.request('GET', '/api/v1/missions', { token: c.reader });
    expect(list.status).toBe(200);
    expect(list.body.missions.map((m: { slug: string }) => m.slug)).toContain('launch');
    expect(list.body.nextCursor).toBeNull();
    const one = await t.request('GET', '/api/v1/missions/launch', { token: c.reader });
    expect(one.status).toBe(200);
    expect(one.body.planner).toBe('lead');
    expect((await t.request('GET', '/api/v1/missions/launch', { token: c.stranger })).status).toBe(404);
    const theirs = await t.request('GET', '/api/v1/missions', { token: c.stranger });
    expect(theirs.body.missions).toEqual([]);
  });

  it('400 on a bad slug or query; 403 with read:skills only', async () => {
    expect((await t.request('GET', '/api/v1/missions/Bad_Slug', { token: c.reader })).status).toBe(400);
    expect((await t.request('GET', '/api/v1/missions?limit=0', { token: c.reader })).status).toBe(400);
    expect((await t.request('GET', '/api/v1/missions', { token: c.skillsReader })).status).toBe(403);
  });
});

describe('PATCH /missions/:slug', () => {
  it('updates a subset of fields', async () => {
    const res = await t.request('PATCH', '/api/v1/missions/launch', {
      token: c.writer,
      body: { review: 'both', planner: 'writer', limits: { maxParallel: 2 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      review: 'both',
      planner: 'writer',
      limits: { maxTasks: 20, maxParallel: 2, maxToolCalls: 50 },
    });
  });

  it('404 for an unknown or foreign slug; 400 for a planner outside the team; 403 without write:resources', async () => {
    expect((await t.request('PATCH', '/api/v1/missions/ghost', { token: c.writer, body: {} })).status).toBe(
      404,
    );
    expect(
      (await t.request('PATCH', '/api/v1/missions/launch', { token: c.stranger, body: { review: 'plan' } }))
        .status,
    ).toBe(404);
    const bad = await t.request('PATCH', '/api/v1/missions/launch', {
      token: c.writer,
      body: { planner: 'critic' },
    });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(['body.planner']);
    expect(
      (await t.request('PATCH', '/api/v1/missions/launch', { token: c.reader, body: { review: 'plan' } }))
        .status,
    ).toBe(403);
  });

  it('changing review needs the approve capability (403 FORBIDDEN, nothing written)', async () => {
    const author = (await t.token({ org: 'mission-defs', scopes: ['read:all', 'write:resources'] })).token;
    const res = await t.request('PATCH', '/api/v1/missions/launch', {
      token: author,
      body: { review: 'plan' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.details.resources).toEqual(['mission:launch']);
    const kept = await t.request('PATCH', '/api/v1/missions/launch', {
      token: author,
      body: { description: 'x' },
    });
    expect(kept.status).toBe(200);
    expect(kept.body.review).toBe('both');
  });

  it('an agent in a team cannot be deactivated while the mission names it', async () => {
    const res = await t.request('PATCH', '/api/v1/agents/critic', {
      token: c.writer,
      body: { active: false },
    });
    expect(res.status).toBe(200);
    const team = await t.request('PATCH', '/api/v1/missions/launch', {
      token: c.writer,
      body: { team: [{ agent: 'writer' }, { agent: 'critic' }] },
    });
    expect(team.status).toBe(400);
    expect(fields(team.body)).toEqual(['body.team.1.agent']);
    const lead = await t.request('PATCH', '/api/v1/agents/lead', {
      token: c.writer,
      body: { active: false },
    });
    expect(lead.status).toBe(400);
  });
});

describe('MCP authoring', () => {
  it('workspace_write_mission writes through the one path; workspace_list and workspace_get show it', async () => {
    const mcp = await connectHttp(t.url, c.writer);
    try {
      const result = await ok(mcp, 'workspace_write_mission', {
        manifest: mission('research', { review: 'plan' }),
      });
      expect(result.written).toEqual(['missions/research.yaml']);
      expect(result.commit).toBeTruthy();
      expect(result.apply).toBeTruthy();
      const list = await ok(mcp, 'workspace_list');
      expect(list.missions.map((m: { slug: string }) => m.slug)).toEqual(['launch', 'research']);
      const got = await ok(mcp, 'workspace_get', { kind: 'mission', slug: 'research' });
      expect(got).toMatchObject({ kind: 'mission', slug: 'research', planner: 'lead', review: 'plan' });
      const bad = await call(mcp, 'workspace_write_mission', {
        manifest: mission('broken', { team: [{ agent: 'ghost' }] }),
      });
      expect(bad.isError).toBe(true);
      expect(bad.body.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(bad.body)).toContain('arguments.manifest.team.0.agent');
    } finally {
      await mcp.close();
    }
  });
});
