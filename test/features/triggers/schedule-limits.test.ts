/**
 * Issue 36 #6, as the attacker did it: a workflow on cron `* * * * * *` with an approve step made
 * 891 open review items in 15 minutes, and a 2,000-character cron was accepted. Now (docs/api.md
 * "Workflow triggers"): a trigger fires at most once per minimum interval (1 minute unless the org
 * has its own, `r3 org schedules`), a due time at which the trigger's runs hold the cap of open review
 * items starts no run and is recorded as skipped, and a cron is at most 400 characters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Callers, callers, fields, orgIdOf } from '../../helpers/api.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { runCli } from '../../helpers/process.js';
import { createWorkflow } from '../../helpers/resources.js';

const START = Date.parse('2026-03-02T10:00:00.500Z');
let t: TestApp;
let c: Callers;
let orgId: number;

beforeAll(async () => {
  // No background workers: the test runs the due jobs itself (jobs.drain) at the clock it sets.
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' }, { now: START });
  c = await callers(t, 'floor-org');
  orgId = await orgIdOf(t, 'floor-org');
});
afterAll(async () => {
  await t?.close();
});

const gate = [{ name: 'gate', type: 'approve' }];
const everySecond = (slug: string, token = c.writer) =>
  createWorkflow(t, token, { slug, trigger: { type: 'schedule', cron: '* * * * * *' }, steps: gate });

/** Moves the clock by `ms` and runs the due jobs. */
async function tick(ms: number) {
  t.clock.advance(ms);
  await t.app.jobs.drain();
}

async function runsOf(slug: string) {
  const res = await t.request('GET', `/api/v1/runs?workflowSlug=${slug}&limit=200`, { token: c.reader });
  expect(res.status).toBe(200);
  return (res.body.runs as Array<{ id: string; createdAt: string; status: string }>).reverse();
}

const fires = (slug: string) =>
  t.app.db.sql.query<{ fire_key: string; run_id: number | null; error: string | null }>(
    `select fire_key, run_id, error from workflow_trigger_fires where org_id = $1 and workflow_slug = $2
      order by fire_key`,
    [orgId, slug],
  );

const cli = (...args: string[]) => runCli(['org', 'schedules', ...args], { DATABASE_URL: t.database.url });

describe('a cron expression', () => {
  it('is at most 400 characters: a longer one is 400 VALIDATION_FAILED naming the cron, nothing written', async () => {
    const minutes = Array.from({ length: 60 }, (_, i) => i).join(',');
    const long = `${minutes},${minutes},${minutes},${minutes},${minutes},${minutes},${minutes},${minutes},${minutes} * * * *`;
    expect(long.length).toBeGreaterThan(1_000);
    for (const cron of [long, `${'0,'.repeat(200)}0 * * * *`]) {
      const res = await t.request('POST', '/api/v1/workflows', {
        token: c.writer,
        body: { slug: 'long-cron', name: 'Long', trigger: { type: 'schedule', cron }, steps: gate },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.error.details)).toContain('at most 400 characters');
      expect(fields(res.body)).toEqual(['body.trigger.cron']);
    }
    expect((await t.request('GET', '/api/v1/workflows/long-cron', { token: c.reader })).status).toBe(404);
    // 400 characters exactly is a cron like any other.
    const fits = `${'0,'.repeat(190)}0 * * * *`.padEnd(400, ' ').trimEnd();
    expect(fits.length).toBeLessThanOrEqual(400);
    await createWorkflow(t, c.writer, {
      slug: 'fits',
      trigger: { type: 'schedule', cron: fits },
      steps: gate,
    });
  });
});

const scheduleJob = (slug: string) =>
  t.app.db.sql.maybeOne<{ payload: { dueAt: string } }>(
    `select payload from jobs where kind = 'workflow-schedule' and key = $1`,
    [`workflow-schedule:${orgId}:${slug}`],
  );

describe('a schedule trigger’s floor', () => {
  it('fires a cron of every second at most once a minute by default', async () => {
    await everySecond('flood');
    for (let i = 0; i < 12; i++) await tick(10_000); // two minutes: 120 due times
    expect((await runsOf('flood')).map((r) => r.createdAt)).toEqual([
      '2026-03-02T10:00:10.500Z',
      '2026-03-02T10:01:10.500Z',
    ]);
    // The due times between are passed over (no run, no record); the next one waits for the floor.
    expect((await fires('flood')).map((f) => f.fire_key)).toEqual([
      'schedule:2026-03-02T10:00:10.000Z',
      'schedule:2026-03-02T10:01:10.000Z',
    ]);
    expect((await scheduleJob('flood'))?.payload.dueAt).toBe('2026-03-02T10:02:10.000Z');
  });

  it('is the org’s own when set (r3 org schedules), and the deployment’s again with default', async () => {
    const set = await cli('--org', 'floor-org', '--min-interval', '5s', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      org: 'floor-org',
      scheduleMinIntervalMs: 5_000,
      scheduleMaxOpenReviews: null,
    });
    await tick(10_000); // 10:02:10.5: the job queued under the old floor fires
    const before = (await runsOf('flood')).length;
    for (let i = 0; i < 10; i++) await tick(1_000);
    // Ten seconds later: two more, five seconds apart.
    expect((await runsOf('flood')).length).toBe(before + 2);
    const keys = (await fires('flood')).map((f) => Date.parse(f.fire_key.slice('schedule:'.length)));
    for (let i = 1; i < keys.length; i++)
      expect((keys[i] ?? 0) - (keys[i - 1] ?? 0)).toBeGreaterThanOrEqual(5_000);
    expect((await cli('--org', 'floor-org', '--min-interval', 'default')).code).toBe(0);
    const row = await t.app.db.sql.one<{ ms: string | null }>(
      'select schedule_min_interval_ms::text as ms from orgs where id = $1',
      [orgId],
    );
    expect(row.ms).toBeNull();
    expect((await cli('--org', 'floor-org', '--min-interval', 'soon')).code).toBe(2);
    expect((await cli('--org', 'no-such-org', '--min-interval', '1s')).code).toBe(1);
    await t.request('PATCH', '/api/v1/workflows/flood', {
      token: c.writer,
      body: { trigger: { type: 'manual' } },
    });
  });
});

describe('a schedule trigger’s cap of open review items', () => {
  it('skips a due time while its runs hold the cap, recorded and audited, and fires again once one is decided', async () => {
    expect((await cli('--org', 'floor-org', '--min-interval', '1s', '--max-open-reviews', '2')).code).toBe(0);
    await everySecond('capped');
    await tick(1_000);
    await tick(1_000);
    const [first, second, ...more] = await runsOf('capped');
    expect(more).toEqual([]);
    expect([first?.status, second?.status]).toEqual(['paused', 'paused']);
    await tick(1_000);
    await tick(1_000);
    expect(await runsOf('capped')).toHaveLength(2);
    const recorded = await fires('capped');
    expect(recorded).toHaveLength(4);
    for (const skipped of recorded.slice(2)) {
      expect(skipped.run_id).toBeNull();
      expect(skipped.error).toBe("SKIPPED: the trigger's runs have 2 open review items (the cap is 2)");
    }
    const audits = await t.app.db.sql.query<{
      actor: string;
      target_id: string;
      details: Record<string, unknown>;
    }>(
      `select actor, target_id, details from audit_log where org_id = $1 and action = 'trigger.skipped' order by id`,
      [orgId],
    );
    expect(audits).toHaveLength(2);
    expect(audits[0]).toMatchObject({
      actor: 'trigger:schedule',
      target_id: 'capped',
      details: { openReviews: 2, maxOpenReviews: 2, cron: '* * * * * *' },
    });
    // A reviewer decides one: the next due time fires.
    const approved = await t.request('POST', `/api/v1/runs/${first?.id}/approve`, {
      token: c.writer,
      body: {},
    });
    expect(approved.status).toBe(200);
    await tick(1_000);
    expect(await runsOf('capped')).toHaveLength(3);
    await tick(1_000);
    expect(await runsOf('capped')).toHaveLength(3);
    // Another org's triggers are not counted against this one's.
    expect((await cli('--org', 'floor-org', '--max-open-reviews', '0', '--min-interval', '1s')).code).toBe(0);
    await tick(1_000);
    expect(await runsOf('capped')).toHaveLength(4);
  });
});
