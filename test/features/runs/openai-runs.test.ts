/**
 * Skill runs on the `openai` provider against a local server that speaks the chat-completions
 * protocol: the rendered prompt and the agent's system prompt go out, JSON mode when the skill has an
 * outputSchema, the run's trace id as traceparent, and provider failures fail the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatBody, type FakeOpenAI, openaiEnv, startFakeOpenAI } from '../../../fakes/openai-server.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createAgent, createSkill } from '../../helpers/resources.js';

let t: TestApp;
let fake: FakeOpenAI;
let admin: CreatedToken;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-test' });
  t = await startTestApp(openaiEnv(fake, { R3_WORKER_CONCURRENCY: '0' }));
  admin = await t.token({ scopes: ALL_SCOPES });
  await createSkill(t, admin.token, { slug: 'plain' }, 'Tell me about {{input.topic}}{{input.missing}}.');
  await createSkill(
    t,
    admin.token,
    {
      slug: 'structured',
      outputSchema: { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] },
      model: { provider: 'openai', name: 'gpt-special', temperature: 0.2 },
    },
    'Summarize {{input.topic}}',
  );
  await createSkill(t, admin.token, { slug: 'local', model: { provider: 'echo' } }, 'local {{input.topic}}');
  await createAgent(t, admin.token, {
    slug: 'writer',
    skillSlugs: ['plain'],
    systemPrompt: 'You are terse.',
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function runSkill(slug: string, body: Record<string, unknown>) {
  const res = await t.request('POST', `/api/v1/skills/${slug}/runs`, { token: admin.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await t.app.jobs.drain();
  return (await t.request('GET', `/api/v1/runs/${res.body.runId}`, { token: admin.token })).body;
}

describe('skill runs on the openai provider', () => {
  it('send the rendered prompt with the agent system prompt and the trace id; text output becomes {text}', async () => {
    const before = fake.requests.length;
    const run = await runSkill('plain', { input: { topic: 'otters' }, agentSlug: 'writer' });
    expect(run).toMatchObject({ status: 'completed', output: { text: 'echo: Tell me about otters.' } });
    const request = fake.requests[before];
    const body = request?.body as ChatBody;
    expect(body.model).toBe('gpt-test');
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Tell me about otters.' },
    ]);
    expect(body.response_format).toBeUndefined();
    expect(request?.headers.traceparent).toMatch(new RegExp(`^00-${run.traceId}-[0-9a-f]{16}-01$`));
    const [execution] = await t.app.db.sql.query<{ meta: Record<string, unknown> }>(
      'select meta from step_executions where run_id = $1',
      [run.id],
    );
    expect(execution?.meta).toMatchObject({ provider: 'openai', missing: ['input.missing'] });
  });

  it("use JSON mode, the skill's model and temperature when it has an outputSchema", async () => {
    const before = fake.requests.length;
    const run = await runSkill('structured', { input: { topic: 'rivers' } });
    expect(run).toMatchObject({ status: 'completed', output: { echo: 'Summarize rivers' } });
    const body = fake.requests[before]?.body as ChatBody;
    expect(body).toMatchObject({ model: 'gpt-special', temperature: 0.2 });
    expect(body.response_format?.type).toBe('json_schema');
  });

  it("use the skill's own provider when it names one", async () => {
    const before = fake.requests.length;
    const run = await runSkill('local', { input: { topic: 'x' } });
    expect(run.output).toEqual({ text: 'local x' });
    expect(fake.requests.length).toBe(before);
  });

  it('fail the run with PROVIDER_ERROR when the server refuses', async () => {
    fake.enqueue({ status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } });
    const run = await runSkill('plain', { input: { topic: 'y' } });
    expect(run).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_ERROR' } });
  });

  it('fail the run with OUTPUT_INVALID when the JSON answer does not match the outputSchema', async () => {
    fake.enqueue({
      status: 200,
      body: {
        model: 'gpt-special',
        choices: [{ message: { role: 'assistant', content: '{"other": 1}' }, finish_reason: 'stop' }],
      },
    });
    const run = await runSkill('structured', { input: { topic: 'z' } });
    expect(run).toMatchObject({ status: 'failed', error: { code: 'OUTPUT_INVALID' } });
  });

  it('stop waiting for a Retry-After when the run is cancelled: the run is cancelled and nothing is sent again', async () => {
    const from = fake.requests.length;
    fake.enqueue({
      status: 429,
      headers: { 'retry-after': '30' },
      body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: null } },
    });
    const res = await t.request('POST', '/api/v1/skills/plain/runs', {
      token: admin.token,
      body: { input: { topic: 'queues' } },
    });
    expect(res.status).toBe(202);
    const id = res.body.runId as number;
    const draining = t.app.jobs.drain();
    await fake.waitForRequests(from + 1);
    const asked = performance.now();
    const cancelled = await t.request('POST', `/api/v1/runs/${id}/cancel`, { token: admin.token });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    await draining;
    // The step ended with the cancel, not after the 30 s the server asked for (a generous bound).
    expect(performance.now() - asked).toBeLessThan(20_000);
    const run = (await t.request('GET', `/api/v1/runs/${id}`, { token: admin.token })).body;
    expect(run).toMatchObject({ status: 'cancelled', error: null, output: null });
    expect(fake.requests.length).toBe(from + 1);
    // The job finished: not failed, not waiting for another attempt.
    const jobs = await t.app.db.sql.query(
      "select id from jobs where kind = 'execute_step' and (payload->>'actorId')::bigint = $1",
      [id],
    );
    expect(jobs).toEqual([]);
    const steps = await t.app.db.sql.query('select step from step_executions where run_id = $1', [id]);
    expect(steps).toEqual([]);
  });
});
