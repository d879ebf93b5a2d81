/**
 * `POST /runs/:id/replay` through the socket against the fake OpenAI server (docs/api.md "Replay a
 * skill run"): a skill run re-executed on another workspace version, its tool calls equal to the
 * original's answered from the record (`replayed: true`, the tool not executed), other calls of a
 * reading tool executed, of a writing tool refused (TOOL_UNAVAILABLE, nothing written); every refusal.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AssistantTurn,
  type ChatBody,
  type FakeOpenAI,
  openaiEnv,
  startFakeOpenAI,
} from '../../../fakes/openai-server.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { access } from '../../../src/platform/auth/guard.js';
import { READ_ONLY } from '../../../src/platform/mcp/tool.js';
import { defineAgentTool } from '../../../src/platform/tools/registry.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import {
  createAgent,
  createSkill,
  createUnreachableCrm,
  createWorkflow,
  patchSkill,
} from '../../helpers/resources.js';

let t: TestApp;
let fake: FakeOpenAI;
let admin: CreatedToken;
let foreign: CreatedToken;
let readOnly: CreatedToken;
/** The scripted model: the assistant's answer to each chat request. */
let script: (body: ChatBody) => AssistantTurn | undefined = () => undefined;
/** Keys the `probe` test tool executed with. */
let executed: string[] = [];

const probe = defineAgentTool({
  name: 'probe',
  title: 'Probe',
  group: 'test',
  description: 'A test tool: answers its key and how many calls it has answered.',
  args: z.strictObject({ key: z.string().min(1), n: z.number().int().optional() }),
  result: z.object({ key: z.string(), n: z.number().int() }),
  idempotency: 'safe',
  uses: ['run'],
  access: access.invoke,
  hints: READ_ONLY,
  async execute(args) {
    executed.push(args.key);
    return { key: args.key, n: executed.length };
  },
});

/** A model that calls `calls` in one turn, then answers the tool messages it got as its output. */
function scripted(calls: Array<{ name: string; args: unknown }>) {
  return (body: ChatBody): AssistantTurn => {
    const answers = body.messages
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(m.content as string));
    if (answers.length === 0) {
      return {
        content: null,
        toolCalls: calls.map((c, i) => ({ id: `c${i}`, name: c.name, arguments: JSON.stringify(c.args) })),
      };
    }
    return { content: JSON.stringify({ answers }) };
  };
}

const artifact = (text: string) => ({ name: 'note.txt', mediaType: 'text/plain', text });
const artifactCount = async () =>
  Number((await t.app.db.sql.query<{ n: string }>('select count(*) as n from artifacts'))[0]?.n);
const runCount = async () =>
  Number((await t.app.db.sql.query<{ n: string }>('select count(*) as n from runs'))[0]?.n);

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-test', assistant: (body) => script(body) });
  t = await startTestApp(
    openaiEnv(fake, { R3_WORKER_CONCURRENCY: '0', R3_CONNECTORS_ALLOW_PRIVATE: 'true' }),
  );
  t.app.agentTools.add(probe);
  admin = await t.token({ scopes: ALL_SCOPES });
  foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  readOnly = await t.token({ scopes: ['read:all'] });
  await createSkill(
    t,
    admin.token,
    { slug: 'probing', tools: ['probe', 'create_artifact'] },
    'v1 {{input.x}}',
  );
  await createWorkflow(t, admin.token, {
    slug: 'flow',
    steps: [{ name: 'only', type: 'skill', skill: 'probing', input: { x: 'w' } }],
  });
});

afterAll(async () => {
  await t.close();
  await fake.close();
});

beforeEach(() => {
  executed = [];
  script = () => undefined;
});

const post = (path: string, body: unknown = {}, token = admin.token) =>
  t.request('POST', `/api/v1${path}`, { token, body });
const run = async (id: number) => (await t.request('GET', `/api/v1/runs/${id}`, { token: admin.token })).body;

/** An original run of `probing` that called probe {key: a} and created an artifact. */
async function originalRun(): Promise<{ id: number; sha: string }> {
  executed = [];
  script = scripted([
    { name: 'probe', args: { key: 'a', n: 1 } },
    { name: 'create_artifact', args: artifact('first') },
  ]);
  const res = await post('/skills/probing/runs', { input: { x: '1' } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await t.app.jobs.drain();
  const done = await run(res.body.runId);
  expect(done.status, JSON.stringify(done.error)).toBe('completed');
  expect(executed).toEqual(['a']);
  executed = [];
  return { id: res.body.runId, sha: done.workspaceSha };
}

describe('replaying a skill run', () => {
  it('answers equal calls from the record, executes new reads, refuses new writes', async () => {
    const original = await originalRun();
    await patchSkill(t, admin.token, 'probing', { promptMd: 'v2 {{input.x}}' });
    const newSha = (
      await t.app.db.sql.query<{ sha: string }>(
        `select h.applied_sha as sha from workspace_heads h join orgs o on o.id = h.org_id where o.slug = 'acme'`,
      )
    )[0]?.sha as string;
    expect(newSha.startsWith(original.sha)).toBe(false);
    const artifacts = await artifactCount();

    // The replay's model asks with the arguments in another key order (canonically equal), a new
    // probe, the same artifact, and a different one.
    script = scripted([
      { name: 'probe', args: { n: 1, key: 'a' } },
      { name: 'probe', args: { key: 'b' } },
      { name: 'create_artifact', args: artifact('first') },
      { name: 'create_artifact', args: artifact('second') },
    ]);
    const from = fake.requests.length;
    const res = await post(`/runs/${original.id}/replay`, { workspace: newSha });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({
      runId: expect.any(Number),
      status: 'running',
      pollUrl: `/api/v1/runs/${res.body.runId}`,
      replayOf: original.id,
    });
    await t.app.jobs.drain();
    const replay = await run(res.body.runId);
    expect(replay).toMatchObject({
      kind: 'skill',
      slug: 'probing',
      status: 'completed',
      input: { x: '1' },
      replayOf: original.id,
      workspaceSha: newSha.slice(0, 12),
      forkOf: null,
    });
    // The new version's prompt was sent.
    const first = fake.requests.slice(from).find((r) => r.path === '/v1/chat/completions')?.body as ChatBody;
    expect(JSON.stringify(first.messages)).toContain('v2 1');

    const originalCalls = (await run(original.id)).toolCalls;
    const [sameProbe, newProbe, sameArtifact, newArtifact] = replay.toolCalls;
    expect(sameProbe).toMatchObject({
      tool: 'probe',
      status: 'ok',
      result: originalCalls[0].result,
      replayed: true,
    });
    expect(newProbe).toMatchObject({ tool: 'probe', status: 'ok', result: { key: 'b', n: 1 } });
    expect(newProbe.replayed).toBeUndefined();
    expect(sameArtifact).toMatchObject({ status: 'ok', result: originalCalls[1].result, replayed: true });
    expect(newArtifact).toMatchObject({
      tool: 'create_artifact',
      status: 'error',
      error: { code: 'TOOL_UNAVAILABLE', details: { tool: 'create_artifact', replay: true } },
    });
    expect(newArtifact.replayed).toBeUndefined();
    // Only the new probe executed; no artifact was written.
    expect(executed).toEqual(['b']);
    expect(await artifactCount()).toBe(artifacts);
    expect(originalCalls.every((c: { replayed?: boolean }) => c.replayed === undefined)).toBe(true);
    await patchSkill(t, admin.token, 'probing', { promptMd: 'v1 {{input.x}}' });
  });
});

describe('replaying a run that proposed an action', () => {
  it('answers the same propose_action from the record and refuses another: no proposal written', async () => {
    await createUnreachableCrm(t, admin.token);
    await createSkill(t, admin.token, { slug: 'closing', tools: ['propose_action'] }, 'close v1 {{input.x}}');
    await createAgent(t, admin.token, { slug: 'closer', skillSlugs: ['closing'], sourceSlugs: ['hubspot'] });
    const proposal = (dealstage: string) => ({
      name: 'propose_action',
      args: {
        action: 'crm.update_deal',
        params: { dealId: '42', properties: { dealstage } },
        rationale: 'The customer signed.',
      },
    });
    const proposals = async () =>
      Number((await t.app.db.sql.one<{ n: string }>('select count(*) as n from proposals')).n);

    script = scripted([proposal('closedwon')]);
    const started = await post('/skills/closing/runs', { input: { x: '1' }, agentSlug: 'closer' });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await t.app.jobs.drain();
    const original = await run(started.body.runId);
    expect(original.status, JSON.stringify(original.error)).toBe('completed');
    expect(original.toolCalls).toEqual([
      expect.objectContaining({
        tool: 'propose_action',
        status: 'ok',
        result: expect.objectContaining({ proposalId: expect.any(Number) }),
      }),
    ]);
    expect(await proposals()).toBe(1);

    // On a new version the model proposes the same (answered from the record) and something else.
    await patchSkill(t, admin.token, 'closing', { promptMd: 'close v2 {{input.x}}' });
    const { sha } = await t.app.db.sql.one<{ sha: string }>(
      `select h.applied_sha as sha from workspace_heads h join orgs o on o.id = h.org_id where o.slug = 'acme'`,
    );
    script = scripted([proposal('closedwon'), proposal('closedlost')]);
    const res = await post(`/runs/${original.id}/replay`, { workspace: sha });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await t.app.jobs.drain();
    const replay = await run(res.body.runId);
    expect(replay).toMatchObject({ status: 'completed', replayOf: original.id, agentSlug: 'closer' });
    const [same, other] = replay.toolCalls;
    expect(same).toMatchObject({
      tool: 'propose_action',
      status: 'ok',
      result: original.toolCalls[0].result,
      replayed: true,
    });
    expect(other).toMatchObject({
      tool: 'propose_action',
      status: 'error',
      error: { code: 'TOOL_UNAVAILABLE', details: { tool: 'propose_action', replay: true } },
    });
    // Nothing proposed: the original's one proposal, none of the replay's.
    expect(await proposals()).toBe(1);
    const ofReplay = await t.app.db.sql.query('select id from proposals where run_id = $1', [replay.id]);
    expect(ofReplay).toEqual([]);
  });
});

describe('refusals', () => {
  let original: { id: number; sha: string };
  beforeAll(async () => {
    original = await originalRun();
  });

  async function refused(id: number, body: unknown, status: number, token = admin.token) {
    const before = await runCount();
    const res = await post(`/runs/${id}/replay`, body, token);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(await runCount()).toBe(before);
    return res.body.error;
  }

  it('404 for an unknown run, another org’s run, and a version the org does not have', async () => {
    expect((await refused(999_999, { workspace: original.sha }, 404)).details).toEqual({
      kind: 'run',
      id: '999999',
    });
    expect((await refused(original.id, { workspace: original.sha }, 404, foreign.token)).code).toBe(
      'NOT_FOUND',
    );
    expect((await refused(original.id, { workspace: 'abcdef0' }, 404)).details).toEqual({
      kind: 'workspace version',
      id: 'abcdef0',
    });
  });

  it('403 without run:invoke', async () => {
    expect((await refused(original.id, { workspace: original.sha }, 403, readOnly.token)).code).toBe(
      'FORBIDDEN',
    );
  });

  it('400 for a workflow run, a missing or malformed workspace, unknown fields', async () => {
    script = () => ({ content: '{"done":true}' });
    const flow = await post('/workflows/flow/runs', { input: {} });
    await t.app.jobs.drain();
    const error = await refused(flow.body.runId, { workspace: original.sha }, 400);
    expect(error.details.issues).toEqual([expect.objectContaining({ field: 'params.id' })]);
    expect((await refused(original.id, {}, 400)).details.issues).toEqual([
      expect.objectContaining({ field: 'body.workspace' }),
    ]);
    expect((await refused(original.id, { workspace: 'current' }, 400)).code).toBe('VALIDATION_FAILED');
    expect((await refused(original.id, { workspace: original.sha, input: {} }, 400)).code).toBe(
      'VALIDATION_FAILED',
    );
  });

  it('409 for a run that is still running', async () => {
    script = () => ({ content: '{"done":true}' });
    const res = await post('/skills/probing/runs', { input: { x: '2' } });
    const error = await refused(res.body.runId, { workspace: original.sha }, 409);
    expect(error.details).toEqual({ runId: res.body.runId, status: 'running', action: 'replay' });
    await t.app.jobs.drain();
  });
});
