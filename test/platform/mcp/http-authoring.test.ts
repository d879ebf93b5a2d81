/**
 * MCP over streamable HTTP with authoring on (R3_MCP_HTTP_AUTHORING=true): the authoring tools through
 * the workspace's one write path (result, structured validation errors, version rows attributed
 * `token:<id>`, autoCommit/autoApply), and the transport itself: 401 without a token, 405 on GET and
 * DELETE, Origin refusal, JSON-RPC answers to malformed requests.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';

let t: TestApp;
let admin: CreatedToken;
let mcp: Client;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestApp({
    R3_MCP_HTTP_AUTHORING: 'true',
    R3_MCP_ALLOWED_ORIGINS: 'https://console.example.com, http://localhost:6274',
  });
  admin = await t.token({ org: 'acme', scopes: ALL_SCOPES });
  mcp = await connectHttp(t.url, admin.token);
  clients.push(mcp);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

interface VersionRow {
  applied_by: string;
  api_token_id: string | null;
  message: string;
}

const versions = () =>
  t.app.db.sql.query<VersionRow>(
    'select applied_by, api_token_id, message from workspace_versions order by seq desc',
  );

const SKILL = { slug: 'triage', name: 'Triage', description: 'Sorts the inbox' };

describe('authoring tools', () => {
  it('are listed when R3_MCP_HTTP_AUTHORING=true', async () => {
    const names = (await mcp.listTools()).tools.map((tool) => tool.name);
    expect(names).toHaveLength(51);
    expect(names).toEqual(
      expect.arrayContaining([
        'workspace_write_skill',
        'workspace_write_agent',
        'workspace_write_workflow',
        'workspace_write_object_type',
        'workspace_write_mission',
        'workspace_write_review_policy',
        'workspace_delete',
        'workspace_apply',
      ]),
    );
    expect(names).not.toContain('request_human_review');
    expect(names).not.toContain('recommend_action');
  });

  it('workspace_write_skill creates a skill: {written, commit, apply}, a version row by token:<id>', async () => {
    const body = await ok(mcp, 'workspace_write_skill', {
      manifest: SKILL,
      promptMd: 'Triage: {{input.text}}',
    });
    expect(body).toEqual({
      written: ['skills/triage/manifest.yaml', 'skills/triage/prompt.md'],
      commit: {
        sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        workspaceSha: expect.stringMatching(/^[0-9a-f]{12}$/),
        parentSha: null,
        counts: { created: 1, updated: 0, unchanged: 0, deleted: 0 },
      },
      apply: { created: 1, updated: 0, unchanged: 0, deleted: 0 },
    });
    const rest = await t.request('GET', '/api/v1/skills/triage', { token: admin.token });
    expect(rest.body).toMatchObject({ ...SKILL, promptMd: 'Triage: {{input.text}}', status: 'active' });
    const [latest] = await versions();
    expect(latest).toEqual({
      applied_by: `token:${admin.id}`,
      api_token_id: admin.id,
      message: 'Create skill triage',
    });
    const audit = await t.app.db.sql.one<{ actor: string; api_token_id: string; action: string }>(
      `select actor, api_token_id, action from audit_log where action = 'skill.write' order by id desc limit 1`,
    );
    expect(audit).toEqual({ actor: `token:${admin.id}`, api_token_id: admin.id, action: 'skill.write' });
  });

  it('workspace_write_skill updates: the manifest whole, the prompt kept when omitted', async () => {
    const body = await ok(mcp, 'workspace_write_skill', {
      manifest: { ...SKILL, requiresApproval: true },
      message: 'Gate triage',
    });
    expect(body).toMatchObject({
      written: ['skills/triage/manifest.yaml'],
      commit: { counts: { updated: 1 } },
      apply: { updated: 1 },
    });
    const skill = await ok(mcp, 'workspace_get', { kind: 'skill', slug: 'triage' });
    expect(skill).toMatchObject({ requiresApproval: true, promptMd: 'Triage: {{input.text}}' });
    expect((await versions())[0]?.message).toBe('Gate triage');
    // The same content again writes nothing and makes no version.
    const count = (await versions()).length;
    expect(
      await ok(mcp, 'workspace_write_skill', { manifest: { ...SKILL, requiresApproval: true } }),
    ).toEqual({
      written: [],
      commit: null,
      apply: { created: 0, updated: 0, unchanged: 1, deleted: 0 },
    });
    expect(await versions()).toHaveLength(count);
  });

  it('refuses invalid writes with structured VALIDATION_FAILED, writing nothing', async () => {
    const count = (await versions()).length;
    const noPrompt = await fails(
      mcp,
      'workspace_write_skill',
      { manifest: { slug: 'fresh', name: 'Fresh' } },
      'VALIDATION_FAILED',
    );
    expect(noPrompt.details.issues).toEqual([expect.objectContaining({ field: 'arguments.promptMd' })]);
    const badSlug = await fails(
      mcp,
      'workspace_write_skill',
      { manifest: { slug: 'Bad Slug', name: 'x' }, promptMd: '' },
      'VALIDATION_FAILED',
    );
    expect(badSlug.details.issues).toEqual([expect.objectContaining({ field: 'arguments.manifest.slug' })]);
    const badSchema = await fails(
      mcp,
      'workspace_write_skill',
      { manifest: { slug: 'fresh', name: 'Fresh', inputSchema: { type: 'nope' } }, promptMd: 'x' },
      'VALIDATION_FAILED',
    );
    expect(badSchema.details.issues[0]).toMatchObject({
      field: expect.stringMatching(/^arguments\.manifest\.inputSchema/),
      file: 'skills/fresh/manifest.yaml',
      path: expect.arrayContaining(['inputSchema']),
      message: expect.any(String),
    });
    const badRef = await fails(
      mcp,
      'workspace_write_agent',
      { manifest: { slug: 'bot', name: 'Bot', skillSlugs: ['triage', 'ghost'] } },
      'VALIDATION_FAILED',
    );
    expect(badRef.details.issues).toEqual([
      expect.objectContaining({ field: 'arguments.manifest.skillSlugs.1', file: 'agents/bot.yaml' }),
    ]);
    expect(await versions()).toHaveLength(count);
    expect((await t.request('GET', '/api/v1/skills/fresh', { token: admin.token })).status).toBe(404);
  });

  it('workspace_write_agent and workspace_write_object_type create and update', async () => {
    const agent = await ok(mcp, 'workspace_write_agent', {
      manifest: { slug: 'bot', name: 'Bot', skillSlugs: ['triage'], systemPrompt: 'Be kind.' },
    });
    expect(agent).toMatchObject({ written: ['agents/bot.yaml'], apply: { created: 1 } });
    const updated = await ok(mcp, 'workspace_write_agent', { manifest: { slug: 'bot', name: 'Bot 2' } });
    expect(updated).toMatchObject({ apply: { updated: 1 } });
    expect(await ok(mcp, 'workspace_get', { kind: 'agent', slug: 'bot' })).toMatchObject({
      name: 'Bot 2',
      skillSlugs: [],
      systemPrompt: '',
    });
    const type = await ok(mcp, 'workspace_write_object_type', {
      manifest: {
        slug: 'ticket',
        name: 'Ticket',
        schema: { type: 'object', properties: { p: { type: 'integer' } } },
      },
    });
    expect(type).toMatchObject({ written: ['object-types/ticket.yaml'], apply: { created: 1 } });
    expect((await ok(mcp, 'object_types_list')).objectTypes.map((o: { slug: string }) => o.slug)).toEqual([
      'ticket',
    ]);
  });

  it('workspace_write_workflow creates and replaces a workflow; a step naming no skill names the argument', async () => {
    const manifest = {
      slug: 'intake',
      name: 'Intake',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      steps: [
        { name: 'sort', type: 'skill', skill: 'triage', input: { text: '{{input.text}}' } },
        { name: 'check', type: 'approve', title: 'Check the sorting' },
      ],
    };
    const created = await ok(mcp, 'workspace_write_workflow', { manifest });
    expect(created).toMatchObject({ written: ['workflows/intake.yaml'], apply: { created: 1 } });
    const rest = await t.request('GET', '/api/v1/workflows/intake', { token: admin.token });
    expect(rest.body).toMatchObject({ slug: 'intake', trigger: { type: 'manual' }, steps: manifest.steps });
    const replaced = await ok(mcp, 'workspace_write_workflow', {
      manifest: { ...manifest, name: 'Intake 2', steps: manifest.steps.slice(0, 1) },
    });
    expect(replaced).toMatchObject({ apply: { updated: 1 } });
    expect(await ok(mcp, 'workspace_get', { kind: 'workflow', slug: 'intake' })).toMatchObject({
      kind: 'workflow',
      name: 'Intake 2',
      steps: [{ name: 'sort' }],
    });
    const missing = await fails(
      mcp,
      'workspace_write_workflow',
      { manifest: { ...manifest, slug: 'broken', steps: [{ ...manifest.steps[0], skill: 'nope' }] } },
      'VALIDATION_FAILED',
    );
    expect(missing.details.issues.map((i: { field: string }) => i.field)).toEqual([
      'arguments.manifest.steps.0.skill',
    ]);
    expect((await t.request('GET', '/api/v1/workflows/broken', { token: admin.token })).status).toBe(404);
    await ok(mcp, 'workspace_delete', { kind: 'workflow', slug: 'intake' });
  });

  it('autoApply false commits without applying; autoCommit false writes files only; workspace_apply catches up', async () => {
    const noApply = await ok(mcp, 'workspace_write_agent', {
      manifest: { slug: 'later', name: 'Later' },
      autoApply: false,
    });
    expect(noApply).toMatchObject({
      written: ['agents/later.yaml'],
      commit: { counts: { created: 1 } },
      apply: null,
    });
    await fails(mcp, 'workspace_get', { kind: 'agent', slug: 'later' }, 'NOT_FOUND');
    expect(await ok(mcp, 'workspace_diff')).toMatchObject({ created: 1 });

    const noCommit = await ok(mcp, 'workspace_write_agent', {
      manifest: { slug: 'draft-agent', name: 'Draft agent' },
      autoCommit: false,
    });
    expect(noCommit).toEqual({ written: ['agents/draft-agent.yaml'], commit: null, apply: null });
    expect(await ok(mcp, 'workspace_diff')).toMatchObject({ created: 2 });

    const applied = await ok(mcp, 'workspace_apply', { message: 'Catch up' });
    expect(applied).toMatchObject({
      commit: { counts: { created: 1 } },
      apply: { created: 2 },
    });
    expect(await ok(mcp, 'workspace_diff')).toMatchObject({ created: 0, updated: 0, deleted: 0 });
    await ok(mcp, 'workspace_get', { kind: 'agent', slug: 'later' });
    await ok(mcp, 'workspace_get', { kind: 'agent', slug: 'draft-agent' });
    expect((await versions())[0]).toMatchObject({ message: 'Catch up', applied_by: `token:${admin.id}` });
  });

  it('workspace_delete removes a resource; NOT_FOUND for a missing one; refused while referenced', async () => {
    await ok(mcp, 'workspace_write_agent', {
      manifest: { slug: 'bot', name: 'Bot', skillSlugs: ['triage'] },
    });
    const referenced = await fails(mcp, 'workspace_delete', { kind: 'skill', slug: 'triage' }, 'CONFLICT');
    expect(referenced.details).toEqual({
      kind: 'skill',
      slug: 'triage',
      referencedBy: [{ kind: 'agent', slug: 'bot', field: 'skillSlugs.0' }],
    });
    const deleted = await ok(mcp, 'workspace_delete', { kind: 'agent', slug: 'bot' });
    expect(deleted).toMatchObject({ written: ['agents/bot.yaml'], apply: { deleted: 1 } });
    await fails(mcp, 'workspace_get', { kind: 'agent', slug: 'bot' }, 'NOT_FOUND');
    await fails(mcp, 'workspace_delete', { kind: 'agent', slug: 'bot' }, 'NOT_FOUND');
  });

  it('need write:resources, as REST does', async () => {
    const invoker = await connectHttp(
      t.url,
      (await t.token({ org: 'acme', scopes: ['read:all', 'run:invoke'] })).token,
    );
    clients.push(invoker);
    const error = await fails(
      invoker,
      'workspace_write_skill',
      { manifest: { slug: 'nope', name: 'Nope' }, promptMd: 'x' },
      'FORBIDDEN',
    );
    expect(error.details).toEqual({ requiredScope: ['write:resources'] });
    await fails(invoker, 'workspace_delete', { kind: 'skill', slug: 'triage' }, 'FORBIDDEN');
    await fails(invoker, 'workspace_apply', {}, 'FORBIDDEN');
    await ok(mcp, 'workspace_get', { kind: 'skill', slug: 'triage' });
  });
});

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

function post(headers: Record<string, string>, body = LIST) {
  return t.request('POST', '/api/mcp', { rawBody: body, headers: { ...MCP_HEADERS, ...headers } });
}

describe('the HTTP transport', () => {
  it('answers a stateless JSON request without a session', async () => {
    const res = await post({ authorization: `Bearer ${admin.token}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('x-ratelimit-remaining')).toBeTruthy();
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { tools: expect.any(Array) } });
  });

  it('is 401 without a (valid) token', async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'missing' } });
    const bad = await post({ authorization: 'Bearer svc_test_nope' });
    expect(bad.status).toBe(401);
  });

  it('is 405 with Allow: POST on GET and DELETE', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await t.request(method, '/api/mcp', {
        token: admin.token,
        headers: { accept: 'text/event-stream' },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.body.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', details: { allow: ['POST'] } });
    }
  });

  it('refuses a foreign Origin with 403 before the transport runs; allowed origins and none pass', async () => {
    const evil = await post({ authorization: `Bearer ${admin.token}`, origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.body.error).toMatchObject({
      code: 'FORBIDDEN',
      details: { origin: 'https://evil.example', setting: 'R3_MCP_ALLOWED_ORIGINS' },
    });
    expect((await post({ authorization: `Bearer ${admin.token}`, origin: 'null' })).status).toBe(403);
    for (const origin of ['https://console.example.com', 'http://localhost:6274', t.app.config.baseUrl]) {
      const res = await post({ authorization: `Bearer ${admin.token}`, origin });
      expect(res.status, origin).toBe(200);
    }
  });

  it('answers malformed JSON-RPC as the MCP transport does', async () => {
    const auth = { authorization: `Bearer ${admin.token}` };
    const parse = await post(auth, '{nope');
    expect(parse.status).toBe(400);
    expect(parse.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    const accept = await post({ ...auth, accept: 'application/json' });
    expect(accept.status).toBe(406);
    const call = await post(
      auth,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'workspace_list' } }),
    );
    expect(call.status).toBe(200);
    const unknown = await post(
      auth,
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'completion/complete', params: {} }),
    );
    expect(unknown.body).toMatchObject({ id: 8, error: { code: -32601 } });
    const ping = await post(auth, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }));
    expect(ping.body).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
    expect(call.body.result).toMatchObject({
      structuredContent: { agents: expect.any(Array), skills: [{ slug: 'triage' }] },
    });
  });

  it('answers a JSON-RPC batch with every response, in request order', async () => {
    const batch = await post(
      { authorization: `Bearer ${admin.token}` },
      JSON.stringify([
        { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'workspace_list' } },
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
      ]),
    );
    expect(batch.status).toBe(200);
    expect(batch.body.map((m: { id: string }) => m.id)).toEqual(['b', 'a']);
    expect(batch.body[0].result.structuredContent.skills).toEqual([
      expect.objectContaining({ slug: 'triage' }),
    ]);
    expect(batch.body[1]).toEqual({ jsonrpc: '2.0', id: 'a', result: {} });
  });
});
