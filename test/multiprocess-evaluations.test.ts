/**
 * An evaluation across a crash (decisions.md §17): r3 as a child process starts an evaluation of 12
 * reviewed runs against the scripted fake OpenAI server and is killed (`kill -9`) once some shadow
 * runs have completed and others wait on the model mid-call; another r3 started in its place resumes
 * the rest and the evaluation completes — each original replayed by exactly one shadow run, none lost
 * and none duplicated, each shadow run completed once, and the model answered once per shadow run
 * (those completed before the crash were not executed again).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatBody, type FakeOpenAI, openaiEnv, startFakeOpenAI } from '../fakes/openai-server.js';
import { sharedDatabase } from './helpers/multiprocess.js';
import { createCliToken } from './helpers/process.js';
import { waitFor } from './helpers/wait.js';

const RUNS = 12;
/** Candidate answers given before the rest hang (until the process that asked is killed). */
const BEFORE_CRASH = 4;

const shared = sharedDatabase();
let fake: FakeOpenAI;
/** While true, candidate ("v2") requests past the first BEFORE_CRASH are never answered. */
let hanging = true;
/** The candidate answers sent, by the run's n. */
const answered = new Map<number, number>();

/** The scripted model: "v1 <n>" answers {reply: "r<n>"}; "v2 <n>" {reply: "r<n> (v2)"}, or hangs. */
function assistant(body: ChatBody) {
  const prompt = body.messages.map((m) => m.content ?? '').join('\n');
  const match = /v([12]) (\d+)/.exec(prompt);
  if (!match) return undefined;
  const [, version, n] = match;
  if (version === '1') return { content: JSON.stringify({ reply: `r${n}` }) };
  const sent = [...answered.values()].reduce((a, b) => a + b, 0);
  if (hanging && sent >= BEFORE_CRASH) return { hang: true as const };
  answered.set(Number(n), (answered.get(Number(n)) ?? 0) + 1);
  return { content: JSON.stringify({ reply: `r${n} (v2)` }) };
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-test', assistant });
  Object.assign(shared.env, openaiEnv(fake, { R3_WORKER_CONCURRENCY: '4' }));
});

afterAll(async () => {
  await fake?.close();
});

const count = async (sql: string, params: unknown[] = []) =>
  Number((await shared.db.query<{ n: string }>(sql, params)).rows[0]?.n);

describe('an evaluation across kill -9', () => {
  it('resumes after the restart and completes, no shadow run lost or duplicated', async () => {
    const a = await shared.spawn();
    const { token } = await createCliToken(shared.database.url, 'evals');
    const call = shared.api(token);
    const api = async (url: string, method: string, path: string, body?: unknown) => {
      const res = await call(url, method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    await api(a.url, 'POST', '/skills', {
      manifest: {
        slug: 'reply',
        name: 'Reply',
        requiresApproval: true,
        outputSchema: { type: 'object', required: ['reply'] },
      },
      promptMd: 'v1 {{input.n}}',
    });
    const originals: number[] = [];
    for (let n = 1; n <= RUNS; n++) {
      originals.push((await api(a.url, 'POST', '/skills/reply/runs', { input: { n } })).runId);
    }
    await waitFor(
      async () => (await count(`select count(*) as n from runs where output is not null`)) === RUNS,
      'the drafts',
      60_000,
    );
    await api(a.url, 'POST', '/reviews/decide-batch', {
      items: originals.map((id) => ({ kind: 'skill', id })),
      action: 'approve',
    });
    await api(a.url, 'PATCH', '/skills/reply', { promptMd: 'v2 {{input.n}}' });
    const { rows } = await shared.db.query<{ sha: string }>('select applied_sha as sha from workspace_heads');
    const started = await api(a.url, 'POST', '/skills/reply/evaluations', {
      workspace: rows[0]?.sha,
      last: RUNS,
    });
    const id = started.evaluationId as number;

    // Some shadow runs completed, the others' model calls in flight or waiting: kill it there.
    await waitFor(
      async () =>
        (await count(`select count(*) as n from runs where shadow and status = 'completed'`)) ===
          BEFORE_CRASH && fake.requests.length > RUNS + BEFORE_CRASH,
      'the evaluation under way',
      60_000,
    );
    a.child.kill('SIGKILL');
    await new Promise((resolve) => a.child.once('exit', resolve));
    const before = (
      await shared.db.query<{ id: number }>(`select id from runs where shadow and status = 'completed'`)
    ).rows;
    expect(before).toHaveLength(BEFORE_CRASH);
    expect(await count(`select count(*) as n from runs where shadow and status = 'running'`)).toBe(
      RUNS - BEFORE_CRASH,
    );

    hanging = false;
    const b = await shared.spawn();
    await waitFor(
      async () => (await api(b.url, 'GET', `/evaluations/${id}`)).status !== 'running',
      'the evaluation to complete after the restart',
      90_000,
    );
    const evaluation = await api(b.url, 'GET', `/evaluations/${id}`);
    expect(evaluation.status).toBe('completed');
    expect(evaluation.summary).toEqual({ total: RUNS, changed: RUNS, failed: 0 });
    // Each original once, newest decision first, with its own shadow run that completed.
    expect(new Set(evaluation.runs.map((r: { originalRunId: number }) => r.originalRunId))).toEqual(
      new Set(originals),
    );
    for (const r of evaluation.runs) {
      const n = originals.indexOf(r.originalRunId) + 1;
      expect(r).toMatchObject({ shadowStatus: 'completed', shadowOutput: { reply: `r${n} (v2)` } });
    }

    // No shadow run lost or duplicated: one per original, each completed exactly once.
    const shadows = await shared.db.query<{ replay_of_run_id: number; runs: number }>(
      `select replay_of_run_id, count(*)::int as runs from runs where shadow group by replay_of_run_id`,
    );
    expect(shadows.rows).toHaveLength(RUNS);
    expect(shadows.rows.every((r) => r.runs === 1)).toBe(true);
    expect(new Set(evaluation.runs.map((r: { shadowRunId: number }) => r.shadowRunId)).size).toBe(RUNS);
    const completions = await shared.db.query<{ run_id: number; completed: number; succeeded: number }>(
      `select r.id as run_id,
              (select count(*)::int from run_events e where e.run_id = r.id and e.event = 'completed') as completed,
              (select count(*)::int from actor_transitions t
                where t.actor_kind = 'skill-run' and t.actor_id = r.id and t.event_type = 'STEP_SUCCEEDED') as succeeded
         from runs r where r.shadow`,
    );
    for (const row of completions.rows)
      expect(row, `shadow run ${row.run_id}`).toMatchObject({ completed: 1, succeeded: 1 });
    // The model answered each candidate request once: the runs completed before the crash were not
    // executed again, the others were answered only after it.
    expect([...answered.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: RUNS }, (_, i) => i + 1));
    expect([...answered.values()].every((times) => times === 1)).toBe(true);
    for (const { id: shadow } of before) {
      expect((await api(b.url, 'GET', `/runs/${shadow}`)).status).toBe('completed');
    }
    // Still no review item for a shadow run, and no job left over.
    expect(
      await count(`select count(*) as n from review_items i join runs r on r.id = i.run_id where r.shadow`),
    ).toBe(0);
    expect(await count(`select count(*) as n from jobs where kind = 'execute_step'`)).toBe(0);
  }, 240_000);
});
