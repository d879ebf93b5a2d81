/**
 * The tool loop of skill runs (docs/api.md "Runs") against the protocol-faithful fake OpenAI server, over
 * real sockets and the real database: scripted tool calls, several in one turn executing concurrently,
 * refused calls (unknown, forbidden, bad arguments) answered as tool errors and never executed, the
 * budget, cancel between calls, `toolCalls` on GET /runs/:id, SSE `tool_completed`, the manifest
 * fields validated at write, and the echo provider calling no tools.
 */
import pg from 'pg';
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
import { createAgent, createSkill, createWorkflow } from '../../helpers/resources.js';
import { loggedEvents } from '../../helpers/runs.js';
import { openSse } from '../../helpers/sse.js';
import { deferred, waitFor } from '../../helpers/wait.js';

let t: TestApp;
let fake: FakeOpenAI;
let admin: CreatedToken;
/** The scripted model of the current test: the assistant's answer to each chat request. */
let script: (body: ChatBody) => AssistantTurn | undefined = () => undefined;
/** Executions of the `probe` test tool: key, start and end. */
let executions: Array<{ key: string; start: number; end: number }> = [];
/** When set, `probe` waits for it before answering. */
let gate: Promise<void> | null = null;
let probeStarted: (() => void) | null = null;

const probe = defineAgentTool({
  name: 'probe',
  title: 'Probe',
  group: 'test',
  description: 'A test tool: waits waitMs, then answers its key and how many calls it has answered.',
  args: z.strictObject({ key: z.string().min(1), waitMs: z.number().int().min(0).max(2000).optional() }),
  result: z.object({ key: z.string(), n: z.number().int() }),
  idempotency: 'safe',
  uses: ['run'],
  access: access.invoke,
  hints: READ_ONLY,
  async execute(args) {
    const start = performance.now();
    probeStarted?.();
    if (gate) await gate;
    if (args.waitMs) await new Promise((resolve) => setTimeout(resolve, args.waitMs));
    executions.push({ key: args.key, start, end: performance.now() });
    return { key: args.key, n: executions.length };
  },
});

const call = (id: string, name: string, args: unknown) => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

/** The `tool` messages of a request, by call id, parsed. */
function toolAnswers(body: ChatBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of body.messages)
    if (m.role === 'tool') out[m.tool_call_id as string] = JSON.parse(m.content as string);
  return out;
}

/** Requests of the chat endpoint since `from`. */
const chats = (from: number) =>
  fake.requests
    .slice(from)
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => r.body as ChatBody);

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-test', assistant: (body) => script(body) });
  t = await startTestApp(openaiEnv(fake, { R3_WORKER_CONCURRENCY: '0' }));
  t.app.agentTools.add(probe);
  admin = await t.token({ scopes: ALL_SCOPES });
  await createSkill(t, admin.token, { slug: 'calc', tools: ['run_code'] }, 'Compute {{input.x}}');
  await createSkill(
    t,
    admin.token,
    { slug: 'probing', tools: ['probe', 'run_code'], maxToolCalls: 4 },
    'Probe {{input.x}}',
  );
  await createSkill(
    t,
    admin.token,
    { slug: 'local', tools: ['probe'], model: { provider: 'echo' } },
    'local {{input.x}}',
  );
  await createWorkflow(t, admin.token, {
    slug: 'compute-then-probe',
    steps: [
      { name: 'compute', type: 'skill', skill: 'calc', input: { x: '{{input.x}}' } },
      { name: 'check', type: 'approve', title: 'Check the sum' },
      { name: 'probe', type: 'skill', skill: 'probing', input: { x: '{{steps.compute.output.text}}' } },
    ],
  });
  await createAgent(t, admin.token, {
    slug: 'limited',
    skillSlugs: ['probing'],
    tools: { deny: ['run_code'] },
  });
});

afterAll(async () => {
  await t.close();
  await fake.close();
});

beforeEach(() => {
  executions = [];
  gate = null;
  probeStarted = null;
  script = () => undefined;
});

async function start(slug: string, body: Record<string, unknown> = { input: { x: '1' } }): Promise<number> {
  const res = await t.request('POST', `/api/v1/skills/${slug}/runs`, { token: admin.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.runId as number;
}

async function getRun(id: number) {
  const res = await t.request('GET', `/api/v1/runs/${id}`, { token: admin.token });
  expect(res.status).toBe(200);
  return res.body;
}

/** Runs run `id`'s jobs, cancels it while a `probe` call executes, then lets the call finish; the run after. */
async function cancelDuringProbe(id: number) {
  const release = deferred();
  const began = deferred();
  gate = release.promise;
  probeStarted = () => began.resolve();
  const draining = t.app.jobs.drain();
  await began.promise;
  const cancelled = await t.request('POST', `/api/v1/runs/${id}/cancel`, { token: admin.token });
  expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
  release.resolve();
  await draining;
  return getRun(id);
}

async function runSkill(slug: string, body?: Record<string, unknown>) {
  const id = await start(slug, body);
  await t.app.jobs.drain();
  return getRun(id);
}

describe('the tool loop of a skill run', () => {
  it('runs a scripted two-turn conversation: run_code is called, answered, and the final message is the output', async () => {
    const from = fake.requests.length;
    script = (body) => {
      const answers = toolAnswers(body);
      if (Object.keys(answers).length === 0) {
        return {
          content: null,
          toolCalls: [call('call_1', 'run_code', { language: 'javascript', code: '6*7' })],
        };
      }
      return { content: `The answer is ${(answers.call_1 as { result: number }).result}` };
    };
    const run = await runSkill('calc');
    expect(run).toMatchObject({ status: 'completed', output: { text: 'The answer is 42' }, error: null });

    const [first, second] = chats(from);
    expect(first?.tools).toEqual([
      {
        type: 'function',
        function: expect.objectContaining({
          name: 'run_code',
          parameters: expect.objectContaining({ type: 'object' }),
        }),
      },
    ]);
    // The second request replays the assistant's call and answers it with the tool's result.
    expect(second?.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'run_code', arguments: '{"language":"javascript","code":"6*7"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"result":42,"stdout":"","error":null}' },
    ]);

    expect(run.toolCalls).toEqual([
      {
        id: 'call_1',
        tool: 'run_code',
        arguments: { language: 'javascript', code: '6*7' },
        status: 'ok',
        result: { result: 42, stdout: '', error: null },
        error: null,
        startedAt: expect.any(String),
        completedAt: expect.any(String),
      },
    ]);
    expect(Date.parse(run.toolCalls[0].completedAt)).toBeGreaterThanOrEqual(
      Date.parse(run.toolCalls[0].startedAt),
    );
  });

  it('executes several calls of one turn concurrently and answers each by its id', async () => {
    const from = fake.requests.length;
    script = (body) =>
      Object.keys(toolAnswers(body)).length === 0
        ? {
            toolCalls: [
              call('a', 'probe', { key: 'first', waitMs: 300 }),
              call('b', 'probe', { key: 'second', waitMs: 300 }),
              call('c', 'probe', { key: 'third', waitMs: 300 }),
            ],
          }
        : { content: 'done' };
    const started = performance.now();
    const run = await runSkill('probing');
    expect(run.status).toBe('completed');
    expect(executions).toHaveLength(3);
    // Each started before any finished: they overlapped.
    const firstEnd = Math.min(...executions.map((e) => e.end));
    expect(executions.every((e) => e.start < firstEnd)).toBe(true);
    expect(performance.now() - started).toBeLessThan(900 + 5_000);
    expect(run.toolCalls.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['a', 'ok'],
      ['b', 'ok'],
      ['c', 'ok'],
    ]);
    const answers = toolAnswers(chats(from)[1] as ChatBody);
    expect(Object.keys(answers).sort()).toEqual(['a', 'b', 'c']);
    expect((answers.b as { key: string }).key).toBe('second');
  });

  it('answers an unknown tool, a tool the agent denies and bad arguments as tool errors, executing none', async () => {
    const from = fake.requests.length;
    script = (body) =>
      Object.keys(toolAnswers(body)).length === 0
        ? {
            toolCalls: [
              call('u', 'launch_missiles', {}),
              call('f', 'run_code', { language: 'javascript', code: '1' }),
              call('v', 'probe', { key: 5 }),
              call('j', 'probe', 'not json {'),
            ],
          }
        : { content: 'understood' };
    const run = await runSkill('probing', { input: { x: '1' }, agentSlug: 'limited' });
    expect(run.status).toBe('completed');
    expect(executions).toHaveLength(0);
    const byId = Object.fromEntries(
      run.toolCalls.map((c: { id: string; status: string; error: { code: string } }) => [c.id, c]),
    );
    expect(byId.u).toMatchObject({ status: 'error', result: null, error: { code: 'TOOL_UNAVAILABLE' } });
    expect(byId.f).toMatchObject({ status: 'error', error: { code: 'FORBIDDEN' } });
    expect(byId.v).toMatchObject({
      status: 'error',
      arguments: { key: 5 },
      error: {
        code: 'VALIDATION_FAILED',
        details: { issues: [expect.objectContaining({ field: 'arguments.key' })] },
      },
    });
    expect(byId.j).toMatchObject({
      status: 'error',
      arguments: 'not json {',
      error: { code: 'VALIDATION_FAILED' },
    });
    const answers = toolAnswers(chats(from)[1] as ChatBody);
    expect(answers.u).toMatchObject({ error: { code: 'TOOL_UNAVAILABLE' } });
    expect(answers.f).toMatchObject({ error: { code: 'FORBIDDEN' } });
    // The agent's deny also keeps run_code out of the tools offered.
    expect(chats(from)[0]?.tools?.map((tool) => tool.function.name)).toEqual(['probe']);
  });

  it('fails a model that keeps calling tools with TOOL_BUDGET_EXCEEDED once maxToolCalls is spent', async () => {
    let n = 0;
    script = () => ({ toolCalls: [call(`loop_${++n}`, 'probe', { key: `k${n}` })] });
    const run = await runSkill('probing');
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'TOOL_BUDGET_EXCEEDED' });
    expect(run.error.message).toContain('maxToolCalls (4)');
    expect(run.toolCalls).toHaveLength(4);
    expect(executions).toHaveLength(4);
  });

  it('stops between calls when the run is cancelled: the executing call is recorded, no model answer is acted on', async () => {
    const from = fake.requests.length;
    script = (body) =>
      Object.keys(toolAnswers(body)).length === 0
        ? { toolCalls: [call('slow', 'probe', { key: 'slow' })] }
        : { toolCalls: [call('after', 'probe', { key: 'after' })] };
    const run = await cancelDuringProbe(await start('probing'));
    expect(run.status).toBe('cancelled');
    expect(run.toolCalls).toEqual([
      expect.objectContaining({ id: 'slow', status: 'ok', result: { key: 'slow', n: 1 } }),
    ]);
    // The next turn may have been asked while the outcome was being committed (the loop asks
    // meanwhile, and aborts the request once the run refuses the outcome): its answer is not acted on.
    expect(executions.map((e) => e.key)).toEqual(['slow']);
    expect(chats(from).length).toBeLessThanOrEqual(2);
  });

  it('asks the model for the next turn while the last outcome commits, and acts on the answer only once it is committed', async () => {
    const from = fake.requests.length;
    const release = deferred();
    const began = deferred();
    gate = release.promise;
    probeStarted = () => began.resolve();
    script = (body) => {
      const answers = toolAnswers(body);
      if (!('p1' in answers)) return { toolCalls: [call('p1', 'probe', { key: 'one' })] };
      if (!('p2' in answers)) return { toolCalls: [call('p2', 'probe', { key: 'two' })] };
      return { content: 'done' };
    };
    const id = await start('probing');
    const draining = t.app.jobs.drain();
    await began.promise;
    gate = null;
    // The run's row held by another transaction: p1's outcome cannot commit until it is let go.
    const locker = new pg.Client({ connectionString: t.database.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select 1 from runs where id = $1 for update', [id]);
      release.resolve();
      await waitFor(() => chats(from).length >= 2, 'the model to be asked for the second turn');
      expect(toolAnswers(chats(from)[1] as ChatBody)).toEqual({ p1: { key: 'one', n: 1 } });
      const { rows } = await locker.query('select call_id, status from tool_calls where run_id = $1', [id]);
      expect(rows).toEqual([{ call_id: 'p1', status: 'running' }]);
      await locker.query('rollback');
    } finally {
      await locker.end();
    }
    await draining;
    const run = await getRun(id);
    expect(run).toMatchObject({ status: 'completed', output: { text: 'done' } });
    expect(run.toolCalls.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['p1', 'ok'],
      ['p2', 'ok'],
    ]);
    expect(executions.map((e) => e.key)).toEqual(['one', 'two']);
    // The second turn's calls were recorded after the first turn's outcome, each call once.
    expect(await loggedEvents(t.app, 'skill-run', id)).toEqual([
      'xstate.init',
      'TOOLS_REQUESTED',
      'TOOL_COMPLETED',
      'TOOLS_REQUESTED',
      'TOOL_COMPLETED',
      'STEP_SUCCEEDED',
    ]);
  });

  it('streams tool_completed for each call before the run completes', async () => {
    script = (body) =>
      Object.keys(toolAnswers(body)).length === 0
        ? { toolCalls: [call('s1', 'probe', { key: 'x' }), call('s2', 'nope', {})] }
        : { content: 'ok' };
    const id = await start('probing');
    await t.app.jobs.drain();
    const client = await openSse(t.url, `/api/v1/runs/${id}/stream`, { token: admin.token });
    await client.ended;
    const events = client.events.items.map((e) => e.event);
    expect(events).toEqual([
      'started',
      'step_started',
      'tool_completed',
      'tool_completed',
      'step_completed',
      'completed',
    ]);
    const completed = client.events.items
      .filter((e) => e.event === 'tool_completed')
      .map((e) => e.json.output);
    expect(completed).toEqual(
      expect.arrayContaining([
        { id: 's1', tool: 'probe', status: 'ok', errorCode: null },
        { id: 's2', tool: 'nope', status: 'error', errorCode: 'TOOL_UNAVAILABLE' },
      ]),
    );
  });

  it('the echo provider calls no tools', async () => {
    const from = fake.requests.length;
    const run = await runSkill('local');
    expect(run).toMatchObject({ status: 'completed', output: { text: 'local 1' }, toolCalls: [] });
    expect(fake.requests.length).toBe(from);
  });
});

describe('the tool loop of a workflow skill step', () => {
  /** Starts `compute-then-probe`, runs `compute` to the gate, approves it; answers the run id. */
  async function pastTheGate(): Promise<number> {
    const res = await t.request('POST', '/api/v1/workflows/compute-then-probe/runs', {
      token: admin.token,
      body: { input: { x: '2' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = res.body.runId as number;
    await t.app.jobs.drain();
    expect((await getRun(id)).status).toBe('paused');
    const approved = await t.request('POST', `/api/v1/runs/${id}/approve`, { token: admin.token, body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    return id;
  }

  /** The model: in each step, one call of the step's tool with the id `same`, then a final message. */
  const perStep = (body: ChatBody): AssistantTurn => {
    const answers = toolAnswers(body);
    const prompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
    if (prompt.startsWith('Compute')) {
      return 'same' in answers
        ? { content: `sum ${(answers.same as { result: number }).result}` }
        : { toolCalls: [call('same', 'run_code', { language: 'javascript', code: '40+2' })] };
    }
    const ids = Object.keys(answers);
    return ids.length > 0
      ? { content: `probed ${ids.join(',')}` }
      : { toolCalls: [call('same', 'probe', { key: prompt })] };
  };

  it("runs each skill step's loop with its own conversation; calls recorded with unique ids; tool_completed per step", async () => {
    const from = fake.requests.length;
    script = perStep;
    const id = await pastTheGate();
    await t.app.jobs.drain();
    const run = await getRun(id);
    expect(run).toMatchObject({ status: 'completed', error: null });
    expect(run.stepResults.compute.output).toEqual({ text: 'sum 42' });
    // The model repeated the id `same` in the second step: it is made unique within the run.
    expect(run.toolCalls).toEqual([
      expect.objectContaining({
        id: 'same',
        tool: 'run_code',
        status: 'ok',
        result: expect.objectContaining({ result: 42 }),
      }),
      expect.objectContaining({
        id: expect.stringMatching(/^same~/),
        tool: 'probe',
        status: 'ok',
        arguments: { key: 'Probe sum 42' },
      }),
    ]);
    expect(run.output).toEqual({ text: `probed ${run.toolCalls[1].id}` });
    expect(executions.map((e) => e.key)).toEqual(['Probe sum 42']);

    // The probe step's model never saw the compute step's call: each step has its own conversation.
    const probeChats = chats(from).filter((c) =>
      c.messages.some((m) => m.role === 'user' && m.content?.startsWith('Probe')),
    );
    expect(probeChats).toHaveLength(2);
    expect(probeChats[0]?.messages.map((m) => m.role)).toEqual(['user']);
    expect(Object.keys(toolAnswers(probeChats[1] as ChatBody))).toEqual([run.toolCalls[1].id]);
    expect(probeChats[0]?.tools?.map((tool) => tool.function.name)).toEqual(['probe', 'run_code']);

    const rows = await t.app.db.sql.query<{ step: string; turn: number }>(
      'select step, turn from tool_calls where run_id = $1 order by turn',
      [id],
    );
    expect(rows).toEqual([
      { step: 'compute', turn: 1 },
      { step: 'probe', turn: 2 },
    ]);
    const client = await openSse(t.url, `/api/v1/runs/${id}/stream`, { token: admin.token });
    await client.ended;
    const toolEvents = client.events.items.filter((e) => e.event === 'tool_completed');
    expect(toolEvents.map((e) => [e.json.step, e.json.output.tool])).toEqual([
      ['compute', 'run_code'],
      ['probe', 'probe'],
    ]);
  });

  it("fails the run at the step whose model exceeds its skill's maxToolCalls", async () => {
    let n = 0;
    script = (body) =>
      body.messages.some((m) => m.role === 'user' && m.content?.startsWith('Compute'))
        ? perStep(body)
        : { toolCalls: [call(`loop_${++n}`, 'probe', { key: `k${n}` })] };
    const id = await pastTheGate();
    await t.app.jobs.drain();
    const run = await getRun(id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'TOOL_BUDGET_EXCEEDED', step: 'probe' });
    // The compute step's call does not count against the probe step's budget of 4.
    expect(run.toolCalls).toHaveLength(5);
    expect(executions).toHaveLength(4);
  });

  it('stops between calls when the run is cancelled during a step', async () => {
    script = perStep;
    const id = await pastTheGate();
    const from = fake.requests.length;
    const run = await cancelDuringProbe(id);
    expect(run.status).toBe('cancelled');
    expect(run.toolCalls.at(-1)).toMatchObject({ tool: 'probe', status: 'ok' });
    // At most the request that went out while the outcome was being committed, and nothing after it.
    expect(chats(from).length).toBeLessThanOrEqual(2);
    expect(run.stepResults.probe).toBeUndefined();
  });
});

describe('tool fields of manifests, validated at write', () => {
  it('refuses an unknown tool name, a budget over 50 and a duplicate, naming the field', async () => {
    const unknown = await t.request('POST', '/api/v1/skills', {
      token: admin.token,
      body: { manifest: { slug: 'bad-tools', name: 'Bad', tools: ['run_code', 'teleport'] }, promptMd: 'x' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(unknown.body.error.details)).toContain('tools');
    expect(JSON.stringify(unknown.body.error.details)).toContain('teleport');

    const budget = await t.request('POST', '/api/v1/skills', {
      token: admin.token,
      body: { manifest: { slug: 'bad-budget', name: 'Bad', maxToolCalls: 51 }, promptMd: 'x' },
    });
    expect(budget.status).toBe(400);
    expect(JSON.stringify(budget.body.error.details)).toContain('maxToolCalls');

    const twice = await t.request('POST', '/api/v1/skills', {
      token: admin.token,
      body: { manifest: { slug: 'bad-twice', name: 'Bad', tools: ['probe', 'probe'] }, promptMd: 'x' },
    });
    expect(twice.status).toBe(400);

    const agent = await t.request('POST', '/api/v1/agents', {
      token: admin.token,
      body: { slug: 'bad-agent', name: 'Bad', tools: { allow: ['warp_drive'] } },
    });
    expect(agent.status).toBe(400);
    expect(JSON.stringify(agent.body.error.details)).toContain('warp_drive');

    const skills = await t.request('GET', '/api/v1/skills/bad-tools', { token: admin.token });
    expect(skills.status).toBe(404);
  });

  it('keeps the fields of a valid skill and agent', async () => {
    const skill = await t.request('GET', '/api/v1/skills/probing', { token: admin.token });
    expect(skill.body.manifest ?? skill.body).toMatchObject({
      tools: ['probe', 'run_code'],
      maxToolCalls: 4,
    });
    const agent = await t.request('GET', '/api/v1/agents/limited', { token: admin.token });
    expect(agent.body).toMatchObject({ tools: { deny: ['run_code'] } });
  });
});
