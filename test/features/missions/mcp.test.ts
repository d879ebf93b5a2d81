/**
 * The missions group of MCP tools over streamable HTTP with the official SDK client: mission_list,
 * mission_start (slug and ad hoc), mission_list_runs, mission_get_run, mission_approve (approve
 * capability), mission_cancel, mission_promote (a workflow that then runs), with their errors.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, fails, ok } from '../../helpers/mcp.js';
import { createMission, createTeam, waitForMissionRun } from '../../helpers/missions.js';

let t: TestApp;
let c: Callers;
let mcp: Client;
let readerMcp: Client;

beforeAll(async () => {
  t = await startTestApp();
  c = await callers(t, 'mission-mcp');
  await createTeam(t, c.writer, ['lead', 'writer']);
  await createMission(t, c.writer, 'launch', ['lead', 'writer'], { review: 'both' });
  mcp = await connectHttp(t.url, c.writer);
  readerMcp = await connectHttp(t.url, c.reader);
});
afterAll(async () => {
  await mcp.close();
  await readerMcp.close();
  await t.close();
});

describe('missions over MCP', () => {
  it('lists the group, lists missions', async () => {
    const names = (await mcp.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'mission_list',
        'mission_start',
        'mission_list_runs',
        'mission_get_run',
        'mission_approve',
        'mission_cancel',
        'mission_promote',
      ]),
    );
    const list = await ok(mcp, 'mission_list');
    expect(list.missions).toEqual([
      expect.objectContaining({ slug: 'launch', planner: 'lead', review: 'both', team: expect.any(Array) }),
    ]);
  });

  it('start → approve the plan → approve the result → promote to a workflow that runs', async () => {
    const started = await ok(mcp, 'mission_start', { missionSlug: 'launch', input: { product: 'Owl' } });
    expect(started).toEqual({ missionRunId: expect.any(Number), status: 'planning' });
    const id = started.missionRunId as number;
    await waitForMissionRun(t, c.reader, id, ['awaiting_review']);
    const forbidden = await fails(readerMcp, 'mission_approve', { missionRunId: id }, 'FORBIDDEN');
    expect(forbidden.message).toBeTruthy();
    const early = await fails(mcp, 'mission_promote', { missionRunId: id, slug: 'owl-flow' }, 'CONFLICT');
    expect(early.details.status).toBe('awaiting_review');
    const planApproved = await ok(mcp, 'mission_approve', { missionRunId: id, note: 'plan ok' });
    expect(planApproved.status).toBe('executing');
    const result = await waitForMissionRun(t, c.reader, id, ['awaiting_review']);
    expect(result.reviewStage).toBe('result');
    const done = await ok(mcp, 'mission_approve', { missionRunId: id });
    expect(done.status).toBe('completed');
    await fails(mcp, 'mission_approve', { missionRunId: id }, 'CONFLICT');
    const got = await ok(readerMcp, 'mission_get_run', { missionRunId: id });
    expect(got).toMatchObject({ id, mission: 'launch', status: 'completed' });
    const runs = await ok(readerMcp, 'mission_list_runs', { status: 'completed' });
    expect(runs.missionRuns.map((r: { id: number }) => r.id)).toContain(id);

    const promoted = await ok(mcp, 'mission_promote', {
      missionRunId: id,
      slug: 'owl-flow',
      autoApply: true,
    });
    expect(promoted.workflow).toMatchObject({
      slug: 'owl-flow',
      name: 'Mission launch',
      steps: [
        { name: 'review-plan', type: 'approve' },
        { name: 'task-1', type: 'skill', skill: 'owl-flow-task-1' },
        {
          name: 'task-2',
          type: 'skill',
          skill: 'owl-flow-task-2',
          input: { previous: '## task-1\n{{steps.task-1.output}}' },
        },
        { name: 'review-result', type: 'approve' },
      ],
    });
    expect(promoted.written).toEqual([
      'skills/owl-flow-task-1/manifest.yaml',
      'skills/owl-flow-task-1/prompt.md',
      'skills/owl-flow-task-2/manifest.yaml',
      'skills/owl-flow-task-2/prompt.md',
      'workflows/owl-flow.yaml',
    ]);
    expect(promoted.commit).toBeTruthy();
    expect(promoted.apply).toBeTruthy();
    await fails(mcp, 'mission_promote', { missionRunId: id, slug: 'owl-flow' }, 'CONFLICT');

    const flow = await t.request('POST', '/api/v1/workflows/owl-flow/runs', {
      token: c.writer,
      body: { input: {} },
    });
    expect(flow.status).toBe(202);
    const runId = flow.body.runId as number;
    const waitFor = async (status: string) => {
      for (let i = 0; i < 200; i++) {
        const run = await t.request('GET', `/api/v1/runs/${runId}`, { token: c.reader });
        if (run.body.status === status) return run.body;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`workflow run ${runId} did not reach ${status}`);
    };
    await waitFor('paused');
    await t.request('POST', `/api/v1/runs/${runId}/approve`, { token: c.writer, body: {} });
    const paused = await waitFor('paused');
    expect(paused.pausedAt).toBe('review-result');
    expect(paused.stepResults['task-2'].output.text).toContain('Results this builds on:');
    await t.request('POST', `/api/v1/runs/${runId}/approve`, { token: c.writer, body: {} });
    await waitFor('completed');
  });

  it('promote without autoApply commits but does not apply', async () => {
    const started = await ok(mcp, 'mission_start', { team: ['writer'], goal: 'A one-liner' });
    const id = started.missionRunId as number;
    await waitForMissionRun(t, c.reader, id, ['awaiting_review']);
    await ok(mcp, 'mission_approve', { missionRunId: id });
    const promoted = await ok(mcp, 'mission_promote', { missionRunId: id, slug: 'one-liner' });
    expect(promoted.commit).toBeTruthy();
    expect(promoted.apply).toBeNull();
    expect((await t.request('GET', '/api/v1/workflows/one-liner', { token: c.reader })).status).toBe(404);
  });

  it('mission_start ad hoc and cancel; the errors', async () => {
    const started = await ok(mcp, 'mission_start', { team: ['lead', 'writer'], goal: 'Something' });
    const id = started.missionRunId as number;
    const cancelled = await ok(mcp, 'mission_cancel', { missionRunId: id, reason: 'no' });
    expect(cancelled.status).toBe('cancelled');
    await fails(mcp, 'mission_cancel', { missionRunId: id }, 'CONFLICT');
    await fails(mcp, 'mission_start', { missionSlug: 'ghost' }, 'NOT_FOUND');
    const both = await fails(mcp, 'mission_start', { missionSlug: 'launch', goal: 'x' }, 'VALIDATION_FAILED');
    expect(both.details.issues[0].field).toBe('arguments.missionSlug');
    const none = await fails(mcp, 'mission_start', { goal: 'x' }, 'VALIDATION_FAILED');
    expect(none.details.issues[0].field).toBe('arguments.team');
    const ghost = await fails(mcp, 'mission_start', { team: ['ghost'], goal: 'x' }, 'VALIDATION_FAILED');
    expect(ghost.details.issues[0].field).toBe('arguments.team.0.agent');
    await fails(readerMcp, 'mission_start', { team: ['lead'], goal: 'x' }, 'FORBIDDEN');
    await fails(readerMcp, 'mission_cancel', { missionRunId: id }, 'FORBIDDEN');
    const stranger = await connectHttp(t.url, c.stranger);
    try {
      await fails(stranger, 'mission_get_run', { missionRunId: id }, 'NOT_FOUND');
      await fails(stranger, 'mission_cancel', { missionRunId: id }, 'NOT_FOUND');
      await fails(stranger, 'mission_approve', { missionRunId: id }, 'NOT_FOUND');
      await fails(stranger, 'mission_promote', { missionRunId: id, slug: 'x' }, 'NOT_FOUND');
    } finally {
      await stranger.close();
    }
    await fails(readerMcp, 'mission_promote', { missionRunId: id, slug: 'x' }, 'FORBIDDEN');
  });
});
