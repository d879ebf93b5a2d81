/**
 * The planner as a tool-using run on the fake OpenAI-compatible server: it is offered the tools its
 * agent allows by name (less the denied ones), its calls are recorded on its run and what they make
 * belongs to the mission run, and its budget is the mission's `limits.maxToolCalls` — asking for more
 * fails the planner run TOOL_BUDGET_EXCEEDED (docs/api.md "Runs"), which fails the mission run
 * PLANNER_FAILED (docs/api.md "Missions") before any task starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AssistantTurn,
  type ChatBody,
  type FakeOpenAI,
  startFakeOpenAI,
} from '../../../fakes/openai-server.js';
import { type Callers, callers } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createMission, waitForMissionRun } from '../../helpers/missions.js';

let t: TestApp;
let fake: FakeOpenAI;
let c: Callers;

const plan = JSON.stringify({
  tasks: [{ id: 'only', title: 'Only task', agent: 'planner', instructions: 'Write it', dependsOn: [] }],
});

const isPlanner = (body: ChatBody) =>
  body.messages.some((m) => m.role === 'user' && m.content?.includes('You are the planner of a mission'));
const plannerOf = (product: string) => (body: ChatBody) =>
  isPlanner(body) && body.messages.some((m) => m.content?.includes(`Launch note for ${product}`));
const toolAnswers = (body: ChatBody) => body.messages.filter((m) => m.role === 'tool').length;

/** A create_artifact call, numbered by how many calls were answered so far. */
function artifactCall(body: ChatBody): AssistantTurn {
  const n = toolAnswers(body) + 1;
  const args = { name: `notes-${n}.md`, mediaType: 'text/markdown', text: `Planning notes ${n}` };
  return { toolCalls: [{ id: `call_${n}`, name: 'create_artifact', arguments: JSON.stringify(args) }] };
}

beforeAll(async () => {
  fake = await startFakeOpenAI({
    assistant: (body) => {
      // One call, then the plan.
      if (plannerOf('Gadget')(body)) return toolAnswers(body) === 0 ? artifactCall(body) : { content: plan };
      // Never done: calls until the budget is spent.
      if (plannerOf('Loop')(body)) return artifactCall(body);
      return undefined;
    },
    chatContent: () => 'done',
  });
  t = await startTestApp({
    R3_MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: fake.baseUrl,
    R3_MODEL: 'gpt-test',
  });
  c = await callers(t, 'planner-tools');
  const agent = await t.request('POST', '/api/v1/agents', {
    token: c.writer,
    body: {
      slug: 'planner',
      name: 'Planner',
      systemPrompt: 'You plan.',
      tools: { allow: ['create_artifact', 'run_code'], deny: ['run_code'] },
    },
  });
  expect(agent.status, agent.text).toBe(201);
  await createMission(t, c.writer, 'tooled', ['planner'], { limits: { maxToolCalls: 2 } });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function start(product: string): Promise<number> {
  const res = await t.request('POST', '/api/v1/mission-runs', {
    token: c.invoker,
    body: { missionSlug: 'tooled', input: { product } },
  });
  expect(res.status, res.text).toBe(202);
  return res.body.missionRunId as number;
}

async function childRuns(id: number): Promise<any[]> {
  const res = await t.request('GET', `/api/v1/runs?missionRunId=${id}`, { token: c.reader });
  expect(res.status, res.text).toBe(200);
  return res.body.runs;
}

async function plannerRun(id: number): Promise<any> {
  const runs = await childRuns(id);
  const planner = runs.find((r) => r.slug === 'mission-planner');
  expect(planner).toBeDefined();
  const res = await t.request('GET', `/api/v1/runs/${planner.id}`, { token: c.reader });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('the planner calls tools within the mission budget', () => {
  it('is offered the tools its agent allows; its call is recorded and its artifact is the mission run’s', async () => {
    const id = await start('Gadget');
    const run = await waitForMissionRun(t, c.reader, id, ['awaiting_review', 'failed']);
    expect(run.status, JSON.stringify(run.error)).toBe('awaiting_review');
    expect(run.plan.tasks.map((x: { id: string }) => x.id)).toEqual(['only']);

    const asked = fake.requests.map((r) => r.body as ChatBody).filter(plannerOf('Gadget'));
    expect(asked).toHaveLength(2);
    // Allowed and not denied: create_artifact only.
    expect(asked[0]?.tools?.map((x) => x.function.name)).toEqual(['create_artifact']);

    const planner = await plannerRun(id);
    expect(planner.status).toBe('completed');
    expect(planner.toolCalls.map((x: { tool: string; status: string }) => [x.tool, x.status])).toEqual([
      ['create_artifact', 'ok'],
    ]);
    const artifacts = await t.request('GET', `/api/v1/artifacts?missionRunId=${id}`, { token: c.reader });
    expect(artifacts.status, artifacts.text).toBe(200);
    expect(JSON.stringify(artifacts.body)).toContain('notes-1.md');
  });

  it('past limits.maxToolCalls the planner run fails TOOL_BUDGET_EXCEEDED and the mission run PLANNER_FAILED', async () => {
    const id = await start('Loop');
    const run = await waitForMissionRun(t, c.reader, id, ['awaiting_review', 'failed']);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('PLANNER_FAILED');
    expect(run.error.message).toContain('TOOL_BUDGET_EXCEEDED');
    expect(run.plan).toBeNull();

    const planner = await plannerRun(id);
    expect(planner.status).toBe('failed');
    expect(planner.error.code).toBe('TOOL_BUDGET_EXCEEDED');
    // The two calls of the budget were executed; the third was asked for and refused the run.
    expect(planner.toolCalls.map((x: { status: string }) => x.status)).toEqual(['ok', 'ok']);
    expect(fake.requests.map((r) => r.body as ChatBody).filter(plannerOf('Loop'))).toHaveLength(3);
    // No task started: the planner is the mission run's only child.
    expect((await childRuns(id)).map((r) => r.slug)).toEqual(['mission-planner']);
  });
});
