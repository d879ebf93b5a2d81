/**
 * A fork of a three-step workflow from step 2 against the scripted fake OpenAI server (issue 40's
 * test, decisions.md §17): the server counts the model's calls per step, so step 1 — copied — is seen
 * not to be executed again; step 1 proposed an action (`propose_action`) in the original, and the fork
 * copies its result but not the proposal (proposals are never copied). Forked from step 1, the step
 * runs again and proposes anew, for the fork.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatBody, type FakeOpenAI, openaiEnv, startFakeOpenAI } from '../../../fakes/openai-server.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createAgent, createSkill, createUnreachableCrm, createWorkflow } from '../../helpers/resources.js';

let t: TestApp;
let fake: FakeOpenAI;
let admin: CreatedToken;

/** The step a chat request is for (its prompt starts "step <name>:"), from the recorded requests. */
const stepOf = (body: ChatBody) => /step (\w+):/.exec(JSON.stringify(body.messages))?.[1];
/** The model's calls per step since request `from`. */
const calls = (from: number) => {
  const counted: Record<string, number> = {};
  for (const r of fake.requests.slice(from)) {
    if (r.path !== '/v1/chat/completions') continue;
    const step = stepOf(r.body as ChatBody) as string;
    counted[step] = (counted[step] ?? 0) + 1;
  }
  return counted;
};

/**
 * The scripted model: step one proposes closing deal 42 (one tool turn) and then answers; every step
 * answers {said: "<step> <its text>"}.
 */
function assistant(body: ChatBody) {
  const step = stepOf(body);
  if (!step) return undefined;
  const text = /text=([^\n"\\]*)/.exec(JSON.stringify(body.messages))?.[1] ?? '';
  const answered = body.messages.some((m) => m.role === 'tool');
  if (step === 'one' && !answered) {
    const args = {
      action: 'crm.update_deal',
      params: { dealId: '42', properties: { dealstage: 'closedwon' } },
      rationale: 'The customer signed.',
    };
    return {
      content: null,
      toolCalls: [{ id: 'c1', name: 'propose_action', arguments: JSON.stringify(args) }],
    };
  }
  return { content: JSON.stringify({ said: `${step} ${text}` }) };
}

const post = (path: string, body: unknown = {}) =>
  t.request('POST', `/api/v1${path}`, { token: admin.token, body });
const run = async (id: number) => (await t.request('GET', `/api/v1/runs/${id}`, { token: admin.token })).body;
const proposals = async (runId?: number) =>
  Number(
    (
      await t.app.db.sql.one<{ n: string }>(
        runId === undefined
          ? 'select count(*) as n from proposals'
          : 'select count(*) as n from proposals where run_id = $1',
        runId === undefined ? [] : [runId],
      )
    ).n,
  );

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-test', assistant });
  t = await startTestApp(
    openaiEnv(fake, { R3_WORKER_CONCURRENCY: '0', R3_CONNECTORS_ALLOW_PRIVATE: 'true' }),
  );
  admin = await t.token({ scopes: ALL_SCOPES });
  await createUnreachableCrm(t, admin.token);
  const said = { type: 'object', properties: { said: { type: 'string' } }, required: ['said'] };
  await createSkill(
    t,
    admin.token,
    { slug: 'closer', tools: ['propose_action'], outputSchema: said },
    'step one: text={{input.text}}',
  );
  await createSkill(t, admin.token, { slug: 'second', outputSchema: said }, 'step two: text={{input.text}}');
  await createSkill(t, admin.token, { slug: 'third', outputSchema: said }, 'step three: text={{input.text}}');
  await createWorkflow(t, admin.token, {
    slug: 'deal',
    steps: [
      { name: 'one', type: 'skill', skill: 'closer', input: { text: '{{input.topic}}' } },
      { name: 'two', type: 'skill', skill: 'second', input: { text: '{{steps.one.output.said}}' } },
      { name: 'three', type: 'skill', skill: 'third', input: { text: '{{steps.two.output.said}}' } },
    ],
  });
  await createAgent(t, admin.token, {
    slug: 'desk',
    skillSlugs: ['closer', 'second', 'third'],
    workflowSlugs: ['deal'],
    sourceSlugs: ['hubspot'],
  });
});

afterAll(async () => {
  await t.close();
  await fake.close();
});

describe('forking a three-step workflow whose model a fake server counts', () => {
  it('copies step one from step two on (not executed: no model call, no proposal), executes two and three', async () => {
    let from = fake.requests.length;
    const started = await post('/workflows/deal/runs', { input: { topic: 'acme' }, agentSlug: 'desk' });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await t.app.jobs.drain();
    const id = started.body.runId as number;
    const original = await run(id);
    expect(original.status, JSON.stringify(original.error)).toBe('completed');
    expect(original.output).toEqual({ said: 'three two one acme' });
    // Step one: the tool turn and the answer; two and three one call each.
    expect(calls(from)).toEqual({ one: 2, two: 1, three: 1 });
    expect(await proposals(id)).toBe(1);
    const allProposals = await proposals();

    from = fake.requests.length;
    const forked = await post(`/runs/${id}/fork`, { fromStep: 'two', input: { topic: 'globex' } });
    expect(forked.status, JSON.stringify(forked.body)).toBe(202);
    await t.app.jobs.drain();
    const fork = await run(forked.body.runId);
    expect(fork).toMatchObject({
      status: 'completed',
      forkOf: { runId: id, fromStep: 'two' },
      // Step one's result is the original's (the new input's topic never reached it).
      stepResults: { one: { output: { said: 'one acme' }, copied: true } },
      output: { said: 'three two one acme' },
    });
    expect(calls(from)).toEqual({ two: 1, three: 1 });
    // The copied step's proposal was not copied, nor proposed again.
    expect(await proposals()).toBe(allProposals);
    expect(await proposals(fork.id)).toBe(0);
    expect(fork.toolCalls ?? []).toEqual([]);

    // From step one: it runs again (with the fork's input) and proposes anew, for the fork.
    from = fake.requests.length;
    const again = await post(`/runs/${id}/fork`, { fromStep: 'one', input: { topic: 'globex' } });
    expect(again.status).toBe(202);
    await t.app.jobs.drain();
    expect(await run(again.body.runId)).toMatchObject({
      status: 'completed',
      output: { said: 'three two one globex' },
    });
    expect(calls(from)).toEqual({ one: 2, two: 1, three: 1 });
    expect(await proposals(again.body.runId)).toBe(1);
    expect(await proposals(id)).toBe(1);
  });
});
