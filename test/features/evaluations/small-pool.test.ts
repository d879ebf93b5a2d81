/**
 * Evaluations on a pool of two connections (R3_DB_POOL_SIZE=2): an evaluation's shadow runs are
 * prepared and created in chunks, the event loop turning between them inside its one transaction
 * (RunService `createShadowsIn`). That transaction holds one connection across those turns and must
 * borrow no other: a chunk that took a second one from the pool would wait for ever once the pool's
 * other connections are held — by another evaluation's transaction doing the same, two creations at
 * once on a small pool — and every request behind them with it. Here the pool is left with one
 * connection (the test holds the other) while an evaluation of 25 runs (three chunks) is created;
 * then two are created at once beside ordinary runs and reads; every request is answered.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CreatedToken } from '../../../src/features/tokens/service.js';
import { ALL_SCOPES, startTestApp, type TestApp } from '../../helpers/app.js';
import { createSkill, patchSkill } from '../../helpers/resources.js';
import { deferred, withTimeout } from '../../helpers/wait.js';

/** More than two chunks of shadow runs (RunService's SHADOW_CHUNK is 10). */
const RUNS = 25;
/** Bounds a hang only: a stalled pool never answers; a loaded machine takes seconds. */
const HANG_MS = 60_000;

let t: TestApp;
let admin: CreatedToken;
let sha: string;

const post = (path: string, body: unknown) =>
  t.request('POST', `/api/v1${path}`, { token: admin.token, body });
const get = (path: string) => t.request('GET', `/api/v1${path}`, { token: admin.token });
const evaluate = () => post('/skills/reviewed/evaluations', { workspace: sha, last: RUNS });

beforeAll(async () => {
  // No workers: the jobs are run by the test (`drain`), so only the requests use the pool.
  t = await startTestApp({ R3_DB_POOL_SIZE: '2', R3_WORKER_CONCURRENCY: '0' });
  admin = await t.token({ scopes: ALL_SCOPES });
  await createSkill(t, admin.token, { slug: 'reviewed', requiresApproval: true });
  await createSkill(t, admin.token, { slug: 'plain' });
  const ids: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const res = await post('/skills/reviewed/runs', { input: { text: `run ${i}` } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    ids.push(res.body.runId as number);
  }
  await t.app.jobs.drain();
  const decided = await post('/reviews/decide-batch', {
    items: ids.map((id) => ({ kind: 'skill', id })),
    action: 'approve',
  });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  await patchSkill(t, admin.token, 'reviewed', { promptMd: 'Sum up: {{input.text}}' });
  ({ sha } = await t.app.db.sql.one<{ sha: string }>(
    `select h.applied_sha as sha from workspace_heads h join orgs o on o.id = h.org_id where o.slug = 'acme'`,
  ));
});

afterAll(async () => {
  await t?.close();
});

/** Evaluation `id` once its shadow runs ran: completed, all `RUNS` pairs, none failed. */
async function expectCompleted(id: number): Promise<void> {
  await t.app.jobs.drain();
  const { body } = await get(`/evaluations/${id}`);
  expect(body.status).toBe('completed');
  expect(body.summary).toMatchObject({ total: RUNS, failed: 0 });
}

it("creates an evaluation with one of the pool's connections left: its chunks borrow no other", async () => {
  const release = deferred();
  const holding = deferred();
  // The pool's other connection, held by the test until the evaluation answered.
  const held = t.app.db.sql.session(async () => {
    holding.resolve();
    await release.promise;
  });
  try {
    await holding.promise;
    const res = await withTimeout(
      evaluate(),
      'the evaluation (its creation waits for a connection)',
      HANG_MS,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect((await withTimeout(get('/runs?limit=1'), 'a read after it', HANG_MS)).status).toBe(200);
    release.resolve();
    await held;
    await expectCompleted(res.body.evaluationId as number);
  } finally {
    release.resolve();
    await held;
  }
});

it('creates two evaluations at once on a pool of two connections while ordinary runs are served', async () => {
  const trigger = () => post('/skills/plain/runs', { input: { text: 'ordinary' } });
  const [first, second, ...others] = await withTimeout(
    Promise.all([evaluate(), evaluate(), trigger(), get('/runs?limit=1'), trigger(), get('/runs?limit=1')]),
    'the answers (a stalled pool never gives them)',
    HANG_MS,
  );
  for (const res of [first, second]) expect(res?.status, JSON.stringify(res?.body)).toBe(202);
  for (const res of others) expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  for (const res of [first, second]) await expectCompleted(res?.body.evaluationId as number);
});
