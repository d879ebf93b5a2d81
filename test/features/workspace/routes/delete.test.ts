/**
 * `DELETE` of authored resources through HTTP (agents, skills, workflows, object types, missions): 200
 * and a new applied version without it; 409 CONFLICT naming what still names it (`details.referencedBy`),
 * nothing written; 404 for an unknown or another org's slug; 403 without `write:resources`; 400 for a
 * slug that cannot be one. MCP's `workspace_delete` answers the same CONFLICT.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, fields, skillBody } from '../../../helpers/api.js';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { connectHttp, fails } from '../../../helpers/mcp.js';

let t: TestApp;
let c: Callers;
let mcp: Client;

/** POSTs `body` to `path` as the writer, expecting 201. */
async function create(path: string, body: unknown): Promise<void> {
  const res = await t.request('POST', path, { token: c.writer, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** The applied version's short id. */
async function appliedSha(): Promise<string | null> {
  const row = await t.app.db.sql.maybeOne<{ applied_sha: string | null }>(
    `select h.applied_sha from workspace_heads h join orgs o on o.id = h.org_id where o.slug = 'delete-org'`,
  );
  return row?.applied_sha ?? null;
}

beforeAll(async () => {
  t = await startTestApp({ R3_MCP_HTTP_AUTHORING: 'true' });
  c = await callers(t, 'delete-org');
  mcp = await connectHttp(t.url, c.writer);
  // A web of references: agent sales → skill summarize, workflow triage; workflow triage → skill
  // summarize, object type lead (its trigger); mission outreach → agent sales.
  await create('/api/v1/skills', skillBody('summarize'));
  await create('/api/v1/skills', skillBody('loose'));
  await create('/api/v1/objects/types', { slug: 'lead', name: 'Lead' });
  await create('/api/v1/workflows', {
    slug: 'triage',
    name: 'Triage',
    trigger: { type: 'object.created', objectType: 'lead' },
    steps: [{ name: 'sum', type: 'skill', skill: 'summarize', input: { text: '{{input.object.title}}' } }],
  });
  await create('/api/v1/agents', {
    slug: 'sales',
    name: 'Sales',
    skillSlugs: ['summarize'],
    workflowSlugs: ['triage'],
  });
  await create('/api/v1/missions', {
    slug: 'outreach',
    name: 'Outreach',
    goal: 'Reach out',
    team: [{ agent: 'sales' }],
  });
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

describe('DELETE while something names the resource', () => {
  it('409 CONFLICT with details.referencedBy for each kind that is named, and nothing is written', async () => {
    const before = await appliedSha();
    const cases = [
      {
        path: '/api/v1/skills/summarize',
        kind: 'skill',
        referencedBy: [
          { kind: 'agent', slug: 'sales', field: 'skillSlugs.0' },
          { kind: 'workflow', slug: 'triage', field: 'steps.0.skill' },
        ],
      },
      {
        path: '/api/v1/workflows/triage',
        kind: 'workflow',
        referencedBy: [{ kind: 'agent', slug: 'sales', field: 'workflowSlugs.0' }],
      },
      {
        path: '/api/v1/objects/types/lead',
        kind: 'object_type',
        referencedBy: [{ kind: 'workflow', slug: 'triage', field: 'trigger.objectType' }],
      },
      {
        path: '/api/v1/agents/sales',
        kind: 'agent',
        referencedBy: [{ kind: 'mission', slug: 'outreach', field: 'team.0.agent' }],
      },
    ];
    for (const { path, kind, referencedBy } of cases) {
      const res = await t.request('DELETE', path, { token: c.writer });
      expect(res.status, path).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'CONFLICT',
        details: { kind, slug: path.split('/').pop(), referencedBy },
      });
      expect(res.body.error.message).toContain('still named by');
      expect((await t.request('GET', path, { token: c.writer })).status, path).toBe(200);
    }
    expect(await appliedSha()).toBe(before);
  });

  it('MCP workspace_delete answers the same CONFLICT', async () => {
    const error = await fails(mcp, 'workspace_delete', { kind: 'skill', slug: 'summarize' }, 'CONFLICT');
    expect(error.details.referencedBy).toHaveLength(2);
  });
});

describe('DELETE of what nothing names', () => {
  it('200 {slug, deleted, workspaceSha}: a new applied version without it; GET is then 404', async () => {
    const before = await appliedSha();
    const res = await t.request('DELETE', '/api/v1/skills/loose', { token: c.writer });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ slug: 'loose', deleted: true, workspaceSha: expect.any(String) });
    const after = await appliedSha();
    expect(after).not.toBe(before);
    expect(after?.startsWith(res.body.workspaceSha)).toBe(true);
    expect((await t.request('GET', '/api/v1/skills/loose', { token: c.writer })).status).toBe(404);
    const audit = await t.app.db.sql.query<{ action: string; target_id: string }>(
      `select action, target_id from audit_log where action = 'skill.delete'`,
    );
    expect(audit).toEqual([{ action: 'skill.delete', target_id: 'loose' }]);
  });

  it('deletes a whole chain from the top: mission, agent, workflow, object type, skill', async () => {
    for (const path of [
      '/api/v1/missions/outreach',
      '/api/v1/agents/sales',
      '/api/v1/workflows/triage',
      '/api/v1/objects/types/lead',
      '/api/v1/skills/summarize',
    ]) {
      const res = await t.request('DELETE', path, { token: c.writer });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      expect((await t.request('GET', path, { token: c.writer })).status, path).toBe(404);
    }
  });
});

describe('DELETE refusals', () => {
  beforeAll(async () => {
    await create('/api/v1/skills', skillBody('kept'));
  });

  it('404 for an unknown slug and for another org’s resource', async () => {
    for (const path of [
      '/api/v1/skills/nope',
      '/api/v1/agents/nope',
      '/api/v1/workflows/nope',
      '/api/v1/objects/types/nope',
      '/api/v1/missions/nope',
    ]) {
      const res = await t.request('DELETE', path, { token: c.writer });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const stranger = await t.request('DELETE', '/api/v1/skills/kept', { token: c.stranger });
    expect(stranger.status).toBe(404);
    expect((await t.request('GET', '/api/v1/skills/kept', { token: c.writer })).status).toBe(200);
  });

  it('403 without write:resources, and 401 without a token; the skill stays', async () => {
    for (const token of [c.reader, c.invoker]) {
      const res = await t.request('DELETE', '/api/v1/skills/kept', { token });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'FORBIDDEN',
        details: { requiredScope: ['write:resources'] },
      });
    }
    expect((await t.request('DELETE', '/api/v1/skills/kept')).status).toBe(401);
    expect((await t.request('GET', '/api/v1/skills/kept', { token: c.writer })).status).toBe(200);
  });

  it('400 naming params.slug for a slug that cannot be one', async () => {
    const res = await t.request('DELETE', '/api/v1/skills/Not_A_Slug', { token: c.writer });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['params.slug']);
  });
});
