/**
 * kill -9 of an `r3 serve` process while a mission run executes (real processes, one database): two
 * tasks' model calls are in flight when the process dies. After a restart the run resumes where it
 * was — the hanging tasks run again, the rest follow, the run reaches its result review — and no task
 * was started twice (one child run per task) and the task that had finished was not run again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatBody, chatReply, type FakeOpenAI, startFakeOpenAI } from '../../../fakes/openai-server.js';
import { request } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { createCliToken, type ServeProcess, spawnServe } from '../../helpers/process.js';
import { waitFor } from '../../helpers/wait.js';

const diamond = JSON.stringify({
  tasks: [
    { id: 'a', title: 'A', agent: 'lead', instructions: 'a', dependsOn: [] },
    { id: 'b', title: 'B', agent: 'writer', instructions: 'b', dependsOn: ['a'] },
    { id: 'c', title: 'C', agent: 'lead', instructions: 'c', dependsOn: ['a'] },
    { id: 'd', title: 'D', agent: 'writer', instructions: 'd', dependsOn: ['b', 'c'] },
  ],
});

describe('kill -9 during a mission run', () => {
  let database: TestDatabase;
  let fake: FakeOpenAI;
  let env: Record<string, string>;
  let node: ServeProcess;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    fake = await startFakeOpenAI({ chatContent: () => 'done' });
    env = {
      DATABASE_URL: database.url,
      R3_RATE_LIMIT_PER_MIN: '0',
      R3_MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: fake.baseUrl,
      OPENAI_API_KEY: 'sk-test',
    };
    node = await spawnServe(env);
    token = (await createCliToken(database.url, 'crash-missions')).token;
    const skill = await request(node.url, 'POST', '/api/v1/skills', {
      token,
      body: { manifest: { slug: 'draft', name: 'Draft' }, promptMd: 'Draft' },
    });
    expect(skill.status, skill.text).toBe(201);
    for (const slug of ['lead', 'writer']) {
      const agent = await request(node.url, 'POST', '/api/v1/agents', {
        token,
        body: { slug, name: slug, skillSlugs: ['draft'] },
      });
      expect(agent.status, agent.text).toBe(201);
    }
  });

  afterAll(async () => {
    if (node && node.child.exitCode === null && node.child.signalCode === null) await node.stop();
    await fake?.close();
    await database?.drop();
  });

  it('resumes where it was after a restart, never starting a task twice', async () => {
    // The planner answers the diamond, task a answers, then b and c hang until the process dies.
    fake.enqueue(chatReply(diamond), chatReply('a done'), { hang: true }, { hang: true });
    const started = await request(node.url, 'POST', '/api/v1/mission-runs', {
      token,
      body: { team: ['lead', 'writer'], goal: 'Survive a crash' },
    });
    expect(started.status, started.text).toBe(202);
    const id = started.body.missionRunId as number;
    await fake.waitForRequests(4);
    const exited = new Promise((resolve) => node.child.once('exit', resolve));
    node.child.kill('SIGKILL');
    await exited;

    node = await spawnServe(env);
    let run: any;
    await waitFor(
      async () => {
        run = (await request(node.url, 'GET', `/api/v1/mission-runs/${id}`, { token })).body;
        return run.status === 'awaiting_review' || run.status === 'failed';
      },
      'the mission run to resume and reach its result review',
      30_000,
    );
    expect(run.status).toBe('awaiting_review');
    expect(run.plan.tasks.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
      ['c', 'completed'],
      ['d', 'completed'],
    ]);
    const children = await request(node.url, 'GET', `/api/v1/runs?missionRunId=${id}`, { token });
    const byTask = new Map<string, number>();
    for (const child of children.body.runs as Array<{ id: number }>) {
      const task = run.plan.tasks.find((t: { runId: number }) => t.runId === child.id)?.id ?? 'planner';
      byTask.set(task, (byTask.get(task) ?? 0) + 1);
    }
    expect(Object.fromEntries(byTask)).toEqual({ planner: 1, a: 1, b: 1, c: 1, d: 1 });
    const prompts = fake.requests.map((r) => (r.body as ChatBody).messages.at(-1)?.content ?? '');
    expect(prompts.filter((p) => p.includes('Your task (a)'))).toHaveLength(1);
    expect(prompts.filter((p) => p.includes('Your task (b)'))).toHaveLength(2);
    expect(prompts.filter((p) => p.includes('Your task (d)'))).toHaveLength(1);
  });
});
