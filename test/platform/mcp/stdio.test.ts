/**
 * `r3 mcp --org <slug>` as a child process, driven by the official SDK client over stdio against this
 * file's database: every tool listed (authoring included), writes and runs attributed `mcp` (no token),
 * tenant isolation, and the refusal of an unknown org.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { call, connectStdio, fails, ok } from '../../helpers/mcp.js';
import { runCli } from '../../helpers/process.js';
import { createSkill } from '../../helpers/resources.js';

let t: TestApp;
let admin: CreatedToken;
let foreign: CreatedToken;
let mcp: Client;
let stderr: () => string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token({ org: 'acme', scopes: ALL_SCOPES });
  foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  await createSkill(t, foreign.token, { slug: 'secret' });
  ({ client: mcp, stderr } = await connectStdio('acme', { DATABASE_URL: t.database.url }));
});
afterAll(async () => {
  await mcp?.close();
  await t.close();
});

describe('r3 mcp over stdio', () => {
  it('lists every tool, authoring included', async () => {
    const { tools } = await mcp.listTools();
    expect(tools).toHaveLength(51);
    expect(tools.map((tool) => tool.name)).toContain('workspace_write_skill');
    expect(mcp.getServerVersion()).toMatchObject({ name: 'r3' });
  });

  it('writes through the workspace path as `mcp`: version rows and audit rows without a token', async () => {
    const body = await ok(mcp, 'workspace_write_skill', {
      manifest: { slug: 'sum', name: 'Summarize', inputSchema: { type: 'object', required: ['text'] } },
      promptMd: 'Summarize: {{input.text}}',
    });
    expect(body).toMatchObject({ commit: { counts: { created: 1 } }, apply: { created: 1 } });
    await ok(mcp, 'workspace_write_skill', {
      manifest: { slug: 'gated', name: 'Gated', requiresApproval: true },
      promptMd: 'Draft: {{input.text}}',
    });
    const rows = await t.app.db.sql.query<{ applied_by: string; api_token_id: string | null }>(
      'select applied_by, api_token_id from workspace_versions where org_id = (select id from orgs where slug = $1)',
      ['acme'],
    );
    expect(rows).toEqual([
      { applied_by: 'mcp', api_token_id: null },
      { applied_by: 'mcp', api_token_id: null },
    ]);
    const { versions } = await ok(mcp, 'workspace_version_history');
    expect(versions[0]).toMatchObject({ appliedBy: 'mcp', apiTokenId: null });
    // What stdio wrote is what REST serves.
    const rest = await t.request('GET', '/api/v1/skills/sum', { token: admin.token });
    expect(rest.body).toMatchObject({ slug: 'sum', promptMd: 'Summarize: {{input.text}}' });
    const error = await fails(
      mcp,
      'workspace_write_agent',
      { manifest: { slug: 'bot', name: 'Bot', skillSlugs: ['ghost'] } },
      'VALIDATION_FAILED',
    );
    expect(error.details.issues).toEqual([
      expect.objectContaining({ field: 'arguments.manifest.skillSlugs.0' }),
    ]);
  });

  it('runs a skill and waits for it; the run is created by `mcp` with no token', async () => {
    const body = await ok(mcp, 'runtime_run_skill', { slug: 'sum', input: { text: 'from stdio' } });
    expect(body).toMatchObject({
      status: 'completed',
      output: { text: 'Summarize: from stdio' },
      error: null,
    });
    const run = await t.request('GET', `/api/v1/runs/${body.runId}`, { token: admin.token });
    expect(run.body).toMatchObject({ createdBy: 'mcp', status: 'completed' });
    const row = await t.app.db.sql.one<{ api_token_id: string | null; created_by: string }>(
      'select api_token_id, created_by from runs where id = $1',
      [body.runId],
    );
    expect(row).toEqual({ api_token_id: null, created_by: 'mcp' });
    const missing = await fails(mcp, 'runtime_run_skill', { slug: 'sum', input: {} }, 'VALIDATION_FAILED');
    expect(missing.details.issues[0].field).toMatch(/^arguments\.input/);
  });

  it('approves a draft as `mcp` (the stdio principal has the approve capability)', async () => {
    const pending = await ok(mcp, 'runtime_run_skill', { slug: 'gated', input: { text: 'please' } });
    expect(pending).toMatchObject({ status: 'pending', output: { text: 'Draft: please' } });
    const approved = await ok(mcp, 'runtime_approve_draft', { runId: pending.runId, note: 'ok' });
    expect(approved.review).toMatchObject({ decision: 'approved', by: 'mcp', note: 'ok' });
    await fails(mcp, 'runtime_approve_draft', { runId: pending.runId }, 'CONFLICT');
    const audit = await t.app.db.sql.one<{ actor: string; api_token_id: string | null }>(
      `select actor, api_token_id from audit_log where action = 'run.approve' and target_id = $1`,
      [String(pending.runId)],
    );
    expect(audit).toEqual({ actor: 'mcp', api_token_id: null });
    // The run as PostgreSQL renders it: over stdio its structured copy is serialized from that text.
    const run = await ok(mcp, 'runtime_get_run', { runId: pending.runId });
    expect(run).toMatchObject({ id: pending.runId, status: 'approved', output: { text: 'Draft: please' } });
  });

  it('sees only its org: another org’s run and skill are NOT_FOUND', async () => {
    const res = await t.request('POST', '/api/v1/skills/secret/runs', {
      token: foreign.token,
      body: { input: {} },
    });
    expect(res.status).toBe(202);
    await fails(mcp, 'runtime_get_run', { runId: res.body.runId }, 'NOT_FOUND');
    await fails(mcp, 'runtime_approve_draft', { runId: res.body.runId }, 'NOT_FOUND');
    await fails(mcp, 'workspace_get', { kind: 'skill', slug: 'secret' }, 'NOT_FOUND');
    await fails(mcp, 'runtime_run_skill', { slug: 'secret', input: {} }, 'NOT_FOUND');
    const listed = await ok(mcp, 'runtime_list_runs');
    expect(listed.runs.some((r: { id: number }) => r.id === res.body.runId)).toBe(false);
  });

  it('keeps stdout for the protocol: nothing but JSON-RPC reached the client', async () => {
    // A stray line on stdout would have failed the client's parsing of a message above.
    const answer = await call(mcp, 'workspace_diff');
    expect(answer.isError).toBe(false);
    expect(stderr()).not.toContain('"level":50');
  });
});

describe('r3 mcp lifecycle', () => {
  it('exits by itself when the client closes stdin', async () => {
    const session = await connectStdio('acme', { DATABASE_URL: t.database.url });
    await ok(session.client, 'workspace_list');
    const pid = session.transport.pid as number;
    const started = performance.now();
    await session.client.close();
    // The SDK client waits 2 s for the exit before it sends SIGTERM: a clean exit comes well before.
    expect(performance.now() - started).toBeLessThan(1_900);
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('exits 1 naming an org that does not exist', async () => {
    const result = await runCli(['mcp', '--org', 'nowhere'], {
      DATABASE_URL: t.database.url,
      R3_LOG_LEVEL: 'warn',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no org "nowhere"');
    expect(result.stdout).toBe('');
  });

  it('exits 2 without --org', async () => {
    const result = await runCli(['mcp'], { DATABASE_URL: t.database.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--org is required');
  });
});
