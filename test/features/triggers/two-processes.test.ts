/**
 * A schedule across processes: two real `r3 serve` processes on one database both run job workers
 * that claim the workflow's schedule job; each due time starts one run, not two, and when one process
 * stops the other goes on firing. The cron is a six-field one (every second) so the test sees several
 * due times in a few seconds of real time.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { createCliToken, type ServeProcess, spawnServe } from '../../helpers/process.js';
import { waitFor } from '../../helpers/wait.js';

let database: TestDatabase;
let db: pg.Client;
let a: ServeProcess;
let b: ServeProcess;
let token: string;

/** A per-second cron fires every second: no floor, no cap (the defaults are 1 minute and 20 open items). */
const perSecond = { R3_SCHEDULE_MIN_INTERVAL: '0s', R3_SCHEDULE_MAX_OPEN_REVIEWS: '0' };

beforeAll(async () => {
  database = await createTestDatabase();
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  token = (await createCliToken(database.url, 'two-nodes')).token;
  [a, b] = await Promise.all([
    spawnServe({ DATABASE_URL: database.url, ...perSecond }),
    spawnServe({ DATABASE_URL: database.url, ...perSecond }),
  ]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.end();
  await database?.drop();
});

const count = async (text: string) => Number((await db.query(text)).rows[0]?.n ?? 0);
const runCount = () => count(`select count(*) as n from runs where slug = 'tick'`);

describe('a schedule on two r3 processes', () => {
  it('starts one run per due time, never two, and stops on both when its trigger goes', async () => {
    const created = await request(a.url, 'POST', '/api/v1/workflows', {
      token,
      body: {
        slug: 'tick',
        name: 'Tick',
        trigger: { type: 'schedule', cron: '* * * * * *' },
        steps: [{ name: 'gate', type: 'approve' }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitFor(async () => (await runCount()) >= 4, 'four scheduled runs', 60_000, 100);
    // The schedule is no process's: with one of them gone, the other goes on firing it.
    expect(await a.stop()).toBe(0);
    const before = await runCount();
    await waitFor(async () => (await runCount()) >= before + 3, 'three more runs from b', 60_000, 100);

    const stop = await request(b.url, 'PATCH', '/api/v1/workflows/tick', {
      token,
      body: { trigger: { type: 'manual' } },
    });
    expect(stop.status).toBe(200);
    // A job a worker held during the apply may still fire the due time it was claimed for.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const settled = await runCount();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await runCount()).toBe(settled);

    const runs = await db.query<{ created_by: string; due_at: string }>(
      `select r.created_by, a.details -> 'trigger' ->> 'dueAt' as due_at
         from runs r join audit_log a on a.action = 'run.create' and a.target_id = r.id::text
        where r.slug = 'tick' order by due_at`,
    );
    expect(runs.rows).toHaveLength(settled);
    expect(runs.rows.every((r) => r.created_by === 'trigger:schedule')).toBe(true);
    const dueTimes = runs.rows.map((r) => r.due_at);
    expect(new Set(dueTimes).size).toBe(dueTimes.length);
    // Every firing has its run, and no run lacks its firing.
    expect(
      await count(
        `select count(*) as n from workflow_trigger_fires where workflow_slug = 'tick' and run_id is not null`,
      ),
    ).toBe(settled);
    expect(await count(`select count(*) as n from jobs where kind = 'workflow-schedule'`)).toBe(0);
  });
});
