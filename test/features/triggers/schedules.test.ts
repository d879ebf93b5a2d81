/**
 * `schedule` workflow triggers (docs/api.md "Workflow triggers") on the manual clock: a workflow starts on its cron from
 * its durable schedule (a job row), one run per due time; due times missed while nothing ran start one
 * run, for the last of them; the schedule follows the applied workspace (cron changed, trigger changed,
 * workflow deleted); a run that cannot start is recorded, not retried forever.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cronTimes } from '../../../src/features/triggers/cron-times.js';
import { type Callers, callers, orgIdOf } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { connectHttp, ok } from '../../helpers/mcp.js';
import { createWorkflow } from '../../helpers/resources.js';

const START = Date.parse('2026-03-02T10:00:30Z');
let t: TestApp;
let c: Callers;
let orgId: number;
let mcp: Client;

beforeAll(async () => {
  // No background workers: the test runs the due jobs itself (jobs.drain) at the clock it sets.
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0', R3_MCP_HTTP_AUTHORING: 'true' }, { now: START });
  c = await callers(t, 'sched-org');
  orgId = await orgIdOf(t, 'sched-org');
  mcp = await connectHttp(t.url, c.writer);
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
});

const gate = [{ name: 'gate', type: 'approve' }];
const at = (text: string) => t.clock.set(Date.parse(text));

/** Creates workflow `slug` on `cron` (one approve step) as `token`. */
const scheduled = (slug: string, cron: string, extra: Record<string, unknown> = {}, token = c.writer) =>
  createWorkflow(t, token, { slug, trigger: { type: 'schedule', cron }, steps: gate, ...extra });

/** The workflow's runs, oldest first, as GET /runs lists them. */
async function runsOf(slug: string, token = c.reader) {
  const res = await t.request('GET', `/api/v1/runs?workflowSlug=${slug}&limit=200`, { token });
  expect(res.status).toBe(200);
  return (
    res.body.runs as Array<{ id: number; createdBy: string; createdAt: string; input: unknown }>
  ).reverse();
}

const scheduleJob = (slug: string) =>
  t.app.db.sql.maybeOne<{ run_at: Date; payload: { cron: string; dueAt: string } }>(
    `select run_at, payload from jobs where kind = 'workflow-schedule' and key = $1`,
    [`workflow-schedule:${orgId}:${slug}`],
  );

const fires = (slug: string) =>
  t.app.db.sql.query<{ fire_key: string; run_id: number | null; error: string | null }>(
    `select fire_key, run_id, error from workflow_trigger_fires where org_id = $1 and workflow_slug = $2
      order by fire_key`,
    [orgId, slug],
  );

describe('cron evaluation', () => {
  it('reads five fields (minutes) or six (seconds first) in UTC; next is after, latest at or before', () => {
    const five = cronTimes('*/15 9-17 * * MON-FRI');
    expect(new Date(five.next(Date.parse('2026-03-02T10:00:30Z')) ?? 0).toISOString()).toBe(
      '2026-03-02T10:15:00.000Z',
    );
    expect(new Date(five.latest(Date.parse('2026-03-02T10:15:00Z')) ?? 0).toISOString()).toBe(
      '2026-03-02T10:15:00.000Z',
    );
    // Saturday 2026-03-07: the next due time is Monday 09:00 UTC.
    expect(new Date(five.next(Date.parse('2026-03-06T17:50:00Z')) ?? 0).toISOString()).toBe(
      '2026-03-09T09:00:00.000Z',
    );
    const six = cronTimes('*/10 * * * * *');
    expect(new Date(six.next(Date.parse('2026-03-02T10:00:30Z')) ?? 0).toISOString()).toBe(
      '2026-03-02T10:00:40.000Z',
    );
    expect(new Date(cronTimes('@daily').next(START) ?? 0).toISOString()).toBe('2026-03-03T00:00:00.000Z');
  });
});

describe('schedule triggers', () => {
  it('start one run per due time from the durable schedule, attributed to the trigger', async () => {
    await scheduled('every-5', '*/5 * * * *');
    expect(await scheduleJob('every-5')).toMatchObject({
      run_at: new Date('2026-03-02T10:05:00Z'),
      payload: { cron: '*/5 * * * *', dueAt: '2026-03-02T10:05:00.000Z' },
    });
    await t.app.jobs.drain();
    expect(await runsOf('every-5')).toEqual([]);

    at('2026-03-02T10:04:59.999Z');
    await t.app.jobs.drain();
    expect(await runsOf('every-5')).toEqual([]);

    at('2026-03-02T10:05:00.000Z');
    await t.app.jobs.drain();
    const [first, ...more] = await runsOf('every-5');
    expect(more).toEqual([]);
    expect(first).toMatchObject({
      createdBy: 'trigger:schedule',
      input: {},
      createdAt: '2026-03-02T10:05:00.000Z',
      status: 'paused',
    });
    expect(await fires('every-5')).toEqual([
      { fire_key: 'schedule:2026-03-02T10:05:00.000Z', run_id: first?.id, error: null },
    ]);
    const [audit] = await t.app.db.sql.query<{
      actor: string;
      api_token_id: string | null;
      details: unknown;
    }>(
      `select actor, api_token_id, details from audit_log where org_id = $1 and action = 'run.create' and target_id = $2`,
      [orgId, String(first?.id)],
    );
    expect(audit).toEqual({
      actor: 'trigger:schedule',
      api_token_id: null,
      details: {
        kind: 'workflow',
        slug: 'every-5',
        trigger: { type: 'schedule', cron: '*/5 * * * *', dueAt: '2026-03-02T10:05:00.000Z' },
      },
    });
    // The next due time is queued; running the jobs again at the same time starts nothing.
    expect((await scheduleJob('every-5'))?.payload.dueAt).toBe('2026-03-02T10:10:00.000Z');
    await t.app.jobs.drain();
    expect(await runsOf('every-5')).toHaveLength(1);

    at('2026-03-02T10:10:00.500Z');
    await t.app.jobs.drain();
    expect((await runsOf('every-5')).map((r) => r.createdAt)).toEqual([
      '2026-03-02T10:05:00.000Z',
      '2026-03-02T10:10:00.500Z',
    ]);
  });

  it('fires only the last of the due times missed while nothing ran, then goes on from now', async () => {
    // 10:15 … 10:40 are missed (six due times); one run starts, for 10:40.
    at('2026-03-02T10:42:10Z');
    await t.app.jobs.drain();
    const runs = await runsOf('every-5');
    expect(runs).toHaveLength(3);
    expect((await fires('every-5')).map((f) => f.fire_key)).toEqual([
      'schedule:2026-03-02T10:05:00.000Z',
      'schedule:2026-03-02T10:10:00.000Z',
      'schedule:2026-03-02T10:40:00.000Z',
    ]);
    expect((await scheduleJob('every-5'))?.payload.dueAt).toBe('2026-03-02T10:45:00.000Z');
  });

  it('a due time fires once even when its job runs again (a worker that lost its lease)', async () => {
    at('2026-03-02T10:45:00Z');
    const job = await t.app.db.sql.one<{ id: number; payload: unknown }>(
      `select id, payload from jobs where key = $1`,
      [`workflow-schedule:${orgId}:every-5`],
    );
    await t.app.jobs.drain();
    expect(await runsOf('every-5')).toHaveLength(4);
    // The same occurrence again, as a second worker whose claim overlapped would run it.
    await t.app.db.sql.query(
      `insert into jobs (id, org_id, kind, payload, key, run_at, max_attempts, created_at)
       values ($1, $2, 'workflow-schedule', $3::jsonb, null, $4, 5, $4)`,
      [job.id, orgId, JSON.stringify(job.payload), new Date('2026-03-02T10:45:00Z')],
    );
    await t.app.jobs.drain();
    expect(await runsOf('every-5')).toHaveLength(4);
    expect((await fires('every-5')).filter((f) => f.fire_key.includes('10:45'))).toHaveLength(1);
  });

  it('follows a changed cron at once, and stops when the trigger is no longer a schedule', async () => {
    const patch = await t.request('PATCH', '/api/v1/workflows/every-5', {
      token: c.writer,
      body: { trigger: { type: 'schedule', cron: '0 * * * *' } },
    });
    expect(patch.status).toBe(200);
    expect((await scheduleJob('every-5'))?.payload).toEqual({
      slug: 'every-5',
      cron: '0 * * * *',
      dueAt: '2026-03-02T11:00:00.000Z',
    });
    at('2026-03-02T10:50:00Z');
    await t.app.jobs.drain();
    expect(await runsOf('every-5')).toHaveLength(4);
    at('2026-03-02T11:00:00Z');
    await t.app.jobs.drain();
    expect(await runsOf('every-5')).toHaveLength(5);

    const manual = await t.request('PATCH', '/api/v1/workflows/every-5', {
      token: c.writer,
      body: { trigger: { type: 'manual' } },
    });
    expect(manual.status).toBe(200);
    expect(await scheduleJob('every-5')).toBeNull();
    at('2026-03-02T13:00:00Z');
    await t.app.jobs.drain();
    expect(await runsOf('every-5')).toHaveLength(5);
  });

  it('a deleted workflow stops firing; one added back starts again from now', async () => {
    await scheduled('hourly', '@hourly');
    at('2026-03-02T14:00:00Z');
    await t.app.jobs.drain();
    expect(await runsOf('hourly')).toHaveLength(1);

    await ok(mcp, 'workspace_delete', { kind: 'workflow', slug: 'hourly' });
    expect(await scheduleJob('hourly')).toBeNull();
    at('2026-03-02T16:00:00Z');
    await t.app.jobs.drain();
    // A sweep finds nothing to start for it either.
    expect(await t.app.sweepWorkflowSchedules()).toBe(0);
    at('2026-03-02T17:00:00Z');
    await t.app.jobs.drain();
    expect(await runsOf('hourly')).toHaveLength(1);

    await scheduled('hourly', '@hourly');
    expect((await scheduleJob('hourly'))?.payload.dueAt).toBe('2026-03-02T18:00:00.000Z');
  });

  it('a job held by its worker when the workflow goes ends the schedule without firing', async () => {
    await scheduled('held', '30 * * * *');
    at('2026-03-02T17:30:00Z');
    const [job] = await t.app.jobs.claim('other-worker', 100);
    expect(job?.kind).toBe('workflow-schedule');
    await ok(mcp, 'workspace_delete', { kind: 'workflow', slug: 'held' });
    // The claimed job survived the apply; its worker finds the workflow gone.
    expect(await scheduleJob('held')).not.toBeNull();
    expect(await t.app.jobs.process(job as NonNullable<typeof job>, 'other-worker')).toBe('completed');
    expect(await scheduleJob('held')).toBeNull();
    expect(await runsOf('held')).toEqual([]);
  });

  it('refuses at write time a schedule whose inputSchema refuses {}, the input of its runs', async () => {
    const res = await t.request('POST', '/api/v1/workflows', {
      token: c.writer,
      body: {
        slug: 'needs-input',
        name: 'Needs input',
        trigger: { type: 'schedule', cron: '45 * * * *' },
        inputSchema: { type: 'object', required: ['text'] },
        steps: gate,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([
      expect.objectContaining({
        field: 'body.inputSchema',
        message: expect.stringMatching(/schedule trigger starts runs with input \{\}.*text/),
      }),
    ]);
    expect(await scheduleJob('needs-input')).toBeNull();
  });

  it('records a due time whose run cannot start (a step skill not active) and goes on', async () => {
    const skill = await t.request('POST', '/api/v1/skills', {
      token: c.writer,
      body: { manifest: { slug: 'drafty', name: 'Drafty', status: 'draft' }, promptMd: 'Hi' },
    });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);
    await createWorkflow(t, c.writer, {
      slug: 'uses-draft',
      trigger: { type: 'schedule', cron: '45 * * * *' },
      steps: [{ name: 'draft', type: 'skill', skill: 'drafty' }],
    });
    at('2026-03-02T17:45:00Z');
    await t.app.jobs.drain();
    expect(await runsOf('uses-draft')).toEqual([]);
    const [fire] = await fires('uses-draft');
    expect(fire).toMatchObject({ fire_key: 'schedule:2026-03-02T17:45:00.000Z', run_id: null });
    expect(fire?.error).toMatch(/^CONFLICT: .*drafty/);
    expect((await scheduleJob('uses-draft'))?.payload.dueAt).toBe('2026-03-02T18:45:00.000Z');
  });

  it('schedules of other orgs are theirs: runs are in the org of the workflow only', async () => {
    await scheduled('every-5', '50 * * * *', {}, c.stranger);
    at('2026-03-02T17:50:00Z');
    await t.app.jobs.drain();
    expect(await runsOf('every-5', c.stranger)).toHaveLength(1);
    expect(await runsOf('every-5')).toHaveLength(5);
  });

  it('a sweep creates the schedule of a workflow applied without one (e.g. before this release)', async () => {
    await t.app.db.sql.query(`delete from jobs where key = $1`, [`workflow-schedule:${orgId}:hourly`]);
    expect(await t.app.sweepWorkflowSchedules()).toBe(1);
    expect((await scheduleJob('hourly'))?.payload.dueAt).toBe('2026-03-02T18:00:00.000Z');
    expect(await t.app.sweepWorkflowSchedules()).toBe(0);
  });
});
