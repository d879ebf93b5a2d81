/**
 * Reads that concurrent requests share (one statement per batch): runs by id and applied skills, and
 * the runs of jobs that start together (but a mission's child run's, read alone). A batch mixing orgs must still answer each request within
 * its own org: another org's id or slug is 404, even when the same batch reads it for its owner.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRunReader } from '../../../src/features/runs/view.js';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill } from '../../helpers/resources.js';
import { orgIdOf, stepExecutorQueue } from '../../helpers/runs.js';
import { countingSql } from '../../helpers/sql.js';
import { waitFor } from '../../helpers/wait.js';

let t: TestApp;
let red: CreatedToken;
let blue: CreatedToken;

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  red = await t.token({ org: 'red', scopes: ALL_SCOPES });
  blue = await t.token({ org: 'blue', scopes: ALL_SCOPES });
  await createSkill(t, red.token, { slug: 'shared-name' }, 'red {{input.x}}');
  await createSkill(t, blue.token, { slug: 'shared-name' }, 'blue {{input.x}}');
  await createSkill(t, red.token, { slug: 'red-only' }, 'red only');
});
afterAll(() => t.close());

const trigger = (token: string, slug: string) =>
  t.request('POST', `/api/v1/skills/${slug}/runs`, { token, body: { input: { x: 'y' } } });

describe('concurrent triggers', () => {
  it("resolve each org's own skill of a shared slug, and 404 another org's", async () => {
    const answers = await Promise.all([
      trigger(red.token, 'shared-name'),
      trigger(blue.token, 'shared-name'),
      trigger(blue.token, 'red-only'),
      trigger(red.token, 'red-only'),
      trigger(red.token, 'shared-name'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([202, 202, 404, 202, 202]);
    const runs = await Promise.all(
      [0, 1, 3, 4].map((i) => {
        const token = i === 1 ? blue.token : red.token;
        return t.request('GET', `/api/v1/runs/${answers[i]?.body.runId}`, { token });
      }),
    );
    expect(runs.map((r) => [r.status, r.body.slug])).toEqual([
      [200, 'shared-name'],
      [200, 'shared-name'],
      [200, 'red-only'],
      [200, 'shared-name'],
    ]);
    // The runs recorded the manifest of their own org's skill.
    const prompts = await t.app.db.sql.query<{ id: number; prompt: string }>(
      `select id, manifest->'skill'->>'promptMd' as prompt from runs where id = any($1::bigint[]) order by id`,
      [[answers[0]?.body.runId, answers[1]?.body.runId]],
    );
    expect(prompts.map((p) => p.prompt).sort()).toEqual(['blue {{input.x}}', 'red {{input.x}}']);
  });
});

describe('concurrent run reads', () => {
  it("answer each caller's own runs and 404 the other org's, in one batch", async () => {
    const mine = await trigger(red.token, 'red-only');
    const theirs = await trigger(blue.token, 'shared-name');
    const reads = await Promise.all([
      t.request('GET', `/api/v1/runs/${mine.body.runId}`, { token: red.token }),
      t.request('GET', `/api/v1/runs/${mine.body.runId}`, { token: blue.token }),
      t.request('GET', `/api/v1/runs/${theirs.body.runId}`, { token: blue.token }),
      t.request('GET', `/api/v1/runs/${theirs.body.runId}`, { token: red.token }),
      t.request('GET', '/api/v1/runs/999999999', { token: red.token }),
    ]);
    expect(reads.map((r) => r.status)).toEqual([200, 404, 200, 404, 404]);
    expect(reads[1]?.body.error.code).toBe('NOT_FOUND');
  });

  it('reads a batch of keys, duplicates and misses included, in one statement', async () => {
    const redOrg = await orgIdOf(t.app, 'red');
    const blueOrg = await orgIdOf(t.app, 'blue');
    const run = await trigger(red.token, 'red-only');
    const id = run.body.runId as number;
    const counting = countingSql(t.app.db.sql);
    const reader = createRunReader(counting.sql, () => t.app.config.baseUrl);
    const rows = await Promise.all([
      reader.load({ orgId: redOrg, id }),
      reader.load({ orgId: blueOrg, id }),
      reader.load({ orgId: redOrg, id }),
      reader.load({ orgId: redOrg, id: id + 10_000 }),
    ]);
    expect(rows.map((r) => (r === null ? null : JSON.parse(r).id))).toEqual([id, null, id, null]);
    expect(counting.statements).toHaveLength(1);
  });
});

describe('the runs of jobs claimed together', () => {
  it("are read in one statement, each run its own org's, and executed", async () => {
    // Queued here (no workers), executed by a second process on the same database: its first claim
    // takes every queued job, runs of both orgs (and of the tests above) together.
    const mine = await Promise.all([
      trigger(red.token, 'red-only'),
      trigger(blue.token, 'shared-name'),
      trigger(red.token, 'shared-name'),
    ]);
    expect(mine.map((a) => a.status)).toEqual([202, 202, 202]);
    const queued = (
      await t.app.db.sql.query<{ id: number }>(`select id from runs where status = 'running' order by id`)
    ).map((r) => r.id);
    expect(queued.length).toBeGreaterThan(3);
    // One job as a mission's child run's carries it (run-kinds.ts `jobsPayload`): its run is read alone.
    const alone = queued[1];
    await t.app.db.sql.query(
      `update jobs set payload = payload || '{"missionRunId": 1}'::jsonb
        where kind = 'execute_step' and (payload->>'actorId')::bigint = $1`,
      [alone],
    );
    const statements = vi.spyOn(pg.Client.prototype, 'query');
    let sent: unknown[][] = [];
    const worker = await startTestApp({ R3_WORKER_CONCURRENCY: '32' }, { database: t.database });
    try {
      await waitFor(
        async () =>
          (
            await t.app.db.sql.query(
              `select 1 from runs where status <> 'completed' and id = any($1::bigint[])`,
              [queued],
            )
          ).length === 0,
        'every queued run completed',
        15_000,
      );
    } finally {
      await worker.close();
      sent = [...statements.mock.calls];
      statements.mockRestore();
    }
    const loads = sent
      .map(([query]) => query as unknown as { name?: string; values?: unknown[] })
      .filter((query) => query?.name === 'execute_step_load')
      .map((query) => query.values?.[0] as number[]);
    // Each run read once, and fewer statements than runs: the claim's runs went together.
    expect(loads.flat().toSorted((a, b) => a - b)).toEqual(queued);
    expect(loads.length).toBeLessThan(queued.length);
    expect(loads.filter((ids) => ids.includes(alone as number))).toEqual([[alone]]);
    // Each executed its own org's skill (the echo provider answers with the rendered prompt).
    const outputs = await Promise.all(
      mine.map((a, i) =>
        t.request('GET', `/api/v1/runs/${a.body.runId}`, { token: i === 1 ? blue.token : red.token }),
      ),
    );
    expect(outputs.map((o) => [o.body.status, JSON.stringify(o.body.output)])).toEqual([
      ['completed', expect.stringContaining('red only')],
      ['completed', expect.stringContaining('blue y')],
      ['completed', expect.stringContaining('red y')],
    ]);
  });
});

describe('held workers', () => {
  it("still read a claim's runs in one statement", async () => {
    // The app's own pool held (src/platform/jobs/hold.ts), as a serving process's signal holds it:
    // on their one connection, held workers read a claim's runs together, not one statement each.
    const queue = stepExecutorQueue(t);
    const reads = vi.spyOn(t.app.db.sql, 'prepared');
    try {
      const answers = await Promise.all([1, 2, 3].map(() => trigger(red.token, 'red-only')));
      expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
      reads.mockClear();
      // Long enough to outlast the claim and its jobs (the file's last test: nothing after it runs held).
      t.app.db.holdJobs(30_000);
      const jobs = await queue.claim('held-worker', 100);
      expect(jobs).toHaveLength(3);
      expect(await Promise.all(jobs.map((job) => queue.process(job, 'held-worker')))).toEqual([
        'completed',
        'completed',
        'completed',
      ]);
      const loads = reads.mock.calls
        .filter(([name]) => name === 'execute_step_load')
        .map(([, , params]) => (params?.[0] as number[] | undefined)?.length);
      expect(loads).toEqual([3]);
    } finally {
      reads.mockRestore();
      await queue.stop();
    }
  });
});
