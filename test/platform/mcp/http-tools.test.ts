/**
 * MCP over streamable HTTP with the official SDK client, authoring off (the default): the listing,
 * every read, runtime and data tool's success and error results, permissions (scopes and the approve
 * capability, nothing changed on refusal), attribution (`token:<id>`) and tenant isolation.
 */
import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { createAgent, createSkill, createWorkflow } from '../../helpers/resources.js';

let t: TestApp;
let admin: CreatedToken;
let foreign: CreatedToken;
let mcp: Client;
const clients: Client[] = [];

const TEXT = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

async function client(token: string): Promise<Client> {
  const c = await connectHttp(t.url, token);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token({ org: 'acme', scopes: ALL_SCOPES });
  foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  await createSkill(t, admin.token, {
    slug: 'sum',
    name: 'Summarize',
    description: 'Sums up',
    inputSchema: TEXT,
  });
  await createSkill(t, admin.token, { slug: 'gated', name: 'Gated draft', requiresApproval: true });
  await createSkill(t, admin.token, { slug: 'drafty', status: 'draft' });
  await createSkill(t, foreign.token, { slug: 'sum', name: 'Foreign summarize' });
  await createAgent(t, admin.token, { slug: 'helper', skillSlugs: ['sum'], systemPrompt: 'Be brief.' });
  await createWorkflow(t, admin.token, {
    slug: 'flow',
    steps: [{ name: 'first', type: 'skill', skill: 'sum', input: { text: '{{input.text}}' } }],
  });
  const type = await t.request('POST', '/api/v1/objects/types', {
    token: admin.token,
    body: { slug: 'note', name: 'Note', description: 'Meeting notes' },
  });
  expect(type.status).toBe(201);
  for (const title of ['Quarterly pricing review', 'Onboarding checklist']) {
    const res = await t.request('POST', '/api/v1/objects/note/instances', {
      token: admin.token,
      body: { title, content: `${title}: details follow.` },
    });
    expect(res.status).toBe(201);
  }
  mcp = await client(admin.token);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

describe('tools/list over HTTP with authoring off', () => {
  it('lists the workspace reads, runtime, data, built-in, domain and mission tools, and no authoring or event-only tool', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'briefings',
        'crawl_site',
        'create_artifact',
        'fetch_url',
        'freshen_source',
        'generate_image',
        'get_crm_companies',
        'get_crm_contacts',
        'get_crm_deals',
        'get_mail_thread',
        'get_meeting_transcript',
        'learnings',
        'lookup_objects',
        'mission_approve',
        'mission_cancel',
        'mission_get_run',
        'mission_list',
        'mission_list_runs',
        'mission_promote',
        'mission_start',
        'object_types_list',
        'objects_get',
        'objects_list',
        'propose_action',
        'review_decide_batch',
        'run_code',
        'run_history',
        'run_operation',
        'runtime_approve_draft',
        'runtime_get_run',
        'runtime_list_runs',
        'runtime_reject_draft',
        'runtime_request_changes',
        'runtime_run_skill',
        'runtime_run_workflow',
        'runtime_skill_quality',
        'search_knowledge',
        'search_query',
        'web_search',
        'workspace_diff',
        'workspace_get',
        'workspace_list',
        'workspace_version_history',
      ].sort(),
    );
    const run = tools.find((tool) => tool.name === 'runtime_run_skill');
    expect(run?.inputSchema).toMatchObject({
      type: 'object',
      properties: { slug: { type: 'string' }, input: { type: 'object' }, idempotencyKey: { type: 'string' } },
      required: ['slug'],
      additionalProperties: false,
    });
    expect(run?.annotations?.readOnlyHint).toBe(false);
  });

  it('docs/mcp.md documents every listed tool in a table and calls none of them not implemented', async () => {
    const docs = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
    const names = (await mcp.listTools()).tools.map((tool) => tool.name);
    // The statements that deny a tool exists, and the names (or `prefix_*` patterns) they name.
    const denials = docs.split(/(?<=\.)\s/).filter((sentence) => /not (?:yet )?implemented/i.test(sentence));
    const denied = denials.flatMap((sentence) =>
      [...sentence.matchAll(/`([a-z_]+)\*?`/g)].map((m) => m[1] as string),
    );
    for (const name of names) {
      expect(docs, name).toMatch(new RegExp(`\\| \`${name}\`( ✎)? \\|`));
      expect(
        denied.filter((word) => name === word || (word.endsWith('_') && name.startsWith(word))),
        name,
      ).toEqual([]);
    }
  });

  it('lists every tool to a token that may not use them all (they answer FORBIDDEN)', async () => {
    const reader = await client((await t.token({ org: 'acme', scopes: ['read:skills'] })).token);
    expect((await reader.listTools()).tools).toHaveLength(43);
  });

  it('answers an authoring tool with an error result saying how to enable it', async () => {
    const error = await fails(
      mcp,
      'workspace_write_skill',
      { manifest: { slug: 'x', name: 'X' }, promptMd: 'hi' },
      'FORBIDDEN',
    );
    expect(error.message).toContain('R3_MCP_HTTP_AUTHORING=true');
    expect(error.details).toEqual({
      tool: 'workspace_write_skill',
      setting: 'R3_MCP_HTTP_AUTHORING',
      transport: 'http',
    });
    expect((await t.request('GET', '/api/v1/skills/x', { token: admin.token })).status).toBe(404);
  });

  it('answers unknown and event-only tools NOT_FOUND', async () => {
    for (const name of ['no_such_tool', 'request_human_review', 'recommend_action']) {
      const error = await fails(mcp, name, {}, 'NOT_FOUND');
      expect(error.details).toEqual({ kind: 'tool', id: name });
    }
  });
});

describe('workspace reads', () => {
  it('workspace_list: slug, name and description of every agent, skill, workflow, object type, mission and review policy', async () => {
    const body = await ok(mcp, 'workspace_list');
    expect(body).toEqual({
      agents: [{ slug: 'helper', name: 'Agent helper', description: '' }],
      skills: [
        { slug: 'drafty', name: 'Skill drafty', description: '' },
        { slug: 'gated', name: 'Gated draft', description: '' },
        { slug: 'sum', name: 'Summarize', description: 'Sums up' },
      ],
      workflows: [{ slug: 'flow', name: 'Workflow flow', description: '' }],
      objectTypes: [{ slug: 'note', name: 'Note', description: 'Meeting notes' }],
      missions: [],
      reviewPolicies: [],
    });
  });

  it('workspace_get: each kind in full, as the REST detail', async () => {
    const skill = await ok(mcp, 'workspace_get', { kind: 'skill', slug: 'sum' });
    const rest = await t.request('GET', '/api/v1/skills/sum', { token: admin.token });
    expect(skill).toEqual({ kind: 'skill', ...rest.body });
    expect(skill.promptMd).toBe('Summarize: {{input.text}}');
    const agent = await ok(mcp, 'workspace_get', { kind: 'agent', slug: 'helper' });
    expect(agent).toMatchObject({ kind: 'agent', systemPrompt: 'Be brief.', skills: [{ slug: 'sum' }] });
    const workflow = await ok(mcp, 'workspace_get', { kind: 'workflow', slug: 'flow' });
    expect(workflow).toMatchObject({ kind: 'workflow', steps: [{ name: 'first', skill: 'sum' }] });
    const type = await ok(mcp, 'workspace_get', { kind: 'object_type', slug: 'note' });
    expect(type).toMatchObject({ kind: 'object_type', slug: 'note', sourceRelevance: {} });
  });

  it('workspace_get: NOT_FOUND for an unknown or another org’s slug; VALIDATION_FAILED for a bad kind', async () => {
    expect(await fails(mcp, 'workspace_get', { kind: 'skill', slug: 'nope' }, 'NOT_FOUND')).toMatchObject({
      details: { kind: 'skill', id: 'nope' },
    });
    const other = await client(foreign.token);
    expect((await ok(other, 'workspace_get', { kind: 'skill', slug: 'sum' })).name).toBe('Foreign summarize');
    await fails(other, 'workspace_get', { kind: 'agent', slug: 'helper' }, 'NOT_FOUND');
    const error = await fails(
      mcp,
      'workspace_get',
      { kind: 'source_code', slug: 'sum' },
      'VALIDATION_FAILED',
    );
    expect(error.details.issues).toEqual([expect.objectContaining({ field: 'arguments.kind' })]);
  });

  it('read:skills reads agents and skills but not workflows or object types, as on REST', async () => {
    const skillsOnly = await client((await t.token({ org: 'acme', scopes: ['read:skills'] })).token);
    await ok(skillsOnly, 'workspace_get', { kind: 'skill', slug: 'sum' });
    await ok(skillsOnly, 'workspace_get', { kind: 'agent', slug: 'helper' });
    const error = await fails(skillsOnly, 'workspace_get', { kind: 'workflow', slug: 'flow' }, 'FORBIDDEN');
    expect(error.details).toEqual({ requiredScope: ['read:all'] });
    await fails(skillsOnly, 'workspace_list', {}, 'FORBIDDEN');
  });

  it('workspace_diff and workspace_version_history', async () => {
    expect(await ok(mcp, 'workspace_diff')).toMatchObject({
      created: 0,
      updated: 0,
      deleted: 0,
      unchanged: 6,
    });
    const { versions } = await ok(mcp, 'workspace_version_history', { limit: 2 });
    expect(versions).toHaveLength(2);
    expect(versions[0]).toMatchObject({
      appliedBy: `token:${admin.id}`,
      apiTokenId: admin.id,
      workspaceSha: expect.stringMatching(/^[0-9a-f]{12}$/),
      counts: { created: 1 },
      createdAt: expect.any(String),
    });
    await fails(mcp, 'workspace_version_history', { limit: 0 }, 'VALIDATION_FAILED');
  });
});

describe('runtime tools', () => {
  it('runtime_run_skill waits for the run and answers {runId, status, output, traceId}, attributed token:<id>', async () => {
    const body = await ok(mcp, 'runtime_run_skill', { slug: 'sum', input: { text: 'hello world' } });
    expect(body).toEqual({
      runId: expect.any(Number),
      status: 'completed',
      output: { text: 'Summarize: hello world' },
      error: null,
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      reviewUrl: `${t.app.config.baseUrl}/review/runs/${body.runId}`,
    });
    const run = await t.request('GET', `/api/v1/runs/${body.runId}`, { token: admin.token });
    expect(run.body).toMatchObject({
      status: 'completed',
      createdBy: `token:${admin.id}`,
      traceId: body.traceId,
    });
    const row = await t.app.db.sql.one<{ api_token_id: string }>(
      'select api_token_id from runs where id = $1',
      [body.runId],
    );
    expect(row.api_token_id).toBe(admin.id);
  });

  it('a skill that requires approval answers pending with its draft', async () => {
    const body = await ok(mcp, 'runtime_run_skill', { slug: 'gated', input: { text: 'x' } });
    expect(body).toMatchObject({ status: 'pending', output: { text: expect.any(String) }, error: null });
    const queue = await t.app.db.sql.one<{ n: number }>(
      'select count(*)::int as n from review_items where run_id = $1 and open',
      [body.runId],
    );
    expect(queue.n).toBe(1);
  });

  it('idempotencyKey: the same call answers the same run; another body is CONFLICT', async () => {
    const args = { slug: 'sum', input: { text: 'once' }, idempotencyKey: 'mcp-key-1' };
    const first = await ok(mcp, 'runtime_run_skill', args);
    const again = await ok(mcp, 'runtime_run_skill', args);
    expect(again.runId).toBe(first.runId);
    // The key is the token's, shared with REST for the same request.
    const rest = await t.request('POST', '/api/v1/skills/sum/runs', {
      token: admin.token,
      body: { input: { text: 'once' }, idempotencyKey: 'mcp-key-1' },
    });
    expect(rest.body.runId).toBe(first.runId);
    await fails(mcp, 'runtime_run_skill', { ...args, input: { text: 'twice' } }, 'CONFLICT');
  });

  it('runtime_run_skill errors: NOT_FOUND, VALIDATION_FAILED naming arguments, CONFLICT, FORBIDDEN', async () => {
    await fails(mcp, 'runtime_run_skill', { slug: 'nope', input: {} }, 'NOT_FOUND');
    const input = await fails(
      mcp,
      'runtime_run_skill',
      { slug: 'sum', input: { text: 5 } },
      'VALIDATION_FAILED',
    );
    expect(input.details.issues).toEqual([expect.objectContaining({ field: 'arguments.input.text' })]);
    expect(input.message).toContain('arguments.input');
    const missing = await fails(mcp, 'runtime_run_skill', { input: {} }, 'VALIDATION_FAILED');
    expect(missing.details.issues).toEqual([expect.objectContaining({ field: 'arguments.slug' })]);
    const extra = await fails(
      mcp,
      'runtime_run_skill',
      { slug: 'sum', input: {}, x: 1 },
      'VALIDATION_FAILED',
    );
    expect(extra.details.issues).toEqual([expect.objectContaining({ field: 'arguments', keys: ['x'] })]);
    expect(await fails(mcp, 'runtime_run_skill', { slug: 'drafty', input: {} }, 'CONFLICT')).toMatchObject({
      details: { slug: 'drafty', status: 'draft' },
    });
    const before = await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from runs');
    const reader = await client((await t.token({ org: 'acme', scopes: ['read:all'] })).token);
    const forbidden = await fails(
      reader,
      'runtime_run_skill',
      { slug: 'sum', input: { text: 'a' } },
      'FORBIDDEN',
    );
    expect(forbidden.details).toEqual({ requiredScope: ['run:invoke'] });
    const after = await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from runs');
    expect(after.n).toBe(before.n);
  });

  it('runtime_get_run and runtime_list_runs; another org’s run is NOT_FOUND', async () => {
    const { runId } = await ok(mcp, 'runtime_run_skill', { slug: 'sum', input: { text: 'listed' } });
    const run = await ok(mcp, 'runtime_get_run', { runId });
    const rest = await t.request('GET', `/api/v1/runs/${runId}`, { token: admin.token });
    expect(run).toEqual(rest.body);
    const { runs } = await ok(mcp, 'runtime_list_runs', { skillSlug: 'sum', status: 'completed', limit: 2 });
    expect(runs).toHaveLength(2);
    expect(runs[0].id).toBe(runId);
    expect(
      runs.every((r: { slug: string; status: string }) => r.slug === 'sum' && r.status === 'completed'),
    ).toBe(true);
    const gated = await ok(mcp, 'runtime_list_runs', { status: 'pending' });
    expect(gated.runs.every((r: { slug: string }) => r.slug === 'gated')).toBe(true);

    const other = await client(foreign.token);
    expect(await fails(other, 'runtime_get_run', { runId }, 'NOT_FOUND')).toMatchObject({
      details: { kind: 'run', id: String(runId) },
    });
    expect((await ok(other, 'runtime_list_runs')).runs).toEqual([]);
    await fails(mcp, 'runtime_get_run', { runId: 99_999_999 }, 'NOT_FOUND');
    await fails(mcp, 'runtime_get_run', { runId: 'abc' }, 'VALIDATION_FAILED');
  });

  it('runtime_approve_draft approves a pending draft, attributed token:<id>; again is CONFLICT', async () => {
    const { runId } = await ok(mcp, 'runtime_run_skill', { slug: 'gated', input: {} });
    const approved = await ok(mcp, 'runtime_approve_draft', { runId, note: 'looks right' });
    expect(approved).toMatchObject({
      id: runId,
      status: 'approved',
      reviewState: 'approved',
      review: { decision: 'approved', by: `token:${admin.id}`, note: 'looks right' },
    });
    const again = await fails(mcp, 'runtime_approve_draft', { runId }, 'CONFLICT');
    expect(again.details).toEqual({ runId, status: 'approved', action: 'approve' });
    const done = await ok(mcp, 'runtime_run_skill', { slug: 'sum', input: { text: 'done' } });
    await fails(mcp, 'runtime_approve_draft', { runId: done.runId }, 'CONFLICT');
    await fails(mcp, 'runtime_reject_draft', { runId: done.runId }, 'CONFLICT');
  });

  it('runtime_reject_draft rejects with a reason', async () => {
    const { runId } = await ok(mcp, 'runtime_run_skill', { slug: 'gated', input: {} });
    const rejected = await ok(mcp, 'runtime_reject_draft', { runId, reason: 'off topic' });
    expect(rejected).toMatchObject({
      status: 'rejected',
      review: { decision: 'rejected', by: `token:${admin.id}`, reason: 'off topic' },
    });
  });

  it('approve and reject need the approve capability: FORBIDDEN, and the run stays pending', async () => {
    const { runId } = await ok(mcp, 'runtime_run_skill', { slug: 'gated', input: {} });
    const noScope = await client((await t.token({ org: 'acme', scopes: ['read:all', 'run:invoke'] })).token);
    const specialist = await client(
      (await t.token({ org: 'acme', role: 'specialist', scopes: ALL_SCOPES })).token,
    );
    for (const c of [noScope, specialist]) {
      const error = await fails(c, 'runtime_approve_draft', { runId }, 'FORBIDDEN');
      expect(error.details.requiredScope).toEqual(['run:approve']);
      await fails(c, 'runtime_reject_draft', { runId, reason: 'no' }, 'FORBIDDEN');
    }
    const run = await ok(mcp, 'runtime_get_run', { runId });
    expect(run).toMatchObject({ status: 'pending', review: null });
    // Another org's approver cannot see it either.
    await fails(await client(foreign.token), 'runtime_approve_draft', { runId }, 'NOT_FOUND');
    expect((await ok(mcp, 'runtime_get_run', { runId })).status).toBe('pending');
  });
});

describe('data tools', () => {
  it('objects_list, objects_get, object_types_list', async () => {
    const { objects } = await ok(mcp, 'objects_list', { type: 'note', limit: 10 });
    expect(objects.map((o: { title: string }) => o.title)).toEqual([
      'Onboarding checklist',
      'Quarterly pricing review',
    ]);
    expect((await ok(mcp, 'objects_list', { type: 'nothing' })).objects).toEqual([]);
    const id = objects[0].id as number;
    const detail = await ok(mcp, 'objects_get', { id });
    const rest = await t.request('GET', `/api/v1/objects/${id}`, { token: admin.token });
    expect(detail).toEqual(rest.body);
    expect(detail.content).toBe('Onboarding checklist: details follow.');
    await fails(await client(foreign.token), 'objects_get', { id }, 'NOT_FOUND');
    const { objectTypes } = await ok(mcp, 'object_types_list');
    expect(objectTypes).toEqual([
      expect.objectContaining({ slug: 'note', name: 'Note', schema: { type: 'object' } }),
    ]);
  });

  it('search_query ranks documents with snippets and links', async () => {
    const { results } = await ok(mcp, 'search_query', { query: 'pricing', types: ['note'], limit: 5 });
    expect(results[0]).toEqual({
      id: expect.any(Number),
      type: 'note',
      title: 'Quarterly pricing review',
      snippet: expect.stringContaining('**'),
      score: expect.any(Number),
      url: expect.stringContaining(`/api/v1/objects/`),
    });
    const blank = await fails(mcp, 'search_query', { query: '   ' }, 'VALIDATION_FAILED');
    expect(blank.details.issues[0].field).toBe('arguments.query');
    expect((await ok(await client(foreign.token), 'search_query', { query: 'pricing' })).results).toEqual([]);
  });

  it('reads need read:all', async () => {
    const invoker = await client((await t.token({ org: 'acme', scopes: ['run:invoke'] })).token);
    for (const [name, args] of [
      ['objects_list', {}],
      ['objects_get', { id: 1 }],
      ['object_types_list', {}],
      ['search_query', { query: 'pricing' }],
      ['runtime_get_run', { runId: 1 }],
      ['runtime_list_runs', {}],
      ['workspace_diff', {}],
    ] as const) {
      await fails(invoker, name, args, 'FORBIDDEN');
    }
  });
});
