/**
 * MCP tasks (2025-11-25, experimental; docs/mcp.md#tasks) over streamable HTTP with the official SDK
 * client: runtime_run_skill, runtime_run_workflow and mission_start as tasks; tasks/get through
 * working, input_required (the review link), completed, failed and cancelled; tasks/result (waiting
 * until the run is over); tasks/cancel; and the refusals — an unknown task id or another org's
 * (invalid params), a tool that is no task (method not found), bad arguments, a missing scope.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { RELATED_TASK } from '../../../src/platform/mcp/tasks.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok, refusal } from '../../helpers/mcp.js';
import { createMission, createTeam } from '../../helpers/missions.js';
import { setupReviewOrg } from '../../helpers/reviews.js';
import { startTask, taskReaching } from '../../helpers/tasks.js';

let t: TestApp;
let owner: CreatedToken;
let mcp: Client;
let other: Client;
const clients: Client[] = [];

async function client(token: string): Promise<Client> {
  const c = await connectHttp(t.url, token);
  clients.push(c);
  return c;
}

async function decide(kind: string, id: number, action: 'approve' | 'reject', reason?: string) {
  const res = await t.request('POST', '/api/v1/reviews/decide', {
    token: owner.token,
    body: { kind, id, action, ...(reason ? { reason } : {}) },
  });
  expect(res.status, res.text).toBe(200);
}

const result = (client: Client, taskId: string) =>
  client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);

beforeAll(async () => {
  t = await startTestApp();
  ({ owner } = await setupReviewOrg(t, 'acme'));
  await createTeam(t, owner.token, ['lead']);
  await createMission(t, owner.token, 'launch', ['lead'], { review: 'plan' });
  const foreign = await t.token({ org: 'other', scopes: ALL_SCOPES });
  mcp = await client(owner.token);
  other = await client(foreign.token);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

describe('advertising', () => {
  it('initialize advertises tasks for tools/call and cancel; three tools take them', async () => {
    expect(mcp.getServerCapabilities()?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await mcp.listTools();
    const tasked = tools
      .filter((tool) => tool.execution?.taskSupport === 'optional')
      .map((tool) => tool.name);
    expect(tasked.sort()).toEqual(['mission_start', 'runtime_run_skill', 'runtime_run_workflow']);
    expect(tools.filter((tool) => tool.execution !== undefined)).toHaveLength(3);
  });
});

describe('a skill run as a task', () => {
  it('answers the task at once; tasks/result waits for the run and gives the tool result', async () => {
    const task = await startTask(mcp, 'runtime_run_skill', { slug: 'echoer', input: { text: 'hi' } });
    expect(task).toEqual({
      taskId: expect.stringMatching(/^run-\d+$/),
      status: 'working',
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttl: null,
      pollInterval: 1000,
    });
    const runId = Number(task.taskId.slice('run-'.length));
    const answer = await result(mcp, task.taskId);
    expect(answer._meta?.[RELATED_TASK]).toEqual({ taskId: task.taskId });
    expect(answer.isError).toBeUndefined();
    expect(answer.structuredContent).toMatchObject({ runId, status: 'completed', output: { text: '<hi>' } });
    expect(JSON.parse((answer.content[0] as { text: string }).text)).toEqual(answer.structuredContent);
    const done = await mcp.experimental.tasks.getTask(task.taskId);
    expect(done.status).toBe('completed');
    expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    // The run is the task: REST sees it.
    const rest = await t.request('GET', `/api/v1/runs/${runId}`, { token: owner.token });
    expect(rest.body).toMatchObject({ status: 'completed', createdBy: `token:${owner.id}` });
  });

  it('is input_required while the draft waits for review (with its link), completed once approved', async () => {
    const task = await startTask(mcp, 'runtime_run_skill', { slug: 'gated', input: { text: 'x' } });
    const runId = Number(task.taskId.slice('run-'.length));
    const waiting = await taskReaching(mcp, task.taskId, 'input_required');
    expect(waiting.statusMessage).toBe(`The draft waits for review: ${t.url}/review/runs/${runId}`);
    // tasks/result waits through the review.
    const pending = result(mcp, task.taskId);
    await decide('skill', runId, 'approve');
    const answer = await pending;
    expect(answer.structuredContent).toMatchObject({ runId, status: 'approved', output: expect.anything() });
    expect((await mcp.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
  });

  it('is failed once the draft is rejected, the reason in its message', async () => {
    const task = await startTask(mcp, 'runtime_run_skill', { slug: 'gated', input: { text: 'x' } });
    const runId = Number(task.taskId.slice('run-'.length));
    await taskReaching(mcp, task.taskId, 'input_required');
    await decide('skill', runId, 'reject', 'too vague');
    const failed = await taskReaching(mcp, task.taskId, 'failed');
    expect(failed.statusMessage).toBe('Rejected in review: too vague');
    expect((await result(mcp, task.taskId)).structuredContent).toMatchObject({ runId, status: 'rejected' });
  });

  it('is failed when the run fails, with its error', async () => {
    const task = await startTask(mcp, 'runtime_run_skill', { slug: 'gated-strict', input: { text: 'x' } });
    const failed = await taskReaching(mcp, task.taskId, 'failed');
    expect(failed.statusMessage).toMatch(/^OUTPUT_INVALID: /);
    expect((await result(mcp, task.taskId)).structuredContent).toMatchObject({
      status: 'failed',
      error: { code: 'OUTPUT_INVALID' },
    });
  });
});

describe('runtime_run_workflow without a task', () => {
  it('waits until the run leaves running: paused at its gate, with the review link', async () => {
    const answer = await ok(mcp, 'runtime_run_workflow', { slug: 'gate-first', input: {} });
    expect(answer).toMatchObject({
      runId: expect.any(Number),
      status: 'paused',
      output: null,
      reviewUrl: `${t.url}/review/runs/${answer.runId}`,
    });
    await fails(mcp, 'runtime_run_workflow', { slug: 'nope', input: {} }, 'NOT_FOUND');
    const bad = await fails(mcp, 'runtime_run_workflow', { input: {} }, 'VALIDATION_FAILED');
    expect(bad.details.issues[0].field).toBe('arguments.slug');
  });
});

describe('a workflow run as a task', () => {
  it('is input_required at a gate; tasks/cancel cancels the run; a second cancel is refused', async () => {
    const task = await startTask(mcp, 'runtime_run_workflow', { slug: 'gate-first', input: {} });
    const runId = Number(task.taskId.slice('run-'.length));
    const waiting = await taskReaching(mcp, task.taskId, 'input_required');
    expect(waiting.statusMessage).toBe(`Paused for review: ${t.url}/review/runs/${runId}`);
    const cancelled = await mcp.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    const rest = await t.request('GET', `/api/v1/runs/${runId}`, { token: owner.token });
    expect(rest.body.status).toBe('cancelled');
    const again = await refusal(mcp.experimental.tasks.cancelTask(task.taskId));
    expect(again.code).toBe(ErrorCode.InvalidParams);
    expect(again.data).toEqual({ taskId: task.taskId, status: 'cancelled' });
    expect((await result(mcp, task.taskId)).structuredContent).toMatchObject({ runId, status: 'cancelled' });
  });

  it('runs through to completed once its gate is approved', async () => {
    const task = await startTask(mcp, 'runtime_run_workflow', { slug: 'gate-first', input: {} });
    const runId = Number(task.taskId.slice('run-'.length));
    await taskReaching(mcp, task.taskId, 'input_required');
    await decide('workflow', runId, 'approve');
    await taskReaching(mcp, task.taskId, 'completed');
    expect((await result(mcp, task.taskId)).structuredContent).toMatchObject({
      runId,
      status: 'completed',
      output: { text: '<x>' },
    });
  });
});

describe('a mission run as a task', () => {
  it('is input_required while its plan waits for review, completed after approval', async () => {
    const task = await startTask(mcp, 'mission_start', { missionSlug: 'launch', input: { product: 'Owl' } });
    expect(task.taskId).toMatch(/^mission-\d+$/);
    const id = Number(task.taskId.slice('mission-'.length));
    const waiting = await taskReaching(mcp, task.taskId, 'input_required');
    expect(waiting.statusMessage).toBe(`The plan waits for review: ${t.url}/review/missions/${id}`);
    await decide('mission', id, 'approve');
    await taskReaching(mcp, task.taskId, 'completed');
    expect((await result(mcp, task.taskId)).structuredContent).toEqual({
      missionRunId: id,
      status: 'completed',
    });
  });
});

describe('refusals', () => {
  it('an unknown task id, a malformed one or another org’s is invalid params, for get, result and cancel', async () => {
    const mine = await startTask(mcp, 'runtime_run_skill', { slug: 'echoer', input: { text: 'own' } });
    for (const taskId of ['run-999999', 'mission-999999', 'nope', 'run-0', 'run-abc', 'job-1', mine.taskId]) {
      const asker = taskId === mine.taskId ? other : mcp;
      for (const request of [
        () => asker.experimental.tasks.getTask(taskId),
        () => result(asker, taskId),
        () => asker.experimental.tasks.cancelTask(taskId),
      ]) {
        const error = await refusal(request());
        expect(error.code, taskId).toBe(ErrorCode.InvalidParams);
        expect(error.data).toEqual({ taskId });
      }
    }
  });

  it('a tool that is no task, or an unknown tool, called as one is method not found; tasks/list is not served', async () => {
    for (const name of ['runtime_get_run', 'no_such_tool']) {
      const error = await refusal(startTask(mcp, name, { runId: 1 }));
      expect(error.code, name).toBe(ErrorCode.MethodNotFound);
      expect(error.data).toEqual({ tool: name });
    }
    expect((await refusal(mcp.experimental.tasks.listTasks())).code).toBe(ErrorCode.MethodNotFound);
  });

  it('bad arguments or an unknown skill are invalid params with REST’s error; nothing is started', async () => {
    const before = await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from runs');
    const missing = await refusal(startTask(mcp, 'runtime_run_skill', { input: {} }));
    expect(missing.code).toBe(ErrorCode.InvalidParams);
    expect(missing.data).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { issues: [{ field: 'arguments.slug' }] },
    });
    const unknown = await refusal(startTask(mcp, 'runtime_run_skill', { slug: 'nope', input: {} }));
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.data).toMatchObject({ code: 'NOT_FOUND' });
    const mission = await refusal(startTask(mcp, 'mission_start', { missionSlug: 'launch', goal: 'both' }));
    expect(mission.data).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { issues: [{ field: 'arguments.missionSlug' }] },
    });
    const after = await t.app.db.sql.one<{ n: number }>('select count(*)::int as n from runs');
    expect(after.n).toBe(before.n);
  });

  it('a token without run:invoke cannot start one, without read:all cannot read one', async () => {
    const reader = await t.token({ org: 'acme', user: 'reader', scopes: ['read:all'] });
    const readerMcp = await client(reader.token);
    const forbidden = await refusal(startTask(readerMcp, 'runtime_run_skill', { slug: 'echoer', input: {} }));
    expect(forbidden.code).toBe(ErrorCode.InvalidRequest);
    expect(forbidden.data).toMatchObject({ code: 'FORBIDDEN' });
    const invoker = await t.token({ org: 'acme', user: 'invoker', scopes: ['run:invoke'] });
    const invokerMcp = await client(invoker.token);
    const task = await startTask(invokerMcp, 'runtime_run_skill', { slug: 'echoer', input: { text: 'i' } });
    const unread = await refusal(invokerMcp.experimental.tasks.getTask(task.taskId));
    expect(unread.code).toBe(ErrorCode.InvalidRequest);
    expect(unread.data).toMatchObject({ code: 'FORBIDDEN', details: { requiredScope: ['read:all'] } });
    // A reader may read it, but not cancel it.
    await taskReaching(readerMcp, task.taskId, 'completed');
    const noCancel = await refusal(readerMcp.experimental.tasks.cancelTask(task.taskId));
    expect(noCancel.code).toBe(ErrorCode.InvalidRequest);
    expect(noCancel.data).toMatchObject({ code: 'FORBIDDEN', details: { requiredScope: ['run:invoke'] } });
  });
});
