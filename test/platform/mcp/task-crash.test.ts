/**
 * A task is the run, not a process's memory (docs/mcp.md#tasks): a skill run started as a task over
 * HTTP with the official SDK client waits for review (`input_required`), the serving `r3 serve` is
 * killed with SIGKILL, a new process on the same database answers the same task id, the draft is
 * approved in the review queue there, and the task is `completed` with the tool's result.
 */
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { connectHttp } from '../../helpers/mcp.js';
import { createCliToken, type ServeProcess, spawnServe } from '../../helpers/process.js';
import { startTask, taskReaching } from '../../helpers/tasks.js';

describe('a task across a kill -9 of the serving process', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  const nodes: ServeProcess[] = [];
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, R3_RATE_LIMIT_PER_MIN: '0' };
    nodes.push(await spawnServe(env));
    token = (await createCliToken(database.url, 'tasks')).token;
    const skill = await request(nodes[0]?.url as string, 'POST', '/api/v1/skills', {
      token,
      body: {
        manifest: { slug: 'gated', name: 'Gated', requiresApproval: true },
        promptMd: 'Draft about {{input.topic}}',
      },
    });
    expect(skill.status, skill.text).toBe(201);
  });

  afterAll(async () => {
    for (const node of nodes) {
      if (node.child.exitCode === null && node.child.signalCode === null) await node.stop();
    }
    await database?.drop();
  });

  it('goes input_required → (SIGKILL, new process) → completed after a decision in the queue', async () => {
    const first = nodes[0] as ServeProcess;
    const before = await connectHttp(first.url, token);
    const task = await startTask(before, 'runtime_run_skill', { slug: 'gated', input: { topic: 'owls' } });
    const runId = Number(task.taskId.slice('run-'.length));
    const waiting = await taskReaching(before, task.taskId, 'input_required');
    expect(waiting.statusMessage).toBe(`The draft waits for review: ${first.url}/review/runs/${runId}`);

    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    await before.close().catch(() => undefined);

    const second = await spawnServe(env);
    nodes.push(second);
    const after = await connectHttp(second.url, token);
    const still = await after.experimental.tasks.getTask(task.taskId);
    expect(still).toMatchObject({
      taskId: task.taskId,
      status: 'input_required',
      statusMessage: `The draft waits for review: ${second.url}/review/runs/${runId}`,
      createdAt: task.createdAt,
    });
    // tasks/result waits on the new process while the decision is made in the queue.
    const result = after.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const decided = await request(second.url, 'POST', '/api/v1/reviews/decide', {
      token,
      body: { kind: 'skill', id: runId, action: 'approve' },
    });
    expect(decided.status, decided.text).toBe(200);
    const answer = await result;
    expect(answer.structuredContent).toMatchObject({
      runId,
      status: 'approved',
      output: { text: 'Draft about owls' },
    });
    const done = await taskReaching(after, task.taskId, 'completed');
    expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThan(Date.parse(waiting.lastUpdatedAt));
    await after.close();
  });
});
