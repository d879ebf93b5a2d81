/**
 * The run object as PostgreSQL renders it (src/features/runs/view.ts): the same object JavaScript makes of the
 * row's columns, for awkward values too — quotes, control characters and non-ASCII text, nested and
 * null JSON, microsecond timestamps — and valid JSON text in every case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunReader, runViewJson } from '../../../src/features/runs/view.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { orgIdOf } from '../../helpers/runs.js';

let t: TestApp;
let orgId: number;
const BASE = 'https://r3.example.com/base"q';
/** The rendering under test: the batched reader every run read goes through. */
const read = (org: number, id: number) => createRunReader(t.app.db.sql, () => BASE).load({ orgId: org, id });

beforeAll(async () => {
  t = await startTestApp({ R3_WORKER_CONCURRENCY: '0' });
  await t.token({ org: 'views' });
  orgId = await orgIdOf(t.app, 'views');
});
afterAll(() => t.close());

interface Columns {
  name: string;
  status: string;
  review_state: string | null;
  paused_at: string | null;
  input: string;
  output: string | null;
  step_results: string;
  error: string | null;
  review: string | null;
  review_rounds?: string | null;
  agent_slug: string | null;
  workspace_sha: string | null;
  rating: string | null;
  feedback_note: string | null;
  feedback_at: string | null;
  completed_at: string | null;
  created_at: string;
}

let nextId = 900_000;

async function insertRun(c: Columns): Promise<number> {
  const id = nextId++;
  await t.app.db.sql.query(
    `insert into runs (id, org_id, kind, slug, name, status, review_state, paused_at, input, output, step_results,
                       error, review, agent_slug, workspace_sha, rating, feedback_note, feedback_at, completed_at,
                       created_at, created_by, trace_id, manifest, snapshot, version, updated_at, review_rounds)
     values ($1, $2, 'skill', 'slug-x', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
             'token:abc', 'trace', '{}', '{}', 1, now(), $19)`,
    [
      id,
      orgId,
      c.name,
      c.status,
      c.review_state,
      c.paused_at,
      c.input,
      c.output,
      c.step_results,
      c.error,
      c.review,
      c.agent_slug,
      c.workspace_sha,
      c.rating,
      c.feedback_note,
      c.feedback_at,
      c.completed_at,
      c.created_at,
      c.review_rounds ?? null,
    ],
  );
  return id;
}

/** The reference: the row's columns as pg parses them, made into the run object in JavaScript. */
async function reference(id: number) {
  const r = await t.app.db.sql.one<Record<string, unknown>>('select * from runs where id = $1', [id]);
  const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : null);
  return {
    id: r.id,
    kind: r.kind,
    slug: r.slug,
    name: r.name,
    status: r.status,
    reviewState: r.review_state,
    pausedAt: r.paused_at,
    input: r.input,
    output: r.output,
    draftOutput: r.draft_output ?? null,
    stepResults: r.step_results,
    error: r.error,
    review: r.review,
    rounds: r.review_rounds ?? [],
    toolCalls: [],
    agentSlug: r.agent_slug,
    missionRunId: r.mission_run_id,
    workspaceSha: r.workspace_sha,
    traceId: r.trace_id,
    rating: r.rating,
    feedbackNote: r.feedback_note,
    feedbackAt: iso(r.feedback_at),
    createdBy: r.created_by,
    createdAt: iso(r.created_at),
    completedAt: iso(r.completed_at),
    forkOf: r.fork_of_run_id === null ? null : { runId: r.fork_of_run_id, fromStep: r.fork_from_step },
    forks: (
      await t.app.db.sql.query<{ id: number }>('select id from runs where fork_of_run_id = $1 order by id', [
        id,
      ])
    ).map((f) => f.id),
    replayOf: r.replay_of_run_id,
    shadow: r.shadow,
    objects: [],
    pollUrl: `/api/v1/runs/${id}`,
    reviewUrl: `${BASE}/review/runs/${id}`,
  };
}

const plain: Columns = {
  name: 'Plain',
  status: 'running',
  review_state: 'auto',
  paused_at: null,
  input: '{"text":"hello"}',
  output: null,
  step_results: '{}',
  error: null,
  review: null,
  agent_slug: null,
  workspace_sha: 'abc123',
  rating: null,
  feedback_note: null,
  feedback_at: null,
  completed_at: null,
  created_at: '2026-03-04T05:06:07.123456Z',
};

describe('the run object rendered by PostgreSQL', () => {
  it.each([
    ['a fresh run', plain],
    [
      'awkward text and nested JSON',
      {
        ...plain,
        name: 'Quote " backslash \\ newline \n tab \t bell \u0007 é 日本 😀 </script>',
        status: 'completed',
        output: '{"a":[1,2.5,-3e-7,{"b":null,"c":"x\\ny"}],"z":true,"emoji":"😀"}',
        step_results: '{"slug-x":{"output":{"a":[1]}}}',
        review: '{"decision":"approve","by":"token:x","note":"ok \\"fine\\""}',
        agent_slug: 'writer',
        rating: 'up',
        feedback_note: 'line1\nline2 "quoted"',
        feedback_at: '2026-03-04T05:06:09.999999Z',
        completed_at: '2026-03-04T05:06:08.000001Z',
      },
    ],
    [
      'a failed run with an error and JSON null output',
      {
        ...plain,
        status: 'failed',
        output: 'null',
        error: '{"code":"OUTPUT_INVALID","message":"no","step":"slug-x"}',
        workspace_sha: null,
        created_at: '1999-12-31T23:59:59.999Z',
      },
    ],
    [
      'a run whose draft went back twice (rounds)',
      {
        ...plain,
        status: 'pending',
        review_state: 'pending',
        review_rounds:
          '[{"draft":{"text":"a \\"b\\""},"reason":"Shorter.\\n","by":"token:x","onBehalfOf":null,"at":"2026-03-04T05:06:08.000Z"},' +
          '{"draft":{"n":[1,2]},"reason":"é 😀","by":"mcp","onBehalfOf":"user:ann","at":"2026-03-04T05:06:09.000Z"}]',
      },
    ],
  ])('renders %s as JavaScript would', async (_name, columns) => {
    const id = await insertRun(columns as Columns);
    const text = await read(orgId, id);
    expect(text).not.toBeNull();
    expect(JSON.parse(text as string)).toStrictEqual(await reference(id));
  });

  it('renders a fork and its original (forkOf, forks) as JavaScript would', async () => {
    const original = await insertRun(plain);
    const forks = [await insertRun(plain), await insertRun(plain)];
    for (const [i, fork] of forks.entries()) {
      await t.app.db.sql.query('update runs set fork_of_run_id = $1, fork_from_step = $2 where id = $3', [
        original,
        i === 0 ? null : 'step "two"',
        fork,
      ]);
    }
    for (const id of [original, ...forks]) {
      expect(JSON.parse((await read(orgId, id)) as string)).toStrictEqual(await reference(id));
    }
    expect((await reference(original)).forks).toEqual(forks);
  });

  it('is null for another org and an unknown id', async () => {
    const id = await insertRun(plain);
    expect(await read(orgId + 1000, id)).toBeNull();
    expect(await read(orgId, id + 10_000)).toBeNull();
  });

  it('keys the object in the order of the run type', () => {
    const keys = [...runViewJson('$1').matchAll(/"(\w+)":/g)].map((m) => m[1]);
    expect(keys.slice(0, 5)).toEqual(['id', 'kind', 'slug', 'name', 'status']);
    expect(keys.at(-1)).toBe('reviewUrl');
  });
});
