/**
 * Crash safety of step execution: a job whose worker died is finished by another worker once its
 * lease expires, and however many workers execute a step, exactly one result is recorded and reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTE_STEP_JOB } from '../../../src/features/runs/execute-step.js';
import type { Job, JobQueue } from '../../../src/platform/jobs/queue.js';
import type { CompletionRequest, ModelProvider } from '../../../src/platform/models/model-provider.js';
import type { ModelProviderRegistry } from '../../../src/platform/models/providers/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkillRun, orgIdOf, stepExecutorQueue } from '../../helpers/runs.js';
import { type Deferred, deferred } from '../../helpers/wait.js';

const LEASE_MS = 60_000;

let t: TestApp;
let org: number;
let queue: JobQueue;
/** Completions made, and a gate per call number that holds that call until released. */
const calls: CompletionRequest[] = [];
const gates = new Map<number, Deferred<void>>();
let failWith: Error | null = null;

const provider: ModelProvider = {
  name: 'scripted',
  async complete(request) {
    calls.push(request);
    const n = calls.length;
    await gates.get(n)?.promise;
    if (failWith) throw failWith;
    return { text: `answer ${n}`, model: 'scripted' };
  },
};
const providers: ModelProviderRegistry = { defaultName: 'echo', available: ['echo'], get: () => provider };

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  await t.token();
  org = await orgIdOf(t.app);
  queue = stepExecutorQueue(t, { providers, leaseMs: LEASE_MS });
});
afterAll(() => t.close());

async function facts(runId: number) {
  const sql = t.app.db.sql;
  const run = await sql.one<{ status: string; output: unknown; error: unknown }>(
    'select status, output, error from runs where id = $1',
    [runId],
  );
  const events = await sql.query<{ event: string }>(
    'select event from run_events where run_id = $1 order by seq',
    [runId],
  );
  const executions = await sql.query<{ attempt: number; output: unknown; finished_at: Date | null }>(
    'select attempt, output, finished_at from step_executions where run_id = $1',
    [runId],
  );
  const jobs = await sql.query(`select id from jobs where payload->>'actorId' = $1`, [String(runId)]);
  return { run, events: events.map((e) => e.event), executions, jobs: jobs.length };
}

function reset(): void {
  calls.length = 0;
  gates.clear();
  failWith = null;
}

describe('a worker that dies', () => {
  it('before executing: another worker finishes the job after the lease, once', async () => {
    reset();
    const { actor } = await createSkillRun(t.app, org);
    const [job] = await queue.claim('worker-a', 10);
    expect(job).toBeDefined();
    expect(await queue.runOnce({ workerId: 'worker-b' })).toBe(0);
    t.clock.advance(LEASE_MS);
    expect(await queue.runOnce({ workerId: 'worker-b' })).toBe(1);
    const f = await facts(actor.row.id);
    expect(f.run).toMatchObject({ status: 'completed', output: { text: 'answer 1' } });
    expect(f.events).toEqual(['started', 'step_started', 'step_completed', 'completed']);
    expect(f.executions).toHaveLength(1);
    expect(f.jobs).toBe(0);
    expect(calls).toHaveLength(1);
  });

  it('mid-execution (lease lost): the step runs twice but only the first recorded result counts', async () => {
    reset();
    const { actor } = await createSkillRun(t.app, org);
    const held = deferred();
    gates.set(1, held);
    const [job] = await queue.claim('worker-a', 10);
    // A starts executing and hangs inside the provider call.
    const slow = queue.process(job as Job, 'worker-a');
    while (calls.length < 1) await new Promise((resolve) => setImmediate(resolve));
    t.clock.advance(LEASE_MS);
    // B re-claims the expired job, executes and records its result.
    expect(await queue.runOnce({ workerId: 'worker-b' })).toBe(1);
    let f = await facts(actor.row.id);
    expect(f.run).toMatchObject({ status: 'completed', output: { text: 'answer 2' } });
    // A wakes up: its result is not recorded, the run's is re-sent and refused, the job is not A's.
    held.resolve();
    expect(await slow).toBe('lost');
    f = await facts(actor.row.id);
    expect(f.run).toMatchObject({ status: 'completed', output: { text: 'answer 2' } });
    expect(f.events).toEqual(['started', 'step_started', 'step_completed', 'completed']);
    expect(f.executions).toEqual([expect.objectContaining({ attempt: 1, output: { text: 'answer 2' } })]);
    expect(f.jobs).toBe(0);
    expect(calls).toHaveLength(2);
  });

  it('after recording: a re-run of the job re-sends the recorded result instead of executing', async () => {
    reset();
    const { actor } = await createSkillRun(t.app, org);
    expect(await queue.drain()).toBe(1);
    // The same job again (as after a crash between commit and anything else): nothing executes.
    await queue.enqueue(t.app.db.sql, {
      kind: EXECUTE_STEP_JOB,
      orgId: org,
      payload: { actorKind: 'skill-run', actorId: actor.row.id, orgId: org, step: 'summarize', attempt: 1 },
    });
    expect(await queue.drain()).toBe(1);
    const f = await facts(actor.row.id);
    expect(calls).toHaveLength(1);
    expect(f.events).toEqual(['started', 'step_started', 'step_completed', 'completed']);
    expect(f.executions).toHaveLength(1);
  });
});

describe('a step that cannot be executed', () => {
  it('fails the run with EXECUTION_FAILED once the job is out of attempts', async () => {
    reset();
    failWith = new TypeError('the executor itself broke');
    const { actor } = await createSkillRun(t.app, org);
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect(await queue.runOnce()).toBe(1);
      t.clock.advance(3_600_000);
    }
    const f = await facts(actor.row.id);
    expect(f.run.status).toBe('failed');
    expect(f.run.error).toMatchObject({ code: 'EXECUTION_FAILED' });
    expect(f.events).toEqual(['started', 'step_started', 'failed']);
    expect(calls).toHaveLength(5);
  });

  it('fails the run with PROVIDER_ERROR at once when the provider refuses', async () => {
    reset();
    const { ProviderError } = await import('../../../src/platform/models/model-provider.js');
    failWith = new ProviderError('PROVIDER_ERROR', 'upstream said no', { status: 400 });
    const { actor } = await createSkillRun(t.app, org);
    expect(await queue.drain()).toBe(1);
    const f = await facts(actor.row.id);
    expect(f.run).toMatchObject({
      status: 'failed',
      error: { code: 'PROVIDER_ERROR', message: 'upstream said no' },
    });
  });
});
