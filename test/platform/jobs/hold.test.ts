/**
 * Workers that step back while a serving process's accepts are saturated (src/platform/jobs/hold.ts):
 * a serving process that runs no jobs signals `sig.jobs.hold` on NATS when a batch of its writes
 * reaches the creations' fill (`CREATION_FILL`), and a process that runs jobs then holds its job
 * workers' share of the pool to one connection (lanes.ts, "held"). Two r3 processes on one database
 * and one NATS, requests through their sockets.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CREATION_FILL } from '../../../src/platform/actors/registry.js';
import { HOLD_MS, JOBS_HOLD_SIGNAL } from '../../../src/platform/jobs/hold.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { deleteTestStreams, probeNats, randomTestPrefix, requireNats } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

const nats = await probeNats();

describe.skipIf(nats.skip)('workers that step back while the accepts are saturated (NATS)', () => {
  let database: TestDatabase;
  // Answers requests only (R3_WORKER_CONCURRENCY=0): it signals.
  let serving: TestApp;
  // Runs the jobs (and answers requests too): it holds, and never signals.
  let working: TestApp;
  let token: string;
  const signals: number[] = [];
  const prefix = randomTestPrefix('hold');

  beforeAll(async () => {
    requireNats(nats);
    database = await createTestDatabase();
    const env = { NATS_URL: nats.url, R3_BUS_PREFIX: prefix, R3_DB_POOL_SIZE: '10' };
    serving = await startTestApp({ ...env, R3_WORKER_CONCURRENCY: '0' }, { database });
    working = await startTestApp({ ...env, R3_WORKER_CONCURRENCY: '8' }, { database });
    await serving.app.bus.subscribe(JOBS_HOLD_SIGNAL, () => {
      signals.push(Date.now());
    });
    token = (await serving.token({ scopes: ['read:all', 'write:resources', 'run:invoke'] })).token;
    const skill = await serving.request('POST', '/api/v1/skills', {
      token,
      body: { manifest: { slug: 'echo', name: 'Echo' }, promptMd: 'Echo: {{input.text}}' },
    });
    expect(skill.status, skill.text).toBe(201);
  });

  afterAll(async () => {
    await working?.close();
    await serving?.close();
    await database?.drop();
    await deleteTestStreams(nats, [prefix]);
  });

  /** POSTs `count` runs to `app`, `together` at a time; their ids. */
  async function accept(app: TestApp, count: number, together: number): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < count; i += together) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(together, count - i) }, (_, j) =>
          app.request('POST', '/api/v1/skills/echo/runs', { token, body: { input: { text: `r${i + j}` } } }),
        ),
      );
      for (const answer of answers) {
        expect(answer.status, answer.text).toBe(202);
        ids.push(answer.body.runId as number);
      }
    }
    return ids;
  }

  /** Waits until every run of `ids` completed. */
  async function completed(ids: number[]): Promise<void> {
    const rows = () =>
      serving.app.db.sql.query<{ n: string }>(
        `select count(*) as n from runs where id = any($1) and status = 'completed'`,
        [ids],
      );
    await waitFor(
      async () => Number((await rows())[0]?.n) === ids.length,
      `${ids.length} runs completed`,
      30_000,
    );
  }

  it('holds the workers while the serving process is flooded, not while batches below the fill form', async () => {
    const hold = vi.spyOn(working.app.db, 'holdJobs');
    // One at a time: every creation goes out alone, nothing queues.
    await completed(await accept(serving, 12, 1));
    // A few at a time: they queue behind the statement in flight and go out together, in batches
    // that can never reach the fill — a load the accepts absorb, which must not hold the workers.
    const small = Math.min(8, CREATION_FILL - 1);
    await completed(await accept(serving, small * 8, small));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(signals).toEqual([]);
    expect(hold).not.toHaveBeenCalled();
    // 256 at once: while one creation statement is in flight the others queue, past the fill.
    const burst = await accept(serving, 512, 256);
    await waitFor(() => hold.mock.calls.length > 0, 'the working process held', 5_000);
    expect(signals.length).toBeGreaterThan(0);
    const calls = hold.mock.calls.map((call) => call[0]);
    expect(new Set(calls)).toEqual(new Set([HOLD_MS]));
    // Held is not stopped: the runs of the burst complete.
    await completed(burst);
    hold.mockRestore();
  });

  it('never signals from a process that runs jobs: its batches carry its own workers’ writes', async () => {
    const before = signals.length;
    await completed(await accept(working, 128, 64));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(signals.length).toBe(before);
  });
});
